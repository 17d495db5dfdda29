// The composition root: builds the engine's services once and wires them; the Electron main, the server and the CLI each call it.
import { systemClock } from './clock.js';
import { EventHub } from './events.js';
import type { CoreOptions, EngineCore } from './app/core.js';
import { readEngineConfig } from './app/engineConfig.js';
import { apiHandlers } from './app/handlers.js';
import { requireRun } from './app/lookups.js';
import { elevationFor, newPublisher, newRunManager, newSweepQueue, watchOtherEngines, type Basics } from './app/parts.js';
import { Reruns } from './app/reruns.js';
import { startRunWithGpu } from './app/startRun.js';
import { Startup } from './app/startup.js';
import { coreStreams } from './app/streams.js';
import { createTunes, tuneToEnd } from './app/tunes.js';
import { sayWriteStatus } from './app/writeNotices.js';
import { CompareService } from './compare/compareService.js';
import { GpuControl } from './gpu-control/gpuControl.js';
import { ImportSessions } from './ingest/importSessions.js';
import { IngestTasks } from './ingest/ingestTasks.js';
import { Recording } from './ingest/recording.js';
import { OrphanRegistry } from './runner/orphans.js';
import { recoverInterruptedRuns, summarizeInterrupted, type RecoveryReport } from './runner/recovery.js';
import { ownIdentity } from './system/processIdentity.js';
import { BUILTIN_WORKLOADS } from './workloads/builtin.js';

export type { Core, CoreOptions, EngineCore } from './app/core.js';
export { StoppedBeforeStart, type GpuStartOptions } from './app/startRun.js';

export function createCore(options: CoreOptions): EngineCore {
  // Checked before anything is opened, so a bad setting leaves nothing behind.
  const config = readEngineConfig(options);
  const { dbPath, childEnv } = config;
  const clock = options.clock ?? systemClock;
  /** This engine as the owner of runs, sweeps and GPU changes: pid and start time, so no later process with its pid passes for it. */
  const engine = ownIdentity();
  const storeOptions = { readOnlyFallback: options.readOnlyFallback === true, ...(options.onMigrating ? { onMigrating: options.onMigrating } : {}) };
  // The file's store, and ingest's output writer on threads of its own with its own connection.
  const recording = Recording.open(dbPath, clock, storeOptions);
  const { store } = recording;
  const writable = store.readOnly === null;
  const startup = new Startup(dbPath);
  const closing = <T extends { close(): unknown }>(part: T): T => startup.opened(part, (opened) => opened.close());
  closing(recording);
  // A file open for reading only is shown as it is: recovering its runs would need writing them.
  const recovery: RecoveryReport = !writable
    ? { interrupted: [], orphans: [] }
    : startup.step(() => {
        for (const workload of BUILTIN_WORKLOADS) store.workloads.upsertBuiltin(workload);
        return recoverInterruptedRuns(store.runs, store.processes, engine, clock.now(), (run) => summarizeInterrupted(store, run));
      });
  const orphans = closing(new OrphanRegistry(recovery.orphans, store.processes, clock));
  const tasks = closing(new IngestTasks(dbPath, recording.output.bytesFirst, store.readOnly?.reason ?? null));
  const elevation = elevationFor(config);
  const gpu = closing(
    new GpuControl({ journal: store.gpuJournal, nvidiaSmi: config.nvidiaSmi, elevation, defaultGpu: config.gpuIndex, env: childEnv, clock, owner: engine }),
  );

  const events = new EventHub();
  const basics: Basics = { config, store, recording, events, clock, engine };
  const runner = closing(newRunManager(basics, tasks, options.endingRetryMs));
  sayWriteStatus(recording, runner, events);
  const startRun = startRunWithGpu(runner, gpu);
  const sweeps = closing(newSweepQueue(basics, runner, gpu, startRun));
  const interruptedSweeps = !writable ? [] : startup.step(() => sweeps.recoverInterrupted().map((sweep) => sweep.id));
  const externalChanges = startup.step(() => watchOtherEngines(basics, runner, sweeps));

  const compare = new CompareService(store, clock);
  const publisher = newPublisher(basics, compare, runner);
  const publishing = events.subscribe((event, payload) => publisher.onEvent(event, payload));
  const imports = new ImportSessions({ recording, tasks }, clock);
  const reruns = new Reruns({ store, runner, events, startRun, worktreeDir: config.worktreeDir, gitEnv: childEnv });
  const tunes = closing(createTunes({ store, sweeps, compare, events, clock, owner: engine }));
  if (writable) startup.step(() => tunes.recoverInterrupted());

  const services = { config, clock, store, recording, tasks, events, runner, gpu, sweeps, compare, publisher, imports, orphans, tunes, reruns, startRun };
  let closed = false;
  return {
    ...{ store, recording, tasks, runner, orphans, gpu, sweeps, compare, publisher, tunes, startRun },
    ...coreStreams({ recording, tasks, events, clock, dbPath }),
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
      await recording.close();
    },
  };
}
