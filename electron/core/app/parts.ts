// The engine's larger services made from its settings: createCore decides what each is handed and in what order.
import os from 'node:os';
import path from 'node:path';
import type { Clock } from '../clock.js';
import type { CompareService } from '../compare/compareService.js';
import type { EventHub } from '../events.js';
import { nvidiaSmiReader, procHostReader } from '../experiments/fairConditions.js';
import { SweepQueue } from '../experiments/sweepQueue.js';
import { Elevation } from '../gpu-control/elevation.js';
import type { GpuControl } from '../gpu-control/gpuControl.js';
import type { IngestTasks } from '../ingest/ingestTasks.js';
import type { Recording } from '../ingest/recording.js';
import { StepProfiler } from '../profile/stepProfiler.js';
import { Publisher } from '../publish/publisher.js';
import { RunManager } from '../runner/runManager.js';
import { ExternalChangeWatcher } from '../store/externalChanges.js';
import { MlflowStore } from '../store/mlflowStore.js';
import type { Store } from '../store/store.js';
import type { ProcessIdentity } from '../system/processIdentity.js';
import { resolveCommand } from '../system/resolveCommand.js';
import { PythonFingerprints } from '../telemetry/pythonFingerprint.js';
import type { EngineConfig } from './engineConfig.js';
import type { StartRun } from './startRun.js';
import { releaseIdleHeap } from '../system/heapRelease.js';
import { storedRunSummary, SUMMARY_IN_PLACE_SAMPLES } from '../ingest/storedRunSummary.js';

/** What most parts are made with. */
export interface Basics {
  config: EngineConfig;
  store: Store;
  /** The same file's store with ingest's output writer: what flushing output and watching writes need. */
  recording: Recording;
  events: EventHub;
  clock: Clock;
  /** This engine as the owner of runs, sweeps and GPU changes. */
  engine: ProcessIdentity;
}

/** How GPU control gets root; none without nvidia-smi. */
export function elevationFor(config: EngineConfig): Elevation | null {
  if (config.nvidiaSmi === null) return null;
  return new Elevation({
    nvidiaSmi: config.nvidiaSmi,
    env: config.childEnv,
    setting: config.elevation,
    isRoot: process.getuid?.() === 0,
    desktop: config.face === 'electron',
    helperPath: config.gpuHelperPath,
    resolve: (program) => resolveCommand(program, process.cwd(), config.env.PATH),
  });
}

/** The live runs: their summaries made on the task thread, profiles, channel files and fingerprints beside the database. */
export function newRunManager({ config, store, recording, events, clock, engine }: Basics, tasks: IngestTasks, endingRetryMs: number | undefined): RunManager {
  const { dataDir, resourcesDir } = config;
  const { runs, processes, metrics, telemetry } = store;
  return new RunManager({ runs, processes, metrics, telemetry, output: recording.output }, events, {
    builtins: { resources: resourcesDir, node: config.node.path },
    nodeEnv: config.node.env,
    baseEnv: config.childEnv,
    channelDir: path.join(dataDir, 'channels'),
    pythonHelperDir: path.join(resourcesDir, 'python'),
    flushStore: () => recording.flush(),
    summarizeStored: (runId, summaryOptions, stepMarks) => {
      // A short run's summary is quicker made here than the task thread is started (SUMMARY_IN_PLACE_SAMPLES).
      if (store.metrics.count(runId) <= SUMMARY_IN_PLACE_SAMPLES) return Promise.resolve(storedRunSummary(store, runId, summaryOptions, stepMarks));
      // The run's recording is over: this thread's idle heap is handed back before the summary adds its own, unless
      // another run still records (the collection pauses this thread, which reads their ptys).
      if (recording.output.idle()) releaseIdleHeap();
      return tasks.summarizeRun(runId, summaryOptions, stepMarks);
    },
    nvidiaSmi: { binary: config.nvidiaSmi, gpu: config.gpuIndex },
    intervals: config.intervals,
    pythonFingerprints: new PythonFingerprints(path.join(dataDir, 'python-fingerprints.json'), clock),
    clock,
    // Each profile's folder (summary.json, the Chrome trace) lives beside the database.
    profiler: new StepProfiler({ dir: path.join(dataDir, 'profiles'), profiles: store.profiles, telemetry: store.telemetry, clock }),
    engine,
    endingRetryMs,
  });
}

/** Sweeps one run at a time, each started through `startRun`, waiting for fair conditions read from the GPU and /proc. */
export function newSweepQueue({ config, store, events, clock, engine }: Basics, runner: RunManager, gpu: GpuControl, startRun: StartRun): SweepQueue {
  const { nvidiaSmi, gpuIndex, childEnv } = config;
  return new SweepQueue({
    store,
    runner,
    startRun,
    gpu,
    events,
    clock,
    owner: engine,
    worktreeDir: config.worktreeDir,
    gitEnv: childEnv,
    reader: nvidiaSmi === null ? null : nvidiaSmiReader(nvidiaSmi, gpuIndex, childEnv),
    hostReader: procHostReader(clock),
    cores: os.cpus().length,
  });
}

/** Runs and sweeps another process (the CLI beside an open UI) starts, advances or ends, reported within a second. */
export function watchOtherEngines({ store, events, clock, engine }: Basics, runner: RunManager, sweeps: SweepQueue): ExternalChangeWatcher {
  const onSweep = (id: number) => {
    try {
      events.emit('sweeps.onDidChange', sweeps.get(id));
    } catch {
      // Removed meanwhile: nothing to show.
    }
  };
  const ownsRun = (id: number) => runner.isActive(id);
  return new ExternalChangeWatcher(store.db, store.runs, ownsRun, (run) => events.emit('runs.onDidChange', run), clock, {
    store: store.sweeps,
    owner: engine,
    onSweep,
  });
}

/** Finished runs and sweeps this engine recorded go to MLflow where that was asked for (or on their own, by the setting). */
export function newPublisher({ config, store, recording, events, clock }: Basics, compare: CompareService, runner: RunManager): Publisher {
  const mlflow = new MlflowStore(store.db, store.metrics);
  return new Publisher({
    store,
    flush: () => recording.flush(),
    mlflow,
    compare,
    events,
    clock,
    env: config.env,
    ownerPid: process.pid,
    waitForRun: (id) => runner.waitForExit(id),
  });
}
