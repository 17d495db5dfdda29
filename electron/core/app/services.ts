// The engine's services as the handlers see them: built once by createCore, each owned there.
import type { ApiHandlers } from '../../shared/api.js';
import type { Clock } from '../clock.js';
import type { CompareService } from '../compare/compareService.js';
import type { EventHub } from '../events.js';
import type { SweepQueue } from '../experiments/sweepQueue.js';
import type { GpuControl } from '../gpu-control/gpuControl.js';
import type { ImportSessions } from '../ingest/importSessions.js';
import type { IngestTasks } from '../ingest/ingestTasks.js';
import type { Recording } from '../ingest/recording.js';
import type { Publisher } from '../publish/publisher.js';
import type { OrphanRegistry } from '../runner/orphans.js';
import type { RunManager } from '../runner/runManager.js';
import type { Store } from '../store/store.js';
import type { TuneService } from '../tune/tuneService.js';
import type { EngineConfig } from './engineConfig.js';
import type { Reruns } from './reruns.js';
import type { StartRun } from './startRun.js';

export interface EngineServices {
  readonly config: EngineConfig;
  readonly clock: Clock;
  readonly store: Store;
  readonly recording: Recording;
  readonly tasks: IngestTasks;
  readonly events: EventHub;
  readonly runner: RunManager;
  readonly gpu: GpuControl;
  readonly sweeps: SweepQueue;
  readonly compare: CompareService;
  readonly publisher: Publisher;
  readonly imports: ImportSessions;
  readonly orphans: OrphanRegistry;
  readonly tunes: TuneService;
  readonly reruns: Reruns;
  readonly startRun: StartRun;
}

/** The handlers of the named methods: a module per domain gives its share, and the compiler checks the whole is complete. */
export type HandlersOf<Method extends keyof ApiHandlers> = Pick<ApiHandlers, Method>;

/** Every method of a domain (`workloads.` …): its module must handle each one. */
export type DomainHandlers<Domain extends string> = HandlersOf<Extract<keyof ApiHandlers, `${Domain}.${string}`>>;
