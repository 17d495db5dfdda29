// The composition root: builds the engine's services once and wires them; the Electron main, the server and the CLI each call it.
import os from 'node:os';
import path from 'node:path';
import { systemClock } from './clock.js';
import { EventHub } from './events.js';
import { apiHandlers } from './app/handlers.js';
import type { CoreOptions, EngineCore } from './app/core.js';
import { readEngineConfig } from './app/engineConfig.js';
import { requireRun } from './app/lookups.js';
import { Reruns } from './app/reruns.js';
import { startRunWithGpu } from './app/startRun.js';
import { Startup } from './app/startup.js';
import { coreStreams } from './app/streams.js';
import { createTunes, tuneToEnd } from './app/tunes.js';
import { sayWriteStatus } from './app/writeNotices.js';
import { CompareService } from './compare/compareService.js';
import { nvidiaSmiReader, procHostReader } from './experiments/fairConditions.js';
import { SweepQueue } from './experiments/sweepQueue.js';
import { Elevation } from './gpu-control/elevation.js';
import { GpuControl } from './gpu-control/gpuControl.js';
import { ImportSessions } from './ingest/importSessions.js';
import { IngestTasks } from './ingest/ingestTasks.js';
import { OutputWriter } from './ingest/outputWriter.js';
import { StepProfiler } from './profile/stepProfiler.js';
import { Publisher } from './publish/publisher.js';
import { OrphanRegistry } from './runner/orphans.js';
import { recoverInterruptedRuns, summarizeInterrupted, type RecoveryReport } from './runner/recovery.js';
import { RunManager } from './runner/runManager.js';
import { ExternalChangeWatcher } from './store/externalChanges.js';
import { MlflowStore } from './store/mlflowStore.js';
import { Store } from './store/store.js';
import { resolveCommand } from './system/resolveCommand.js';
import { ownIdentity } from './system/processIdentity.js';
import { PythonFingerprints } from './telemetry/pythonFingerprint.js';
import { BUILTIN_WORKLOADS } from './workloads/builtin.js';

export type { Core, CoreOptions, EngineCore } from './app/core.js';
export { StoppedBeforeStart, type GpuStartOptions } from './app/startRun.js';

export function createCore(options: CoreOptions): EngineCore {
  // Checked before anything is opened, so a bad setting leaves nothing behind.
  const config = readEngineConfig(options);
  const { dbPath, dataDir, childEnv, gpuIndex, nvidiaSmi } = config;
  const clock = options.clock ?? systemClock;
  /** This engine as the owner of runs, sweeps and GPU changes: pid and start time, so no later process with its pid passes for it. */
  const engine = ownIdentity();
  const storeOptions = { readOnlyFallback: options.readOnlyFallback === true, ...(options.onMigrating ? { onMigrating: options.onMigrating } : {}) };
  // The output writer is ingest's, on its own thread; the Store passes its status, flush and close on.
  const store = new Store(dbPath, (file, readOnly) => new OutputWriter(file, undefined, readOnly), clock, storeOptions);
  const writable = store.readOnly === null;
  const startup = new Startup(dbPath);
  startup.opened(store, (opened) => opened.close());
  // A file open for reading only is shown as it is: recovering its runs would need writing them.
  const recovery: RecoveryReport = !writable ? { interrupted: [], orphans: [] } : startup.step(() => {
    for (const workload of BUILTIN_WORKLOADS) store.workloads.upsertBuiltin(workload);
    return recoverInterruptedRuns(store.runs, store.processes, engine, clock.now(), (run) => summarizeInterrupted(store, run));
  });
  const orphans = startup.opened(new OrphanRegistry(recovery.orphans, store.processes, clock), (opened) => opened.close());
  const tasks = startup.opened(new IngestTasks(dbPath, store.output.bytesFirst, store.readOnly?.reason ?? null), (opened) => opened.close());
  const elevation = nvidiaSmi === null ? null : new Elevation({
    nvidiaSmi, env: childEnv, setting: config.elevation, isRoot: process.getuid?.() === 0, desktop: config.face === 'electron',
    helperPath: config.gpuHelperPath, resolve: (program) => resolveCommand(program, process.cwd(), config.env.PATH),
  });
  const gpu = startup.opened(new GpuControl({ journal: store.gpuJournal, nvidiaSmi, elevation, defaultGpu: gpuIndex, env: childEnv, clock, owner: engine }), (opened) => opened.close());

  const events = new EventHub();
  // Each profile's folder (summary.json, the Chrome trace) lives beside the database.
  const profiler = new StepProfiler({ dir: path.join(dataDir, 'profiles'), profiles: store.profiles, telemetry: store.telemetry, clock });
  const runner = startup.opened(new RunManager(store, events, {
    builtins: { resources: config.resourcesDir, node: config.node.path }, nodeEnv: config.node.env, baseEnv: childEnv,
    channelDir: path.join(dataDir, 'channels'), pythonHelperDir: path.join(config.resourcesDir, 'python'),
    flushStore: () => store.flush(),
    summarizeStored: (runId, summaryOptions, stepMarks) => tasks.summarizeRun(runId, summaryOptions, stepMarks),
    nvidiaSmi: { binary: nvidiaSmi, gpu: gpuIndex }, intervals: config.intervals,
    pythonFingerprints: new PythonFingerprints(path.join(dataDir, 'python-fingerprints.json'), clock),
    clock, profiler, engine, endingRetryMs: options.endingRetryMs,
  }), (opened) => opened.close());
  sayWriteStatus(store, runner, events);
  const startRun = startRunWithGpu(runner, gpu);

  // Each sweep's `git=` worktrees, and the worktree a side is made again in to profile or run it again, beside the database.
  const worktreeDir = path.join(dataDir, 'worktrees');
  const sweeps = startup.opened(new SweepQueue({
    store, runner, startRun, gpu, events, clock, owner: engine, worktreeDir, gitEnv: childEnv,
    reader: nvidiaSmi === null ? null : nvidiaSmiReader(nvidiaSmi, gpuIndex, childEnv), hostReader: procHostReader(clock), cores: os.cpus().length,
  }), (opened) => opened.close());
  const interruptedSweeps = !writable ? [] : startup.step(() => sweeps.recoverInterrupted().map((sweep) => sweep.id));
  // Runs and sweeps another process (the CLI beside an open UI) starts, advances or ends, reported within a second.
  const externalChanges = startup.step(() => new ExternalChangeWatcher(store.db, store.runs, (id) => runner.isActive(id), (run) => events.emit('runs.onDidChange', run), clock, {
    store: store.sweeps,
    owner: engine,
    onSweep: (id) => {
      try {
        events.emit('sweeps.onDidChange', sweeps.get(id));
      } catch {
        // Removed meanwhile: nothing to show.
      }
    },
  }));

  const compare = new CompareService(store, clock);
  // Finished runs and sweeps this engine recorded go to MLflow where that was asked for (or on their own, by the setting).
  const publisher = new Publisher({ store, mlflow: new MlflowStore(store.db, store.metrics), compare, events, clock, env: config.env, ownerPid: process.pid, waitForRun: (id) => runner.waitForExit(id) });
  const publishing = events.subscribe((event, payload) => publisher.onEvent(event, payload));
  const imports = new ImportSessions({ store, tasks }, clock);
  const reruns = new Reruns({ store, runner, events, startRun, worktreeDir, gitEnv: childEnv });
  const tunes = startup.opened(createTunes({ store, sweeps, compare, events, clock, owner: engine }), (opened) => opened.close());
  if (writable) startup.step(() => tunes.recoverInterrupted());

  const services = { config, clock, store, tasks, events, runner, gpu, sweeps, compare, publisher, imports, orphans, tunes, reruns, startRun };
  let closed = false;
  return {
    ...{ store, tasks, runner, orphans, gpu, sweeps, compare, publisher, tunes, startRun },
    ...coreStreams({ store, tasks, events, clock, dbPath }),
    handlers: apiHandlers(services),
    recovery,
    interruptedSweeps,
    dbPath,
    readOnly: store.readOnly,
    subscribe: (listener, subscribeOptions) => events.subscribe(listener, subscribeOptions),
    startCommand: (request) => runner.start({ workload: null, values: {}, ...request }),
    waitForExit: (id) => runner.waitForExit(requireRun(store, id).id),
    waitForSweepEnd: (id) => sweeps.waitForEnd(id),
    tune: (request, say) => tuneToEnd(tunes, request, say),
    unstoredEndings: () => runner.retryHeldWrites(),
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
      await reruns.close();
      // Runs and sweeps that ended are published (or their failure recorded) before the database closes.
      await publisher.close();
      publishing.unsubscribe();
      await gpu.close();
      await tasks.close();
      await store.close();
    },
  };
}
