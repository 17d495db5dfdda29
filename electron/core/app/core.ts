// What createCore is given and what it hands back: the faces hold a Core, tests and benchmarks an EngineCore.
import type { Writable } from 'node:stream';
import type { ApiHandlers, EventArgs, LogFormat, Run, Sweep, TuneRequest, TuneResult } from '../../shared/api.js';
import type { SubscribeOptions, Subscription } from '../events.js';
import type { Clock } from '../clock.js';
import type { CompareService } from '../compare/compareService.js';
import type { SweepQueue } from '../experiments/sweepQueue.js';
import type { GpuControl } from '../gpu-control/gpuControl.js';
import type { ImportRequest } from '../ingest/importLog.js';
import type { IngestTasks } from '../ingest/ingestTasks.js';
import type { Recording } from '../ingest/recording.js';
import type { Publisher } from '../publish/publisher.js';
import type { OrphanRegistry } from '../runner/orphans.js';
import type { RecoveryReport } from '../runner/recovery.js';
import type { RunManager, StartRequest } from '../runner/runManager.js';
import type { ReadOnlyState, Store } from '../store/store.js';
import type { TuneService } from '../tune/tuneService.js';
import type { GpuStartOptions } from './startRun.js';

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
  readonly store: Store;
  /** The same file with ingest's output writer: flushing and watching both connections, its limits in tests. */
  readonly recording: Recording;
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
