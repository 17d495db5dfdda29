// The composition root: builds the engine's services once; the Electron main, the server and the CLI each call it.
import fs from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import type { ApiHandlers, EventArgs, LogFormat, Run, Sweep } from '../shared/api.js';
import { ApiFailure } from '../shared/api.js';
import { EventHub, type SubscribeOptions, type Subscription } from './events.js';
import { DEFAULT_HELPER_PATH, Elevation, type ElevationSetting } from './gpu-control/elevation.js';
import { GpuControl, type GpuSettingsRecord } from './gpu-control/gpuControl.js';
import { nvidiaSmiReader } from './experiments/fairConditions.js';
import { SweepQueue } from './experiments/sweepQueue.js';
import { GitRevisionError, listRevisions, revisionDiff } from './experiments/gitRevisions.js';
import { CompareService } from './compare/compareService.js';
import { hasRunSettings, type GpuRunSettings } from '../shared/gpuSettings.js';
import { toPoint } from './metrics/runMetrics.js';
import { compileUserRegex, testUserRegexSafely, UserRegexError } from './metrics/userRegex.js';
import { IMPORTED_COMMAND, ImportEmpty, importLogFile, importLogText, ImportTooLarge, type ImportRequest } from './ingest/importLog.js';
import { ImportSessionError, ImportSessions } from './ingest/importSessions.js';
import { writeRunLog } from './runner/runLog.js';
import { numericLines, reparseRun, ReparseRefused } from './ingest/reparse.js';
import { resolveCommand } from './system/resolveCommand.js';
import { classifyNvidiaSmiMessage, parseNvidiaSmiXml } from './telemetry/nvidiaSmi/index.js';
import { DEFAULT_GPU_INTERVAL_MS } from './telemetry/nvidiaSmiSampler.js';
import { runNvidiaSmi } from './system/nvidiaSmi.js';
import { DEFAULT_HOST_INTERVAL_MS } from './telemetry/hostSampler.js';
import { gpuPoint, hostPoint } from './telemetry/points.js';
import { storedGpuSamples } from './telemetry/summary.js';
import { PythonFingerprints } from './telemetry/pythonFingerprint.js';
import { OrphanRegistry } from './runner/orphans.js';
import { isAlive } from './system/procStat.js';
import { defaultDatabasePath, defaultResourcesDir } from './paths.js';
import { recoverInterruptedRuns, summarizeInterrupted, type RecoveryReport } from './runner/recovery.js';
import { RunManager, type StartRequest } from './runner/runManager.js';
import { Store } from './store/store.js';
import { OutputWriter } from './ingest/outputWriter.js';
import { StepProfiler } from './profile/stepProfiler.js';
import { compareProfiles } from './profile/compareProfiles.js';
import { explainCorruption } from './store/open.js';
import { ExternalChangeWatcher } from './store/externalChanges.js';
import { BuiltinWorkloadError, WorkloadNameTakenError, WorkloadNotFoundError } from './store/workloadStore.js';
import { BUILTIN_WORKLOADS } from './workloads/builtin.js';
import { adHocWorkload } from '../shared/typedCommand.js';
import { systemClock, type Clock } from './clock.js';

export interface CoreOptions {
  dbPath?: string;
  resourcesDir?: string;
  face: 'electron' | 'headless';
  version?: string;
  /** A Node binary for `{node}`; under Electron, Electron itself with `nodeEnv` ELECTRON_RUN_AS_NODE=1. */
  nodePath?: string;
  nodeEnv?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
  /**
   * The one source of time for what the engine records and waits on. A test passes a ManualClock; its timers
   * (the store's batched commits, a sweep's wait for a cool GPU) then fire only as the test advances it.
   */
  clock?: Clock;
}

/**
 * What a face (the desktop app, the headless server, the CLI) holds: the contract's handlers and
 * events, and the few things a call cannot carry (a stream, a file, waiting for an end). Faces type
 * the engine as this, so the compiler keeps them off its parts.
 */
export interface Core {
  readonly handlers: ApiHandlers;
  readonly dbPath: string;
  subscribe(listener: (...args: EventArgs) => void, options?: SubscribeOptions): Subscription;
  /**
   * Starts a run with its GPU settings: applied (journaled) first, recorded with the run, put back when
   * it ends. Without settings, the settings in force are recorded.
   */
  startRun(request: StartRequest & GpuStartOptions): Promise<Run>;
  /** A sweep's record once it has ended (done, cancelled or failed). */
  waitForSweepEnd(id: number): Promise<Sweep>;
  /** A run's final record, once it has ended and its summary is made (the CLI's `run` waits on it). */
  waitForExit(id: number): Promise<Run>;
  /**
   * A run's whole stored log, raw or plain, to a stream, after everything queued is stored: the CLI's `log`,
   * the server's download and the desktop's Save all write it this way.
   */
  writeRunLog(id: number, format: LogFormat, sink: Writable): Promise<void>;
  /** A log file (`-`: standard input) read in pieces into a new run, dated by the core's clock; the faces hear of it like any new run. */
  importLogFile(file: string, options: Omit<ImportRequest, 'now'>): Promise<Run>;
  close(): Promise<void>;
}

/**
 * The engine with its parts in view: what createCore returns. Tests and benchmarks use the parts to
 * check what no face can see (rows in the store, a live session, the GPU journal); faces hold a Core.
 */
export interface EngineCore extends Core {
  readonly store: Store<OutputWriter>;
  readonly runner: RunManager;
  readonly recovery: RecoveryReport;
  readonly orphans: OrphanRegistry;
  readonly gpu: GpuControl;
  readonly sweeps: SweepQueue;
  readonly compare: CompareService;
  /** Sweeps whose engine died; they can be resumed. */
  readonly interruptedSweeps: number[];
  /** Starts an ad-hoc command outside any workload, without GPU settings (tests, benchmarks). */
  startCommand(request: Omit<StartRequest, 'workload' | 'values'> & { values?: Record<string, string> }): Run;
}

export interface GpuStartOptions {
  gpuSettings?: GpuRunSettings | undefined;
  confirmOtherProcesses?: boolean | undefined;
  /** Settings a sweep holds for its runs (recorded as set by the sweep). */
  inForce?: GpuSettingsRecord | null | undefined;
}

const ELEVATION_SETTINGS: readonly ElevationSetting[] = ['auto', 'root', 'sudo', 'pkexec', 'manual'];

export function createCore(options: CoreOptions): EngineCore {
  const env = options.env ?? process.env;
  const clock = options.clock ?? systemClock;
  const now = () => clock.now();
  const dbPath = options.dbPath ?? defaultDatabasePath(env);
  // Where the person stood when they started the engine (npm's INIT_CWD under `npm run serve`): a typed command's default directory.
  const startedIn = env.INIT_CWD || process.cwd();
  const resourcesDir = options.resourcesDir ?? defaultResourcesDir();
  const version = options.version ?? readPackageVersion(resourcesDir);

  // Checked before anything is opened, so a bad setting leaves nothing behind.
  const intervals = {
    gpuMs: intervalFromEnv(env.TUNING_BENCH_GPU_INTERVAL_MS, DEFAULT_GPU_INTERVAL_MS),
    hostMs: intervalFromEnv(env.TUNING_BENCH_HOST_INTERVAL_MS, DEFAULT_HOST_INTERVAL_MS),
  };
  const elevationSetting = (env.TUNING_BENCH_GPU_ELEVATION || 'auto') as ElevationSetting;
  if (!ELEVATION_SETTINGS.includes(elevationSetting)) {
    throw new Error(`TUNING_BENCH_GPU_ELEVATION is one of ${ELEVATION_SETTINGS.join(', ')}, got "${elevationSetting}"`);
  }
  // The output writer is ingest's, on its own thread; the Store passes its status, flush and close on.
  const store = new Store(dbPath, (file) => new OutputWriter(file), clock);
  // DESIGN: nvidia-smi on PATH, or the one TUNING_BENCH_NVIDIA_SMI names; none means host telemetry only.
  // A TUNING_BENCH_NVIDIA_SMI that names no file means no GPU tools, said as such (not "exited 1").
  const nvidiaSmiBinary = env.TUNING_BENCH_NVIDIA_SMI
    ? fs.existsSync(path.resolve(env.TUNING_BENCH_NVIDIA_SMI))
      ? path.resolve(env.TUNING_BENCH_NVIDIA_SMI)
      : null
    : resolveCommand('nvidia-smi', process.cwd(), env.PATH);
  let recovery: RecoveryReport;
  try {
    for (const workload of BUILTIN_WORKLOADS) store.workloads.upsertBuiltin(workload);
    recovery = recoverInterruptedRuns(store.runs, now(), (run) => summarizeInterrupted(store, run));
  } catch (error) {
    // A file SQLite could open but not read (damaged pages): close the writer thread so the process can exit.
    void store.close();
    throw explainCorruption(error, dbPath);
  }
  const orphans = new OrphanRegistry(recovery.orphans);

  const childEnv = stringEnv(env);
  const gpu = new GpuControl({
    journal: store.gpuJournal,
    nvidiaSmi: nvidiaSmiBinary,
    elevation:
      nvidiaSmiBinary === null
        ? null
        : new Elevation({
            nvidiaSmi: nvidiaSmiBinary,
            env: childEnv,
            setting: elevationSetting,
            isRoot: process.getuid?.() === 0,
            desktop: options.face === 'electron',
            helperPath: env.TUNING_BENCH_GPU_HELPER || DEFAULT_HELPER_PATH,
            resolve: (program) => resolveCommand(program, process.cwd(), env.PATH),
          }),
    defaultGpu: env.TUNING_BENCH_GPU ?? '0',
    env: childEnv,
    clock,
    ownerPid: process.pid,
  });

  const events = new EventHub();
  // Each profile's folder (summary.json, the Chrome trace) lives beside the database.
  const profiler = new StepProfiler({ dir: path.join(path.dirname(dbPath), 'profiles'), profiles: store.profiles, telemetry: store.telemetry, clock });
  const runner = new RunManager(store.runs, store.metrics, store.telemetry, store.output, events, {
    builtins: { resources: resourcesDir, node: options.nodePath ?? process.execPath },
    nodeEnv: options.nodeEnv ?? {},
    baseEnv: stringEnv(env),
    channelDir: path.join(path.dirname(dbPath), 'channels'),
    pythonHelperDir: path.join(resourcesDir, 'python'),
    flushStore: () => store.flush(),
    nvidiaSmi: { binary: nvidiaSmiBinary, gpu: env.TUNING_BENCH_GPU ?? '0' },
    intervals,
    pythonFingerprints: new PythonFingerprints(path.join(path.dirname(dbPath), 'python-fingerprints.json'), clock),
    clock,
    profiler,
  });

  // Runs another process (the CLI beside this UI) starts or ends in the same file show up here within a second.

  // A full disk or a busy file pauses writing: every live run's page (and the CLI) says so, and again when it resumes.
  store.onWriteStatus((status) => {
    const level = status.state === 'paused' ? 'warning' : 'info';
    const message = status.state === 'paused' ? status.message : 'Writing resumed: everything kept in memory meanwhile is stored.';
    for (const runId of runner.activeRunIds()) events.emit('runs.onTelemetryStatus', { runId, level, message });
  });
  store.onOutputDropping((runId, limitBytes) => {
    const message =
      `Writing is paused and the output held in memory reached ${Math.round(limitBytes / 1024 / 1024)} MiB: ` +
      'later output is still read for metrics but not kept until the disk has space again. The run page says how much was dropped.';
    events.emit('runs.onTelemetryStatus', { runId, level: 'warning', message });
  });

  const startRun = async (request: StartRequest & GpuStartOptions): Promise<Run> => {
    const { gpuSettings, confirmOtherProcesses, inForce, ...start } = request;
    if (!hasRunSettings(gpuSettings)) {
      return runner.start({ ...start, gpuSettingsInForce: inForce ?? (await gpu.settingsInForce()) });
    }
    const label = start.workload ? `a run of ${start.workload.name}` : 'a run';
    const lease = await gpu.acquire(gpuSettings, { scope: 'run', confirmOtherProcesses: confirmOtherProcesses ?? false, label });
    try {
      const run = runner.start({ ...start, gpuSettingsInForce: lease.record, gpuLease: lease });
      return run;
    } catch (error) {
      await lease.release();
      throw error;
    }
  };

  const sweeps = new SweepQueue({
    store,
    runner,
    startRun: (request) => startRun(request),
    gpu,
    events,
    reader: nvidiaSmiBinary === null ? null : nvidiaSmiReader(nvidiaSmiBinary, env.TUNING_BENCH_GPU ?? '0', childEnv),
    clock,
    ownerPid: process.pid,
    worktreeDir: path.join(path.dirname(dbPath), 'worktrees'),
  });
  const interruptedSweeps = sweeps.recoverInterrupted(isAlive).map((sweep) => sweep.id);
  // Runs and sweeps another process (the CLI beside an open UI) starts, advances or ends, reported within a second.
  const externalChanges = new ExternalChangeWatcher(
    store.db,
    store.runs,
    (id) => runner.isActive(id),
    (run) => events.emit('runs.onDidChange', run),
    undefined,
    {
      store: store.sweeps,
      ownerPid: process.pid,
      onSweep: (id) => {
        try {
          events.emit('sweeps.onDidChange', sweeps.get(id));
        } catch {
          // Removed meanwhile: nothing to show.
        }
      },
    },
  );

  const compare = new CompareService(store, clock);
  const imports = new ImportSessions(store, clock);
  /** An import's refusals the person can act on cross as such; the rest are the engine's. */
  const importFailure = (error: unknown): unknown => {
    if (error instanceof ImportEmpty || error instanceof ImportTooLarge) return new ApiFailure('invalid_input', error.message);
    if (error instanceof ImportSessionError) return new ApiFailure(error.kind, error.message);
    return error;
  };

  const requireWorkload = (id: number) => {
    const workload = store.workloads.get(id);
    if (!workload) throw new ApiFailure('not_found', `no workload ${id}`);
    return workload;
  };
  const requireRun = (id: number) => {
    const run = store.runs.get(id);
    if (!run) throw new ApiFailure('not_found', `no run ${id}`);
    return run;
  };

  const requireProfile = (runId: number) => {
    requireRun(runId);
    const profile = store.profiles.forRun(runId);
    if (!profile) throw new ApiFailure('not_found', `run ${runId} has no profile; make one with \`tuning-bench profile ${runId} --rerun\` or the Profile button`);
    return profile;
  };
  /** The same command (and workload, when its template still gives that command) again: as it was, or with a window profiled. */
  const startRerun = async (id: number, profile: { warmupSteps: number; steps: number } | null): Promise<Run> => {
    const source = requireRun(id);
    if (source.command[0] === IMPORTED_COMMAND) throw new ApiFailure('invalid_input', `run ${id} is an imported log: there is no command to run again`);
    if (runner.isActive(id)) {
      throw new ApiFailure('conflict', `run ${id} is still running; ${profile ? 'profile' : 'run'} it again when it ends (two runs at once would skew both)`);
    }
    const workload = source.workloadId !== null ? store.workloads.get(source.workloadId) : undefined;
    // The run's values split into its workload's variables and the rest: a typed run later given a workload to hold
    // a regex ("Save regex and parse again") keeps its typed values, which that workload has no variables for.
    const names = new Set(workload?.variables.map((variable) => variable.name) ?? []);
    const values = Object.fromEntries(Object.entries(source.config).filter(([name]) => names.has(name)));
    const others = Object.fromEntries(Object.entries(source.config).filter(([name]) => !names.has(name)));
    const sameCommand = (() => {
      if (!workload) return false;
      try {
        return JSON.stringify(runner.preview(workload, values).command) === JSON.stringify(source.command);
      } catch {
        return false;
      }
    })();
    const start = workload && sameCommand
      ? { workload, values, ...(Object.keys(others).length > 0 ? { extraConfig: others } : {}) }
      : { workload: null, values: {}, adHoc: { command: source.command, cwd: source.cwd, env: source.env }, extraConfig: source.config };
    const unitsPerStep = source.unitsPerStep ?? undefined;
    if (profile === null) return startRun({ ...start, ...(unitsPerStep ? { unitsPerStep } : {}) });
    const run = await startRun({ ...start, ...(unitsPerStep ? { unitsPerStep } : {}), profile, profileOf: id });
    // Said on the run itself, so the runs list and a comparison show what this extra run is.
    store.runs.annotate(run.id, { notes: `profiling re-run of run #${id}`, tags: ['profile'] });
    const annotated = requireRun(run.id);
    events.emit('runs.onDidChange', annotated);
    return annotated;
  };

  const handlers: ApiHandlers = {
    'app.info': () => ({ version, face: options.face, dbPath, platform: `${process.platform}-${process.arch}`, cwd: startedIn }),
    'workloads.list': () => store.workloads.list(),
    'workloads.create': (input) => {
      checkMetricPattern(input.metricRegex);
      try {
        const created = store.workloads.create(input);
        events.emit('workloads.onDidChange', { workloads: store.workloads.list() });
        return created;
      } catch (error) {
        if (error instanceof WorkloadNameTakenError) throw new ApiFailure('conflict', error.message);
        throw error;
      }
    },
    'workloads.update': ({ id, workload: input }) => {
      // A built-in is refused as such by the store, whatever its pattern.
      if (store.workloads.get(id)?.builtin !== true) checkMetricPattern(input.metricRegex);
      try {
        const updated = store.workloads.update(id, input);
        events.emit('workloads.onDidChange', { workloads: store.workloads.list() });
        return updated;
      } catch (error) {
        throw workloadFailure(error);
      }
    },
    'workloads.remove': ({ id }) => {
      try {
        store.workloads.remove(id);
        events.emit('workloads.onDidChange', { workloads: store.workloads.list() });
        return { ok: true as const };
      } catch (error) {
        throw workloadFailure(error);
      }
    },
    'workloads.preview': ({ workloadId, command: typed, values }) => {
      if ((workloadId === undefined) === (typed === undefined)) throw new ApiFailure('invalid_input', 'give a workload or a typed command (one of the two)');
      const { command, cwd, env: runEnv } = runner.preview(typed ? adHocWorkload(typed) : requireWorkload(workloadId!), values);
      return { command, cwd, env: runEnv };
    },
    'runs.list': ({ limit }) => store.runs.list(limit),
    'runs.get': ({ id }) => requireRun(id),
    'runs.start': ({ workloadId, command, values, cols, rows, timeoutSeconds, maxSteps, gpuSettings, confirmOtherProcesses, unitsPerStep, profile }) => {
      if ((workloadId === undefined) === (command === undefined)) throw new ApiFailure('invalid_input', 'give a workload or a typed command (one of the two)');
      const workload = command ? adHocWorkload(command) : requireWorkload(workloadId!);
      return startRun({ workload, values, cols, rows, timeoutSeconds, maxSteps, gpuSettings, confirmOtherProcesses, unitsPerStep, profile });
    },
    'runs.profile': ({ id, warmupSteps, steps }) => startRerun(id, { warmupSteps, steps }),
    'profiles.get': ({ runId }) => {
      requireRun(runId);
      return store.profiles.forRun(runId);
    },
    'profiles.compare': ({ runId, baselineRunId }) => compareProfiles(requireProfile(runId), requireProfile(baselineRunId)),
    'profiles.trace': ({ runId }) => {
      const profile = requireProfile(runId);
      if (!profile.tracePath || !fs.existsSync(profile.tracePath)) {
        throw new ApiFailure('not_found', `the profile of run ${runId} has no trace file${profile.tracePath ? ` (${profile.tracePath} is gone)` : ''}`);
      }
      const bytes = fs.statSync(profile.tracePath).size;
      if (bytes > MAX_TRACE_DOWNLOAD_BYTES) {
        throw new ApiFailure('unavailable', `the trace is ${Math.round(bytes / 2 ** 20)} MiB, too large to pass through the app; open ${profile.tracePath} in https://ui.perfetto.dev`);
      }
      return { content: fs.readFileSync(profile.tracePath, 'utf8'), filename: `run-${profile.runId}-trace.json`, mimeType: 'application/json' };
    },
    'runs.stop': ({ id, reason }) => {
      runner.stop(id, reason === undefined ? {} : { reason });
      return { ok: true as const };
    },
    'runs.write': ({ id, data }) => {
      runner.write(id, data);
      return { ok: true as const };
    },
    'runs.resize': ({ id, cols, rows }) => {
      runner.resize(id, cols, rows);
      return { ok: true as const };
    },
    'runs.output': async ({ id, afterSeq, maxBytes, fromEnd }) => {
      requireRun(id);
      // Flush first so a reader sees everything the run has written so far.
      await store.flush();
      const page = store.runs.outputPage(id, { afterSeq, maxBytes, fromEnd });
      return {
        chunks: page.chunks,
        complete: page.reachedEnd && !runner.isActive(id),
        skippedBytes: page.skippedBytes,
        lastSeq: page.lastSeq,
      };
    },
    'runs.ackOutput': ({ id, chars }, context) => {
      events.ack(context.subscriberId, id, chars);
      return { ok: true as const };
    },
    'runs.saveLog': () => {
      // Saving needs a face: Electron's dialog or the server's download; each face overrides this.
      throw new ApiFailure('unavailable', 'this face cannot save files; use `tuning-bench log RUN_ID > file`');
    },
    'runs.metrics': async ({ id }) => {
      requireRun(id);
      await store.flush();
      return store.metrics.forRun(id).map(toPoint);
    },
    'runs.import': async ({ name, text }) => {
      const run = await importLogText(store, text, { name: name ?? 'imported log', now: now() }).catch((error: unknown) => {
        throw importFailure(error);
      });
      events.emit('runs.onDidChange', run);
      return run;
    },
    'runs.importBegin': ({ name, totalBytes }) => {
      try {
        return imports.begin({ name: name ?? 'imported log', totalBytes });
      } catch (error) {
        throw importFailure(error);
      }
    },
    'runs.importAppend': ({ importId, text }) => imports.append(importId, text).catch((error: unknown) => Promise.reject(importFailure(error))),
    'runs.importFinish': async ({ importId }) => {
      const run = await imports.finish(importId).catch((error: unknown) => Promise.reject(importFailure(error)));
      events.emit('runs.onDidChange', run);
      return run;
    },
    'runs.importCancel': async ({ importId }) => {
      await imports.cancel(importId);
      return { ok: true as const };
    },
    'runs.rerun': ({ id }) => startRerun(id, null),
    'runs.reparse': async ({ ids, workloadId }) => {
      const workload = workloadId === undefined ? null : requireWorkload(workloadId);
      for (const id of ids) requireRun(id);
      const results = [];
      for (const id of ids) {
        if (runner.isActive(id)) throw new ApiFailure('conflict', `run ${id} is still running; parse it again once it has ended`);
        if (workload) store.runs.setWorkload(id, workload);
        try {
          const result = await reparseRun(store, id, now());
          events.emit('runs.onDidChange', result.run);
          events.emit('runs.onMetricsReplaced', { runId: id });
          results.push(result);
        } catch (error) {
          if (error instanceof ReparseRefused) throw new ApiFailure(store.runs.get(id) ? 'conflict' : 'not_found', error.message);
          throw error;
        }
      }
      return results;
    },
    'runs.codeDiff': ({ id }) => {
      const { git } = requireRun(id);
      if (!git) return { diff: null, reason: 'the run did not start in a git repository' };
      if (!git.dirty || git.diffSha256 === null) return { diff: null, reason: `the code was committed as it ran (${git.commit?.slice(0, 12) ?? 'no commit'}), with no uncommitted changes` };
      const diff = store.runs.codeDiff(git.diffSha256);
      if (!diff) return { diff: null, reason: `the diff was ${git.diffBytes} bytes, too large to keep; its sha256 is ${git.diffSha256}` };
      return { diff: diff.toString('utf8'), reason: null };
    },
    'runs.summaryHistory': ({ id }) => {
      requireRun(id);
      return store.runs.summaryHistory(id);
    },
    'runs.numericLines': async ({ id, limit }) => {
      requireRun(id);
      await store.flush();
      return numericLines(store, id, limit);
    },
    'metrics.testRegex': ({ pattern, text }) => testUserRegexSafely(pattern, text),
    'runs.telemetry': async ({ id }) => {
      requireRun(id);
      await store.flush();
      return { gpu: storedGpuSamples(store.telemetry, id).map(gpuPoint), host: store.telemetry.hostSamples(id).map(hostPoint) };
    },
    'gpu.info': async () => {
      if (nvidiaSmiBinary === null) return { available: false, reason: 'no nvidia-smi found: no NVIDIA GPU or driver on this machine', card: null };
      const { code, output } = await runNvidiaSmi(nvidiaSmiBinary, ['-q', '-x'], stringEnv(env));
      const message = classifyNvidiaSmiMessage(output);
      if (code !== 0) return { available: false, reason: message?.line ?? `nvidia-smi -q -x exited ${code}`, card: null };
      const parsed = parseNvidiaSmiXml(output);
      if (!parsed.ok) return { available: false, reason: `could not read nvidia-smi's answer: ${parsed.error}`, card: null };
      return { available: true, reason: null, card: parsed.card as unknown as Record<string, unknown> };
    },
    'gpu.status': ({ gpu: selected }) => gpu.status(selected),
    'gpu.apply': ({ gpu: selected, operation, confirmOtherProcesses }) => gpu.apply(operation, { gpu: selected, confirmOtherProcesses }),
    'gpu.restoreAbandoned': () => gpu.restoreAbandoned(),
    'sweeps.plan': (input) => sweeps.preview(input),
    'sweeps.start': (input) => sweeps.start(input),
    'sweeps.list': ({ limit }) => sweeps.list(limit),
    'sweeps.get': ({ id }) => sweeps.get(id),
    'sweeps.control': ({ id, action }) => sweeps.control(id, action),
    'sweeps.findBatch': (input) => sweeps.findBatch(input),
    'git.revisions': ({ cwd, limit }) => gitAnswer(() => listRevisions(cwd, limit, childEnv)),
    'git.diff': ({ cwd, from, to }) => gitAnswer(() => revisionDiff(cwd, from, to, childEnv)),
    'compare.runs': (input) => compare.compare(input),
    'compare.export': ({ format, ...input }) => compare.export(input, format),
    'compare.series': ({ runIds }) => compare.series(runIds),
    'runs.annotate': ({ id, notes, tags }) => {
      requireRun(id);
      store.runs.annotate(id, { notes, tags });
      const run = requireRun(id);
      events.emit('runs.onDidChange', run);
      return run;
    },
    'runs.orphans': () => orphans.list(),
    'runs.killOrphan': ({ runId }) => {
      orphans.kill(runId);
      return { ok: true as const };
    },
  };

  let closed = false;
  return {
    handlers,
    store,
    runner,
    recovery,
    orphans,
    gpu,
    sweeps,
    compare,
    interruptedSweeps,
    dbPath,
    subscribe: (listener, subscribeOptions) => events.subscribe(listener, subscribeOptions),
    startCommand: (request) => runner.start({ workload: null, values: {}, ...request }),
    startRun,
    waitForExit: (id) => runner.waitForExit(requireRun(id).id),
    waitForSweepEnd: (id) => sweeps.waitForEnd(id),
    async writeRunLog(id, format, sink) {
      requireRun(id);
      await store.flush();
      await writeRunLog(store.runs, id, format, sink);
    },
    async importLogFile(file, importOptions) {
      const run = await importLogFile(store, file, { ...importOptions, now: now() });
      events.emit('runs.onDidChange', run);
      return run;
    },
    async close() {
      if (closed) return;
      closed = true;
      orphans.close();
      externalChanges.close();
      await imports.close();
      // Sweeps first, so none starts another run; each run puts its own GPU changes back as it ends,
      // a sweep's are put back as it stops, and anything still held here.
      const sweepsStopped = sweeps.close();
      await runner.close();
      await sweepsStopped;
      await gpu.close();
      await store.close();
    },
  };
}

/** A git question whose answer is the person's to fix (not a repository, no such revision) crosses as invalid input. */
async function gitAnswer<T>(ask: () => Promise<T>): Promise<T> {
  try {
    return await ask();
  } catch (error) {
    if (error instanceof GitRevisionError) throw new ApiFailure('invalid_input', error.message);
    throw error;
  }
}

function workloadFailure(error: unknown): unknown {
  if (error instanceof WorkloadNameTakenError || error instanceof BuiltinWorkloadError) return new ApiFailure('conflict', error.message);
  if (error instanceof WorkloadNotFoundError) return new ApiFailure('not_found', error.message);
  return error;
}

/** A trace larger than this is opened from its file instead: a string this size is what a page handles without stalling. */
const MAX_TRACE_DOWNLOAD_BYTES = 64 * 2 ** 20;

/** Sampling faster than 50 ms would cost more than it shows; slower than a minute shows nothing. */
const MIN_INTERVAL_MS = 50;
const MAX_INTERVAL_MS = 60_000;

function intervalFromEnv(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < MIN_INTERVAL_MS || ms > MAX_INTERVAL_MS) {
    throw new Error(`a sampling interval is a whole number of milliseconds from ${MIN_INTERVAL_MS} to ${MAX_INTERVAL_MS}, got "${value}"`);
  }
  return ms;
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) result[key] = value;
  return result;
}

function readPackageVersion(resourcesDir: string): string {
  try {
    const pkg = JSON.parse(fs.readFileSync(`${resourcesDir}/../package.json`, 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** A workload's metric pattern is checked when it is saved, so no run starts with one that parsing would ignore. */
function checkMetricPattern(pattern: string): void {
  if (pattern === '') return;
  try {
    compileUserRegex(pattern);
  } catch (error) {
    if (error instanceof UserRegexError) throw new ApiFailure('invalid_input', `metric pattern: ${error.message}`);
    throw error;
  }
}
