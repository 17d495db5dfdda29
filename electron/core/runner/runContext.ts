// What every run of one engine shares (its stores, the output writer, events, environment and fault reporting), and what a start asks for.
import type { Clock } from '../clock.js';
import type { Run, RunCheckout, Workload } from '../../shared/api.js';
import type { ProfileOptions } from '../../shared/profile.js';
import type { EventHub } from '../events.js';
import type { StoredRunSummary } from '../ingest/ingestTaskProtocol.js';
import type { OutputWriter } from '../ingest/outputWriter.js';
import type { SummaryOptions } from '../metrics/summary.js';
import type { MetricStore } from '../store/metricStore.js';
import type { RunPlacement, RunStore, UnitsPerStep } from '../store/runStore.js';
import type { TelemetryStore } from '../store/telemetryStore.js';
import type { PythonFingerprints } from '../telemetry/pythonFingerprint.js';
import type { ProcessIdentity } from '../system/processIdentity.js';
import type { RunProcessStore } from '../store/runProcessStore.js';
import type { RunGpuLease, RunProfiler } from './collaborators.js';
import type { RunFaults } from './runFaults.js';
import type { HeldWrites } from './heldWrites.js';
import type { BuiltinValues } from './template.js';

export interface RunnerEnvironment {
  builtins: BuiltinValues;
  /** Extra env for commands that start with `builtins.node` (Electron needs ELECTRON_RUN_AS_NODE=1). */
  nodeEnv: Record<string, string>;
  /** The environment a run inherits before its own variables are added. */
  baseEnv: Record<string, string>;
  /** Where each run's structured-channel file lives while it runs. */
  channelDir: string;
  /** `resources/python`, put on PYTHONPATH so `import tuning_bench` works in any training script. */
  pythonHelperDir: string;
  /** Commits everything queued (samples on this thread, output in the writer thread). */
  flushStore: () => Promise<void>;
  /** An ended run's training summary and chart series from its stored samples, made off the engine's thread (IngestTasks.summarizeRun). */
  summarizeStored: (runId: number, options: SummaryOptions, stepMarks: boolean) => Promise<StoredRunSummary>;
  /** nvidia-smi to sample (null: no GPU tools here) and the GPU, as `-i` takes it. */
  nvidiaSmi: { binary: string | null; gpu: string };
  /** Sampling intervals (DESIGN defaults: 250 ms GPU, 500 ms host). */
  intervals: { gpuMs: number; hostMs: number };
  /** Python's and PyTorch's versions, cached on disk per interpreter. */
  pythonFingerprints: PythonFingerprints;
  /** Dates, times on a run's axis, its time limit, telemetry and the channel's pace. */
  clock: Clock;
  /** Step profiles (`run --profile`); without it, a request to profile is refused. */
  profiler?: RunProfiler;
  /** This engine (pid and start time), recorded with each run so a later process with its pid is never taken for it. */
  engine: ProcessIdentity;
  /** How long a run's closing writes retry a full or busy file before they are held in memory (default a minute). */
  endingRetryMs?: number | undefined;
}

export interface StartRequest {
  workload: Workload | null;
  /** For an ad-hoc command (no workload): the argv and cwd as given. */
  adHoc?: { command: string[]; cwd: string; env?: Record<string, string> };
  values: Record<string, string>;
  cols?: number | undefined;
  rows?: number | undefined;
  /** Stop the run after this long; it ends `timed_out`. */
  timeoutSeconds?: number | undefined;
  /** Stop the run once its metrics reach this step; it ends `stopped`, exit class `ok`. */
  maxSteps?: number | undefined;
  /** With maxSteps: the run goes on past it until its logged steps span this long (RunMetricsOptions.minStepSeconds). */
  minStepSeconds?: number | undefined;
  /** The GPU settings in force when it starts, recorded with the run. */
  gpuSettingsInForce?: Record<string, unknown> | null | undefined;
  /** The run's own GPU changes, put back as soon as it ends. */
  gpuLease?: RunGpuLease | null | undefined;
  /** Its place in a sweep. */
  sweep?: RunPlacement | null | undefined;
  /** Runs in this directory instead of the workload's (a sweep's `git=` worktree). */
  cwdOverride?: string | undefined;
  /** The temporary git worktree `cwdOverride` is in (a before/after side), recorded with the run. */
  checkout?: RunCheckout | null | undefined;
  /** Values recorded in the run's config that are not command values (a sweep's `git=REV`). */
  extraConfig?: Record<string, string> | undefined;
  /** Tokens or samples in one step as the user stated them (otherwise the workload's expression says). */
  unitsPerStep?: UnitsPerStep | null | undefined;
  /** Warm-up and left-out steps set by hand for the run, or by its sweep. */
  steps?: Run['steps'] | undefined;
  /** Profile a window of steady steps of this run (torch.profiler through sitecustomize). */
  profile?: ProfileOptions | null | undefined;
  /** The run whose command this one runs again to profile it. */
  profileOf?: number | null | undefined;
}

/** Made once by RunManager and handed to each RunSession. */
export interface RunContext {
  readonly runs: RunStore;
  /** Every process of each run, written down as found: what recovery looks for after a crash. */
  readonly processes: RunProcessStore;
  readonly metricStore: MetricStore;
  readonly telemetry: TelemetryStore;
  readonly output: OutputWriter;
  readonly events: EventHub;
  readonly environment: RunnerEnvironment;
  readonly faults: RunFaults;
  /** Closing writes a full disk or a long lock refused: kept and retried, never lost while the engine lives. */
  readonly heldWrites: HeldWrites;
}

/** Restores a run's GPU changes and records whether that worked (a failure stays in the journal for the next start). */
export async function releaseGpu(
  context: RunContext,
  runId: number,
  lease: RunGpuLease,
  /** How the record is written: at once, or (a run's closing writes) held while the file refuses it. */
  store: (write: () => unknown) => unknown = (write) => write(),
): Promise<void> {
  const outcome = await lease.release();
  await store(() => context.runs.setGpuSettings(runId, { ...lease.record, restored: outcome.ok, ...(outcome.ok ? {} : { restoreErrors: outcome.errors }) }));
  for (const error of outcome.errors) context.events.emit('runs.onTelemetryStatus', { runId, level: 'error', message: `GPU settings not restored: ${error}` });
}
