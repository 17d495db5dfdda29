// The composition root: builds the engine's services once; the Electron main, the server and the CLI each call it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import type { ApiHandlers, CallContext, EventArgs, LogFormat, Run, Sweep, TuneRequest, TuneResult, Workload } from '../shared/api.js';
import { ApiFailure, compareRequest, MAX_METRICS_ANSWER, methods, sweepRequest } from '../shared/api.js';
import { TuneLadder } from './tune/ladder.js';
import { TuneService } from './tune/tuneService.js';
import { EventHub, type SubscribeOptions, type Subscription } from './events.js';
import { DEFAULT_HELPER_PATH, Elevation, type ElevationSetting } from './gpu-control/elevation.js';
import { GpuControl, type GpuSettingsRecord } from './gpu-control/gpuControl.js';
import { nvidiaSmiReader, procHostReader } from './experiments/fairConditions.js';
import { SweepQueue } from './experiments/sweepQueue.js';
import { GitRevisionError, listRevisions, resolveTyped, revisionDiff } from './experiments/gitRevisions.js';
import { checkoutAgain, GitWorktreeError } from './experiments/gitWorktrees.js';
import { CodeDiffError, codeDiffBetween } from './experiments/codeDiff.js';
import { CompareService } from './compare/compareService.js';
import { Publisher } from './publish/publisher.js';
import { MlflowStore } from './store/mlflowStore.js';
import { hasRunSettings, type GpuRunSettings } from '../shared/gpuSettings.js';
import { toPoint } from './metrics/runMetrics.js';
import { compileUserRegex, testUserRegexSafely, UserRegexError } from './metrics/userRegex.js';
import { IMPORTED_COMMAND, ImportEmpty, ImportNotText, importLogFile, importLogText, ImportTooLarge, type ImportRequest } from './ingest/importLog.js';
import { IngestTasks } from './ingest/ingestTasks.js';
import { ImportSessionError, ImportSessions } from './ingest/importSessions.js';
import { writeRunLog, writeRunMetrics } from './runner/runLog.js';
import { ReparseRefused, resummarizeRun } from './ingest/reparse.js';
import { resolveCommand } from './system/resolveCommand.js';
import { classifyNvidiaSmiMessage, parseNvidiaSmiXml } from './telemetry/nvidiaSmi/index.js';
import { DEFAULT_GPU_INTERVAL_MS } from './telemetry/nvidiaSmiSampler.js';
import { runNvidiaSmi } from './system/nvidiaSmi.js';
import { DEFAULT_HOST_INTERVAL_MS } from './telemetry/hostSampler.js';
import { gpuPoint, hostPoint } from './telemetry/points.js';
import { storedGpuSamples } from './telemetry/summary.js';
import { PythonFingerprints } from './telemetry/pythonFingerprint.js';
import { OrphanRegistry } from './runner/orphans.js';
import { ownIdentity } from './system/processIdentity.js';
import { defaultDatabasePath, defaultResourcesDir } from './paths.js';
import { recoverInterruptedRuns, summarizeInterrupted, type RecoveryReport } from './runner/recovery.js';
import { RunManager, type StartRequest } from './runner/runManager.js';
import { Store, type ReadOnlyState } from './store/store.js';
import { OutputWriter } from './ingest/outputWriter.js';
import { StepProfiler } from './profile/stepProfiler.js';
import { compareProfiles } from './profile/compareProfiles.js';
import { explainCorruption } from './store/open.js';
import { ExternalChangeWatcher } from './store/externalChanges.js';
import { BuiltinWorkloadError, WorkloadNameTakenError, WorkloadNotFoundError } from './store/workloadStore.js';
import { BUILTIN_WORKLOADS } from './workloads/builtin.js';
import { adHocWorkload } from '../shared/typedCommand.js';
import { knobOfVariable, knobsAsConfig } from '../shared/knobs.js';
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
  /** How long a run's closing writes retry a full or busy file before they are held in memory (default a minute). */
  endingRetryMs?: number;
  /**
   * A file that can be read but not written (a full disk, no write permission) opens for reading only, instead
   * of being refused: the CLI's commands that only read use it. Nothing is recovered or recorded then.
   */
  readOnlyFallback?: boolean;
  /** Told before an update of the file that moves its data (see store/open.ts MigrationNotice); the face says it. */
  onMigrating?: (message: string) => void;
}

/**
 * What a face (the desktop app, the headless server, the CLI) holds: the contract's handlers and
 * events, and the few things a call cannot carry (a stream, a file, waiting for an end). Faces type
 * the engine as this, so the compiler keeps them off its parts.
 */
export interface Core {
  readonly handlers: ApiHandlers;
  readonly dbPath: string;
  /** Set when the file could only be opened for reading (see CoreOptions.readOnlyFallback): why, and what may be missing. */
  readonly readOnly: ReadOnlyState | null;
  subscribe(listener: (...args: EventArgs) => void, options?: SubscribeOptions): Subscription;
  /**
   * Starts a run with its GPU settings: applied (journaled) first, recorded with the run, put back when
   * it ends. Without settings, the settings in force are recorded.
   */
  startRun(request: StartRequest & GpuStartOptions): Promise<Run>;
  /** A sweep's record once it has ended (done, cancelled or failed). */
  waitForSweepEnd(id: number): Promise<Sweep>;
  /** `tune.run` with a line of progress at each step for `say` (the CLI's stderr). */
  tune(request: TuneRequest, say?: (line: string) => void): Promise<TuneResult>;
  /** Tunes kept step by step: started, followed, cancelled and resumed (the CLI's `tune` and `tune --resume`). */
  tunes: Pick<TuneService, 'start' | 'resume' | 'cancel' | 'get' | 'list' | 'waitForEnd' | 'export'>;
  /** A run's final record, once it has ended and its summary is made (the CLI's `run` waits on it). */
  waitForExit(id: number): Promise<Run>;
  /**
   * Ended runs whose ending a full disk or a long lock keeps out of the file (waitForExit gave it from memory),
   * after one more try to write them now.
   */
  unstoredEndings(): number[];
  /**
   * A run's whole stored log, raw or plain, to a stream, after everything queued is stored: the CLI's `log`,
   * the server's download and the desktop's Save all write it this way.
   */
  writeRunLog(id: number, format: LogFormat, sink: Writable): Promise<void>;
  /** A run's metric values to a stream, a page at a time (the CLI's `metrics`): how many were written. */
  writeRunMetrics(id: number, format: 'table' | 'json', sink: Writable): Promise<number>;
  /** A log file (`-`: standard input) read in pieces into a new run, dated by the core's clock; the faces hear of it like any new run. */
  importLogFile(file: string, options: Omit<ImportRequest, 'now'>): Promise<Run>;
  /** Origins of the MLflow UIs this database publishes to: the desktop app opens links to them in the browser. */
  mlflowUiOrigins(): string[];
  close(): Promise<void>;
}

/**
 * The engine with its parts in view: what createCore returns. Tests and benchmarks use the parts to
 * check what no face can see (rows in the store, a live session, the GPU journal); faces hold a Core.
 */
export interface EngineCore extends Core {
  readonly store: Store<OutputWriter>;
  /** Long work on stored runs (parsing again, an import's summary), on a thread of its own. */
  readonly tasks: IngestTasks;
  readonly runner: RunManager;
  readonly recovery: RecoveryReport;
  readonly orphans: OrphanRegistry;
  readonly gpu: GpuControl;
  readonly sweeps: SweepQueue;
  readonly compare: CompareService;
  readonly publisher: Publisher;
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
  /**
   * Aborted (a CLI's SIGINT, SIGTERM or SIGHUP) before the run has started: nothing is started, and GPU settings
   * already applied for it are put back before StoppedBeforeStart is thrown with the abort's reason.
   */
  stopBeforeStart?: AbortSignal | undefined;
}

/** A start asked to stop before the run existed (a signal in its first seconds): nothing ran, nothing stays applied. */
export class StoppedBeforeStart extends Error {
  override name = 'StoppedBeforeStart';

  constructor(reason: string, settingsPutBack: boolean) {
    super(`${reason}: stopped before the run started, so nothing ran${settingsPutBack ? '; the GPU settings applied for it were put back' : ''}`);
  }
}

const ELEVATION_SETTINGS: readonly ElevationSetting[] = ['auto', 'root', 'sudo', 'pkexec', 'manual'];

export function createCore(options: CoreOptions): EngineCore {
  const env = options.env ?? process.env;
  const clock = options.clock ?? systemClock;
  const now = () => clock.now();
  const dbPath = options.dbPath ?? defaultDatabasePath(env);
  /** This engine as the owner of runs, sweeps and GPU changes: pid and start time, so no later process with its pid passes for it. */
  const engine = ownIdentity();
  // Where the person stood when they started the engine (npm's INIT_CWD under `npm run serve`): a typed command's default directory.
  const startedIn = env.INIT_CWD || process.cwd();
  const resourcesDir = options.resourcesDir ?? defaultResourcesDir();
  const version = options.version ?? readPackageVersion(resourcesDir);

  // Checked before anything is opened, so a bad setting leaves nothing behind.
  const intervals = {
    gpuMs: intervalFromEnv(env.TUNING_BENCH_GPU_INTERVAL_MS, DEFAULT_GPU_INTERVAL_MS),
    hostMs: intervalFromEnv(env.TUNING_BENCH_HOST_INTERVAL_MS, DEFAULT_HOST_INTERVAL_MS),
  };
  /** The GPU the engine samples, controls and waits for (nvidia-smi's -i): one setting, read once. */
  const gpuIndex = env.TUNING_BENCH_GPU ?? '0';
  const elevationSetting = (env.TUNING_BENCH_GPU_ELEVATION || 'auto') as ElevationSetting;
  if (!ELEVATION_SETTINGS.includes(elevationSetting)) {
    throw new Error(`TUNING_BENCH_GPU_ELEVATION is one of ${ELEVATION_SETTINGS.join(', ')}, got "${elevationSetting}"`);
  }
  // The output writer is ingest's, on its own thread; the Store passes its status, flush and close on.
  const store = new Store(dbPath, (file, readOnly) => new OutputWriter(file, undefined, readOnly), clock, { readOnlyFallback: options.readOnlyFallback === true, ...(options.onMigrating ? { onMigrating: options.onMigrating } : {}) });
  const writable = store.readOnly === null;
  // DESIGN: nvidia-smi on PATH, or the one TUNING_BENCH_NVIDIA_SMI names; none means host telemetry only.
  // A TUNING_BENCH_NVIDIA_SMI that names no file means no GPU tools, said as such (not "exited 1").
  const nvidiaSmiBinary = env.TUNING_BENCH_NVIDIA_SMI
    ? fs.existsSync(path.resolve(env.TUNING_BENCH_NVIDIA_SMI))
      ? path.resolve(env.TUNING_BENCH_NVIDIA_SMI)
      : null
    : resolveCommand('nvidia-smi', process.cwd(), env.PATH);
  // What is open so far, closed again (last first) if a later step of the start fails: a file SQLite could open
  // but not read (a damaged page met by recovery, a sweep or the runs list) must end the process with a clear
  // message, never leave the writer threads keeping it alive for good.
  const openedSoFar: Array<() => unknown> = [() => store.close()];
  const startStep = <T>(step: () => T): T => {
    try {
      return step();
    } catch (error) {
      const closers = openedSoFar.reverse();
      void closers.reduce<Promise<unknown>>((previous, close) => previous.then(close).catch(() => undefined), Promise.resolve());
      throw explainCorruption(error, dbPath);
    }
  };
  // A file open for reading only is shown as it is: recovering its runs would need writing them.
  const recovery: RecoveryReport = !writable ? { interrupted: [], orphans: [] } : startStep(() => {
    for (const workload of BUILTIN_WORKLOADS) store.workloads.upsertBuiltin(workload);
    return recoverInterruptedRuns(store.runs, store.processes, engine, now(), (run) => summarizeInterrupted(store, run));
  });
  const orphans = new OrphanRegistry(recovery.orphans, store.processes);
  openedSoFar.push(() => orphans.close());
  const tasks = new IngestTasks(dbPath, store.output.bytesFirst, store.readOnly?.reason ?? null);
  openedSoFar.push(() => tasks.close());

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
    defaultGpu: gpuIndex,
    env: childEnv,
    clock,
    owner: engine,
  });
  openedSoFar.push(() => gpu.close());

  const events = new EventHub();
  // Each profile's folder (summary.json, the Chrome trace) lives beside the database.
  const profiler = new StepProfiler({ dir: path.join(path.dirname(dbPath), 'profiles'), profiles: store.profiles, telemetry: store.telemetry, clock });
  const runner = new RunManager(store, events, {
    builtins: { resources: resourcesDir, node: options.nodePath ?? process.execPath },
    nodeEnv: options.nodeEnv ?? {},
    baseEnv: stringEnv(env),
    channelDir: path.join(path.dirname(dbPath), 'channels'),
    pythonHelperDir: path.join(resourcesDir, 'python'),
    flushStore: () => store.flush(),
    summarizeStored: (runId, summaryOptions, stepMarks) => tasks.summarizeRun(runId, summaryOptions, stepMarks),
    nvidiaSmi: { binary: nvidiaSmiBinary, gpu: gpuIndex },
    intervals,
    pythonFingerprints: new PythonFingerprints(path.join(path.dirname(dbPath), 'python-fingerprints.json'), clock),
    clock,
    profiler,
    engine,
    endingRetryMs: options.endingRetryMs,
  });
  openedSoFar.push(() => runner.close());

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
    const { gpuSettings, confirmOtherProcesses, inForce, stopBeforeStart, ...start } = request;
    const stopIfAsked = (settingsPutBack: boolean) => {
      if (stopBeforeStart?.aborted) throw new StoppedBeforeStart(String(stopBeforeStart.reason), settingsPutBack);
    };
    stopIfAsked(false);
    if (!hasRunSettings(gpuSettings)) {
      const settingsInForce = inForce ?? (await gpu.settingsInForce());
      stopIfAsked(false);
      return runner.start({ ...start, gpuSettingsInForce: settingsInForce });
    }
    const label = start.workload ? `a run of ${start.workload.name}` : 'a run';
    const lease = await gpu.acquire(gpuSettings, { scope: 'run', confirmOtherProcesses: confirmOtherProcesses ?? false, label });
    try {
      if (stopBeforeStart?.aborted) {
        await lease.release();
        stopIfAsked(true);
      }
      return runner.start({ ...start, gpuSettingsInForce: lease.record, gpuLease: lease });
    } catch (error) {
      await lease.release();
      throw error;
    }
  };

  // Each sweep's `git=` worktrees, and the worktree a side is made again in to profile or run it again, beside the database.
  const worktreeDir = path.join(path.dirname(dbPath), 'worktrees');
  const sweeps = new SweepQueue({
    store,
    runner,
    startRun: (request) => startRun(request),
    gpu,
    events,
    reader: nvidiaSmiBinary === null ? null : nvidiaSmiReader(nvidiaSmiBinary, gpuIndex, childEnv),
    hostReader: procHostReader(clock),
    cores: os.cpus().length,
    clock,
    owner: engine,
    worktreeDir,
    gitEnv: childEnv,
  });
  openedSoFar.push(() => sweeps.close());
  const interruptedSweeps = !writable ? [] : startStep(() => sweeps.recoverInterrupted().map((sweep) => sweep.id));
  // Runs and sweeps another process (the CLI beside an open UI) starts, advances or ends, reported within a second.
  const externalChanges = startStep(() => new ExternalChangeWatcher(
    store.db,
    store.runs,
    (id) => runner.isActive(id),
    (run) => events.emit('runs.onDidChange', run),
    undefined,
    {
      store: store.sweeps,
      owner: engine,
      onSweep: (id) => {
        try {
          events.emit('sweeps.onDidChange', sweeps.get(id));
        } catch {
          // Removed meanwhile: nothing to show.
        }
      },
    },
  ));

  const compare = new CompareService(store, clock);
  // Finished runs and sweeps this engine recorded go to MLflow where that was asked for (or on their own, by the setting).
  const publisher = new Publisher({ store, mlflow: new MlflowStore(store.db, store.metrics), compare, events, clock, env, ownerPid: process.pid, waitForRun: (id) => runner.waitForExit(id) });
  const publishing = events.subscribe((event, payload) => publisher.onEvent(event, payload));
  /** A run pulled back from MLflow was recorded on another box: what depends on its output or its machine is refused, saying so. */
  const refuseImported = (id: number, what: string) => {
    const origin = store.runs.get(id)?.origin;
    if (origin) throw new ApiFailure('conflict', `run ${id} was pulled back from MLflow (recorded on ${origin.machine.label}) and is read-only here: ${what}; its MLflow run is ${origin.url}`);
  };
  const imports = new ImportSessions({ store, tasks }, clock);
  /** An import's refusals the person can act on cross as such; the rest are the engine's. */
  const importFailure = (error: unknown): unknown => {
    // What the person gave is not a log (empty, too large, not text): theirs to fix, not an internal fault.
    if (error instanceof ImportEmpty || error instanceof ImportTooLarge || error instanceof ImportNotText) return new ApiFailure('invalid_input', error.message);
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
  /** Worktrees made again for re-runs of before/after sides, removed as their runs end; close() waits for them. */
  const rerunCleanups = new Set<Promise<void>>();
  /**
   * Where a re-run of `source` runs: its own directory, or, for a before/after side whose temporary worktree is gone,
   * the same revision (and snapshot, and links) checked out again, removed when the re-run ends.
   */
  const rerunPlace = async (source: Run): Promise<{ cwd: string; checkout: Run['checkout']; remove: (() => Promise<void>) | null }> => {
    if (!source.checkout) return { cwd: source.cwd, checkout: null, remove: null };
    fs.mkdirSync(worktreeDir, { recursive: true });
    const folder = fs.mkdtempSync(path.join(worktreeDir, `rerun-${source.id}-`));
    try {
      const again = await checkoutAgain(source.checkout, folder, childEnv);
      return { cwd: again.cwd, checkout: again.checkout, remove: again.remove };
    } catch (error) {
      if (error instanceof GitWorktreeError) throw new ApiFailure('conflict', `run ${source.id} cannot be run again: ${error.message}`);
      throw error;
    }
  };
  /**
   * The same thing again: the same workload (when its template still gives the run's command) or command, its values
   * and work per step, in the same place (a before/after side's worktree made again); a window profiled when
   * `profile` is given.
   */
  const startRerun = async (id: number, profile: { warmupSteps: number; steps: number } | null): Promise<Run> => {
    const source = requireRun(id);
    refuseImported(id, `its command belongs to the machine it ran on, so ${profile ? 'profile' : 'run'} it there`);
    if (source.command[0] === IMPORTED_COMMAND) throw new ApiFailure('invalid_input', `run ${id} is an imported log: there is no command to run again`);
    if (runner.isActive(id)) {
      throw new ApiFailure('conflict', `run ${id} is still running; ${profile ? 'profile' : 'run'} it again when it ends (two runs at once would skew both)`);
    }
    const workload = source.workloadId !== null ? store.workloads.get(source.workloadId) : undefined;
    // A side's config holds `git=REV`, and a run with knobs `knob.NAME`, which are not command values: the command is
    // compared without them (the knobs go on to the re-run through its config, below).
    const { git: _revision, ...withKnobs } = source.config;
    const commandValues = Object.fromEntries(Object.entries(withKnobs).filter(([name]) => knobOfVariable(name) === null));
    const knobValues = Object.fromEntries(Object.entries(withKnobs).filter(([name]) => knobOfVariable(name) !== null));
    // The run's values split into its workload's variables and the rest: a typed run later given a workload to hold
    // a regex ("Save regex and parse again") keeps its typed values, which that workload has no variables for.
    const names = new Set(workload?.variables.map((variable) => variable.name) ?? []);
    const values = Object.fromEntries(Object.entries(commandValues).filter(([name]) => names.has(name)));
    const makesSameCommand = (from: Workload, filledWith: Record<string, string>): boolean => {
      try {
        return JSON.stringify(runner.preview(from, filledWith).command) === JSON.stringify(source.command);
      } catch {
        return false;
      }
    };
    // A typed run is run again as typed (its {variables} filled with the same values), so it keeps them too; one
    // stored before they were kept (or whose template no longer gives its command) runs its command as it ran.
    const typed = source.typedCommand;
    const typedWorkload = typed ? adHocWorkload(typed) : null;
    const place = await rerunPlace(source);
    const start =
      workload && makesSameCommand(workload, values)
        ? { workload, values }
        : typed && typedWorkload && makesSameCommand(typedWorkload, typed.values)
          ? { workload: typedWorkload, values: typed.values }
          : { workload: null, values: {}, adHoc: { command: source.command, cwd: place.cwd, env: source.env } };
    // Values the command is not made from stay in the run's config; a side keeps its place and its `git=REV`.
    const madeFrom = new Set(Object.keys(start.values));
    const unused = Object.fromEntries(Object.entries(commandValues).filter(([name]) => !madeFrom.has(name)));
    const extraConfig = { ...unused, ...knobValues, ...(source.checkout ? { git: source.checkout.revision } : {}) };
    const side = source.checkout ? { cwdOverride: place.cwd } : {};
    const unitsPerStep = source.unitsPerStep ?? undefined;
    let run: Run;
    try {
      run = await startRun({
        ...start,
        ...side,
        ...(Object.keys(extraConfig).length > 0 ? { extraConfig } : {}),
        ...(unitsPerStep ? { unitsPerStep } : {}),
        ...(profile ? { profile, profileOf: id } : {}),
        checkout: place.checkout,
      });
    } catch (error) {
      await place.remove?.();
      throw error;
    }
    if (place.remove) {
      const cleanup = runner
        .waitForExit(run.id)
        .then(() => place.remove!())
        .catch(() => undefined)
        .finally(() => rerunCleanups.delete(cleanup));
      rerunCleanups.add(cleanup);
    }
    // Said on the run itself, so the runs list and a comparison show what this extra run is.
    store.runs.annotate(run.id, profile ? { notes: `profiling re-run of run #${id}`, tags: ['profile'] } : { notes: `re-run of run #${id}`, tags: ['rerun'] });
    const annotated = requireRun(run.id);
    events.emit('runs.onDidChange', annotated);
    return annotated;
  };

  /** A tune's step ends with its sweep: one already ended (or removed) has nothing left to cancel. */
  const cancelTuneSweep = (id: number) => {
    try {
      sweeps.control(id, 'cancel');
    } catch {
      // Ended meanwhile.
    }
  };
  const tuneLadder = new TuneLadder({
    startSweep: (request) => sweeps.start(sweepRequest.parse(request)),
    findBatch: (request) => sweeps.findBatch(methods['sweeps.findBatch'].input.parse(request)),
    waitForSweepEnd: (id) => sweeps.waitForEnd(id),
    cancelSweep: cancelTuneSweep,
    compare: (request) => compare.compare(compareRequest.parse(request)),
    getRun: (id) => requireRun(id),
    readFile: (file) => {
      try {
        return fs.readFileSync(file, 'utf8');
      } catch {
        return null;
      }
    },
  });
  const tunes = new TuneService({ store: store.tunes, ladder: tuneLadder, events, clock, owner: engine, cancelSweep: cancelTuneSweep });
  openedSoFar.push(() => tunes.close());
  if (writable) startStep(() => tunes.recoverInterrupted());
  const tune = async (request: TuneRequest, say?: (line: string) => void): Promise<TuneResult> => (await tunes.waitForEnd(tunes.start(request, null, say).id)).result;

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
    'runs.start': ({ workloadId, command, values, cols, rows, timeoutSeconds, maxSteps, gpuSettings, confirmOtherProcesses, unitsPerStep, profile, steps, knobs }) => {
      if ((workloadId === undefined) === (command === undefined)) throw new ApiFailure('invalid_input', 'give a workload or a typed command (one of the two)');
      const workload = command ? adHocWorkload(command) : requireWorkload(workloadId!);
      const own = steps && (steps.warmupSteps !== null || steps.excludeSteps.length > 0) ? { ...steps, setBy: 'run' as const } : undefined;
      // Knobs are recorded in the run's config (`knob.NAME`), where a re-run and a comparison find them like any value.
      const knobConfig = knobs && Object.keys(knobs).length > 0 ? { extraConfig: knobsAsConfig(knobs) } : {};
      return startRun({ workload, values, cols, rows, timeoutSeconds, maxSteps, gpuSettings, confirmOtherProcesses, unitsPerStep, profile, steps: own, ...knobConfig });
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
      const count = store.metrics.count(id);
      if (count > MAX_METRICS_ANSWER) {
        throw new ApiFailure(
          'invalid_input',
          `run ${id} has ${count.toLocaleString('en-US')} metric values, more than one answer carries (${MAX_METRICS_ANSWER.toLocaleString('en-US')}): ` +
            `its charts read runs.chartMetrics, and \`tuning-bench metrics ${id}\` streams every value`,
        );
      }
      return store.metrics.forRun(id).map(toPoint);
    },
    'runs.chartMetrics': async ({ id, maxPointsPerMetric }) => {
      requireRun(id);
      await store.flush();
      const { samples, stored } = store.metrics.chartSamples(id, maxPointsPerMetric);
      return { points: samples.map(toPoint), stored };
    },
    'runs.import': async ({ name, text }) => {
      const run = await importLogText({ store, tasks }, text, { name: name ?? 'imported log', now: now() }).catch((error: unknown) => {
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
      for (const id of ids) refuseImported(id, 'its output stayed on the machine it ran on, so it cannot be parsed again here');
      const results = [];
      for (const id of ids) {
        if (runner.isActive(id)) throw new ApiFailure('conflict', `run ${id} is still running; parse it again once it has ended`);
        if (workload) store.runs.setWorkload(id, workload);
        try {
          // Anything this thread still queues for the run (its channel's samples) is stored before the task reads it.
          await store.flush();
          const result = await tasks.reparse(id, now());
          const updated = requireRun(id);
          events.emit('runs.onDidChange', updated);
          events.emit('runs.onMetricsReplaced', { runId: id });
          results.push({ ...result, run: updated });
        } catch (error) {
          if (error instanceof ReparseRefused) throw new ApiFailure(store.runs.get(id) ? 'conflict' : 'not_found', error.message);
          throw error;
        }
      }
      return results;
    },
    'runs.setSteps': async ({ id, warmupSteps, excludeSteps }) => {
      requireRun(id);
      if (runner.isActive(id)) throw new ApiFailure('conflict', `run ${id} is still running; set its steps once it has ended`);
      try {
        const run = await resummarizeRun(store, id, { warmupSteps, excludeSteps }, now());
        events.emit('runs.onDidChange', run);
        return run;
      } catch (error) {
        if (error instanceof ReparseRefused) throw new ApiFailure('conflict', error.message);
        throw error;
      }
    },
    'runs.codeDiff': ({ id }) => {
      const { git, origin } = requireRun(id);
      if (origin && git?.dirty) return { diff: null, reason: `the diff stayed on ${origin.machine.label}, where the run was recorded (sha256 ${git.diffSha256 ?? 'unknown'})` };
      if (!git) return { diff: null, reason: 'the run did not start in a git repository' };
      if (!git.dirty || git.diffSha256 === null) return { diff: null, reason: `the code was committed as it ran (${git.commit?.slice(0, 12) ?? 'no commit'}), with no uncommitted changes` };
      const diff = store.runs.codeDiff(git.diffSha256);
      if (!diff) return { diff: null, reason: `the diff was ${git.diffBytes} bytes, too large to keep; its sha256 is ${git.diffSha256}` };
      return { diff: diff.toString('utf8'), reason: null };
    },
    'runs.codeDiffBetween': async ({ fromId, toId }) => {
      try {
        return await codeDiffBetween(requireRun(fromId), requireRun(toId), (sha) => store.runs.codeDiff(sha), childEnv);
      } catch (error) {
        if (error instanceof CodeDiffError) throw new ApiFailure('invalid_input', error.message);
        throw error;
      }
    },
    'runs.summaryHistory': ({ id }) => {
      requireRun(id);
      return store.runs.summaryHistory(id);
    },
    'runs.numericLines': async ({ id, limit }) => {
      requireRun(id);
      await store.flush();
      return tasks.numericLines(id, limit);
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
    'git.resolve': ({ cwd, revision }) => gitAnswer(() => resolveTyped(cwd, revision, childEnv)),
    'git.diff': ({ cwd, from, to }) => gitAnswer(() => revisionDiff(cwd, from, to, childEnv)),
    'compare.runs': (input) => compare.compare(input),
    'tune.run': (input) => tune(input),
    'tune.start': ({ request, sourceRunId }) => {
      if (sourceRunId !== null) requireRun(sourceRunId);
      return tunes.start(request, sourceRunId);
    },
    'tune.get': ({ id }) => tunes.get(id),
    'tune.list': ({ sourceRunId, limit }) => tunes.list(limit, sourceRunId),
    'tune.cancel': ({ id }) => tunes.cancel(id),
    'tune.resume': ({ id }) => tunes.resume(id),
    'tune.export': ({ id, format }) => tunes.export(id, format),
    'compare.export': ({ format, ...input }) => compare.export(input, format),
    'compare.series': ({ runIds }) => compare.series(runIds),
    'runs.annotate': ({ id, notes, tags }) => {
      requireRun(id);
      store.runs.annotate(id, { notes, tags });
      const run = requireRun(id);
      events.emit('runs.onDidChange', run);
      return run;
    },
    'mlflow.settings': () => publisher.settings(),
    'mlflow.configure': (input) => publisher.configure(input),
    'mlflow.publish': (input) => publisher.publish(input),
    'mlflow.publications': ({ runId, sweepId, comparison }) => {
      if (runId !== undefined) return publisher.publications({ kind: 'run', runId });
      if (sweepId !== undefined) return publisher.publications({ kind: 'sweep', sweepId });
      if (comparison !== undefined) return publisher.publications({ kind: 'comparison', key: publisher.comparisonKey(comparison), request: comparison });
      return publisher.publications(null);
    },
    'mlflow.import': (input) => publisher.importRuns(input),
    'runs.orphans': () => orphans.list(),
    'runs.killOrphan': ({ runId }) => {
      orphans.kill(runId);
      return { ok: true as const };
    },
  };

  let closed = false;
  return {
    handlers: namingDamage(handlers, dbPath),
    store,
    tasks,
    runner,
    recovery,
    orphans,
    gpu,
    sweeps,
    compare,
    publisher,
    interruptedSweeps,
    dbPath,
    readOnly: store.readOnly,
    subscribe: (listener, subscribeOptions) => events.subscribe(listener, subscribeOptions),
    startCommand: (request) => runner.start({ workload: null, values: {}, ...request }),
    startRun,
    waitForExit: (id) => runner.waitForExit(requireRun(id).id),
    waitForSweepEnd: (id) => sweeps.waitForEnd(id),
    tune,
    tunes,
    unstoredEndings: () => runner.retryHeldWrites(),
    async writeRunLog(id, format, sink) {
      try {
        requireRun(id);
        await store.flush();
        await writeRunLog(store.runs, id, format, sink);
      } catch (error) {
        throw explainCorruption(error, dbPath);
      }
    },
    async writeRunMetrics(id, format, sink) {
      try {
        requireRun(id);
        await store.flush();
        return await writeRunMetrics(store.metrics, id, format, sink);
      } catch (error) {
        throw explainCorruption(error, dbPath);
      }
    },
    async importLogFile(file, importOptions) {
      try {
        const run = await importLogFile({ store, tasks }, file, { ...importOptions, now: now() });
        events.emit('runs.onDidChange', run);
        return run;
      } catch (error) {
        throw explainCorruption(error, dbPath);
      }
    },
    mlflowUiOrigins: () => publisher.uiOrigins(),
    async close() {
      if (closed) return;
      closed = true;
      // Tunes under way are kept as interrupted (resumable) before their sweeps stop.
      tunes.close();
      orphans.close();
      externalChanges.close();
      await imports.close();
      // Sweeps first, so none starts another run; each run puts its own GPU changes back as it ends,
      // a sweep's are put back as it stops, and anything still held here.
      const sweepsStopped = sweeps.close();
      await runner.close();
      await sweepsStopped;
      await Promise.all([...rerunCleanups]);
      // Runs and sweeps that ended are published (or their failure recorded) before the database closes.
      await publisher.close();
      publishing.unsubscribe();
      await gpu.close();
      await tasks.close();
      await store.close();
    },
  };
}

/** The handlers, each saying a damaged page it meets as DatabaseCorruptError (the file, and what to do) rather than SQLite's bare message. */
function namingDamage(handlers: ApiHandlers, dbPath: string): ApiHandlers {
  const named: Partial<Record<keyof ApiHandlers, unknown>> = {};
  for (const [method, handler] of Object.entries(handlers) as Array<[keyof ApiHandlers, (input: unknown, context: CallContext) => unknown]>) {
    // A handler that answers at once still does (callers may use its value directly); a promise is followed.
    named[method] = (input: unknown, context: CallContext) => {
      let answer: unknown;
      try {
        answer = handler(input, context);
      } catch (error) {
        throw explainCorruption(error, dbPath);
      }
      return answer instanceof Promise ? answer.catch((error: unknown) => Promise.reject(explainCorruption(error, dbPath))) : answer;
    };
  }
  // Each entry wraps the handler of the same method with the same signature: TypeScript cannot correlate the union here.
  return named as ApiHandlers;
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
