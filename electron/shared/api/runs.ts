// Runs: their record and summary, output, metrics, telemetry, imports, profiles, orphans.
import { z } from 'zod';
import { gpuRunSettingsInput } from '../gpuSettings.js';
import { profileComparison, profileOptions, runProfile } from '../profile.js';
import { knobSettings, runKnobs } from '../knobs.js';
import {
  IMPORT_PIECE_CHARS,
  LIMITS,
  MAX_IMPORT_CHARS,
  MAX_IMPORT_FILE_BYTES,
  MAX_RUN_SECONDS,
  empty,
  name,
  nullable,
  nullableNumber,
  ok,
  runId,
  stepChoices,
  terminalSize,
  varName,
} from './common.js';
import { typedCommand } from './workloads.js';

/** An imported log's run has this as its command's first word (then where the log came from): no command to run again. */
export const IMPORTED_COMMAND = '(imported)';

/** The most metric values `runs.metrics` answers with at once: about 100 MB of answer (see its doc). */
export const MAX_METRICS_ANSWER = 1_000_000;

export const runStatus = z.enum(['running', 'succeeded', 'failed', 'stopped', 'timed_out', 'interrupted']);

export const exitClass = z.enum(['ok', 'error', 'cuda_oom', 'host_oom', 'cuda_error', 'nan_loss', 'not_found', 'killed', 'timeout']);

/** A way the machine was not fair to a run, with what was seen. */
export const fairnessIssue = z.object({
  kind: z.enum(['host-busy', 'gpu-busy', 'throttled', 'clock-below-lock']),
  message: z.string(),
});

export const fairness = z.object({ ok: z.boolean(), issues: z.array(fairnessIssue) });

export const runSummary = z.object({
  steps: nullableNumber,
  /** Steady-state throughput: warm-up and outlier steps left out. */
  throughput: z.object({
    median: nullableNumber,
    iqr: nullableNumber,
    unit: z.string().nullable(),
    /** Medians of up to 20 consecutive stretches of the steady state, in order: the run's drift at a glance. */
    blocks: z.array(z.number()).default([]),
    /**
     * How far the median may be off through the granularity of the step timing alone, relative: 1 ms in 63 ms steps
     * timed by the arrival of their lines is 0.016; printed step times to 0.01 ms, about 0. Null: not known (older runs).
     */
    resolution: nullableNumber.default(null),
    /** The steady steps' work over their time (per second, in `unit`): the median's companion; null where steps have no times. */
    overall: nullableNumber.default(null),
    /** How far `overall` may be off through the step timing's grain, relative: the grain at the two ends of the steady time only. */
    overallResolution: nullableNumber.default(null),
    /**
     * The mean steady step is more than 1.5× the median one (bursts): `median` then holds `overall`, and a comparison
     * that holds such a run measures every run by `overall`, so no two runs are measured two ways.
     */
    uneven: z.boolean().default(false),
  }),
  /** Timed steps the steady statistics used (after warm-up, without the left-out ones). */
  steadySteps: z.number().int().nonnegative().nullable().default(null),
  /** Milliseconds from the run's start to its first steady step. */
  steadyFromMs: nullableNumber.default(null),
  /**
   * `medianWithOutliers`: the steady steps with the left-out ones put back. `betweenLines`: where the script printed
   * its step time, the wall clock per step between those lines (time outside the timed step shows as a difference).
   */
  stepTimeMs: z.object({ median: nullableNumber, medianWithOutliers: nullableNumber.default(null), betweenLines: nullableNumber.default(null) }),
  finalLoss: nullableNumber,
  bestLoss: nullableNumber.default(null),
  evalLoss: nullableNumber.default(null),
  nanDetected: z.boolean().nullable(),
  lossFell: z.boolean().nullable().default(null),
  /** Which rule excluded the warm-up and what it cost (compile time is a cost, not noise). */
  warmup: z
    .object({
      rule: z.enum(['steps', 'seconds', 'auto']),
      stable: z.boolean(),
      steps: z.number(),
      seconds: z.number(),
      /** Why: the rule's finding in words (which steps were slower, by how much, how sure). */
      reason: z.string().default(''),
      /** Where the steps were set by hand: `run` (this run), `workload`, `sweep`; null for the automatic rule. */
      setBy: z.enum(['run', 'workload', 'sweep']).nullable().default(null),
    })
    .nullable()
    .default(null),
  outlierSteps: z.number().int().nonnegative().default(0),
  /** Steps left out because a profiler was on while they ran (`run --profile`). */
  profiledSteps: z.number().int().nonnegative().default(0),
  /** Why steps were left out: eval/checkpoint marker in the output, named by the user, or the symmetric rule; and how many that rule flagged but kept. */
  outliers: z.object({ marked: z.number().int(), byUser: z.number().int(), byRule: z.number().int(), flaggedKept: z.number().int() }).nullable().default(null),
  metricsSource: z.enum(['channel', 'text']).nullable().default(null),
  gpu: z
    .object({
      utilMean: nullableNumber,
      vramPeakMiB: nullableNumber,
      powerMeanW: nullableNumber,
      energyJ: nullableNumber,
      throttledSeconds: nullableNumber,
      utilPeak: nullableNumber.default(null),
      /** `counter`: the driver's cumulative energy counter; `integrated`: power integrated over time. */
      energySource: z.enum(['counter', 'integrated']).nullable().default(null),
      /** Seconds throttled by each reason that distorts timing (power cap, thermal, hardware slowdown). */
      throttledByReason: z.record(z.string(), z.number()).default({}),
      smClockMeanMHz: nullableNumber.default(null),
      tempPeakC: nullableNumber.default(null),
      /** Peak GPU memory of the run's own processes (per-process query), where the driver shows it. */
      runVramPeakMiB: nullableNumber.default(null),
    })
    .nullable(),
  host: z
    .object({
      cpuMean: nullableNumber,
      rssPeakMiB: nullableNumber,
      /** CPU cores used on average by processes outside the run's tree (and outside Tuning Bench itself). */
      otherCpuCoresMean: nullableNumber.default(null),
      /** Logical cores of the machine, for the share others used. */
      cores: nullableNumber.default(null),
    })
    .nullable(),
  /** Whether the machine was fair to the run: others busy on the CPU or GPU, throttling, clocks under a lock. */
  fairness: fairness.nullable().default(null),
  /** Slow stretches after normal steps (contention or an event, never warm-up): kept in, flagged here. */
  slowStretches: z.array(z.object({ fromStep: z.number(), toStep: z.number(), steps: z.number().int(), slowerBy: z.number() })).default([]),
  /** Plain-language readings of the telemetry, such as a likely input-bound run. */
  hints: z.array(z.string()).default([]),
  /** Tokens per step where known (to compare losses at a matched token count). */
  tokensPerStep: nullableNumber.default(null),
  /** Samples per step where known (throughput per sample, losses at a matched sample count). */
  samplesPerStep: nullableNumber.default(null),
  /** The training loss at up to 200 steps, [step, loss], to compare at a matched step. */
  lossCurve: z.array(z.tuple([z.number(), z.number()])).default([]),
  /** The evaluation loss at up to 200 of its evals, [step, loss], to compare at equal work. */
  evalCurve: z.array(z.tuple([z.number(), z.number()])).default([]),
  /** The last finite value of each metric the run printed: what a quality gate on another metric compares. */
  finalMetrics: z.record(z.string(), z.number()).default({}),
  /** What a reader of the numbers must know, in words: a step counter that restarted, a printed step time the clock disputes. */
  notes: z.array(z.string()).default([]),
});

/**
 * A run in a temporary git worktree (a side of a before/after): enough to make the same worktree again (to profile or
 * run the side again after its sweep), and what it lacked when it failed.
 */
export const runCheckout = z.object({
  /** The repository it was checked out of (your tree). */
  root: z.string(),
  /** The revision as asked (`main`, `HEAD~1`, a commit, `WORKTREE`). */
  revision: z.string(),
  /** The commit it ran (for the working tree: HEAD when the sweep started). */
  commit: z.string(),
  /** The working tree's uncommitted changes, frozen as a commit object when the sweep started; null for a commit or a clean tree. */
  snapshot: z.string().nullable(),
  /** The command's directory relative to the repository's top. */
  relativeCwd: z.string(),
  /** Untracked or ignored paths linked in from your tree (relative to the repository's top). */
  links: z.array(z.string()),
  /** Asked for but not linked, and why (the revision tracks that path itself). */
  notLinked: z.array(z.object({ path: z.string(), reason: z.string() })).default([]),
  /** After a failure: paths its output named that your tree has and its worktree lacked. */
  missing: z.array(z.string()).default([]),
});

/**
 * Where a run pulled back from an MLflow tracking server came from: the server, the MLflow run, the database and
 * run id it had on the box that recorded it, and that machine. Such a run is read-only here.
 */
export const runOrigin = z.object({
  source: z.literal('mlflow'),
  /** Without credentials. */
  trackingUri: z.string(),
  experimentId: z.string(),
  mlflowRunId: z.string(),
  /** The run in MLflow's UI. */
  url: z.string(),
  /** The database that recorded it (its `tuning_bench.database_id`) and its id there. */
  databaseId: z.string(),
  runId: z.number().int(),
  /** The machine it ran on: an id to tell machines apart, and words for a person (host, GPU). */
  machine: z.object({ id: z.string(), label: z.string() }),
  importedAt: z.string(),
});

export const runTypedCommand = typedCommand.extend({ values: z.record(z.string(), z.string()) });

export type RunTypedCommand = z.output<typeof runTypedCommand>;

export const run = z.object({
  id: runId,
  workloadId: z.number().int().nullable(),
  workloadName: z.string().nullable(),
  status: runStatus,
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  exitClass: exitClass.nullable(),
  /** The output line (or the engine's own message) that decided `exitClass`, where there is one. */
  exitReason: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  /** The exact argv that ran, after substitution. */
  command: z.array(z.string()),
  cwd: z.string(),
  /** The variable values this run used (for an ad-hoc command: empty). */
  config: z.record(z.string(), z.string()),
  /**
   * A run started from a typed command (New run, a typed sweep, `run -- CMD {var}`): the command as typed, with its
   * `{variables}`, and the values that filled them, so it can be edited and run again as typed. Null for a workload's
   * run, and for runs stored before it was kept.
   */
  typedCommand: runTypedCommand.nullable().default(null),
  /**
   * The knobs it ran with (also in `config` as `knob.NAME`, so comparisons tell them apart) and what each did: applied
   * where (file:line of the script's call), skipped or failed and why. Null for a run without knobs.
   */
  knobs: runKnobs.nullable().default(null),
  /** Environment variables the run added on top of the app's environment. */
  env: z.record(z.string(), z.string()),
  pid: z.number().int().nullable(),
  outputBytes: z.number().int().nonnegative(),
  /** Output read for metrics but not stored: the disk was full and the output held in memory reached its limit. */
  outputDroppedBytes: z.number().int().nonnegative().default(0),
  /** The code it ran: the git commit, branch and uncommitted changes of its directory; null outside a repository. */
  git: z
    .object({
      root: z.string(),
      commit: z.string().nullable(),
      branch: z.string().nullable(),
      dirty: z.boolean(),
      diffSha256: z.string().nullable(),
      diffBytes: z.number().int().nonnegative(),
    })
    .nullable()
    .default(null),
  /** Where a before/after side ran: a temporary worktree of a revision (or of a snapshot of the working tree), with data linked in. */
  checkout: runCheckout.nullable().default(null),
  /** Work in one step as the user stated it with the run (`--tokens-per-step`, `--samples-per-step`); null when not given. */
  unitsPerStep: z.object({ tokens: z.number().positive().nullable(), samples: z.number().positive().nullable() }).nullable().default(null),
  /** Warm-up and left-out steps set by hand for this run, or by its sweep; its workload's apply where it sets none. */
  steps: stepChoices
    .extend({ setBy: z.enum(['run', 'sweep']) })
    .nullable()
    .default(null),
  summary: runSummary,
  gpuSettings: z.record(z.string(), z.unknown()).nullable(),
  /** The environment it ran in: GPU, driver and CUDA, VBIOS, PCIe, power limit, CPU, kernel, Python and PyTorch. */
  fingerprint: z.record(z.string(), z.unknown()).nullable().default(null),
  /** What the engine noted while recording it (the first few of each): why GPU telemetry is missing or failed. */
  telemetryNotes: z.array(z.string()).default([]),
  /** Why a metric pattern was switched off while it ran. */
  parsingNotes: z.array(z.string()).default([]),
  /** Its processes still alive after it ended or was stopped (left its group, or a signal could not reach them). */
  survivorPids: z.array(z.number().int()).default([]),
  notes: z.string().default(''),
  tags: z.array(z.string()).default([]),
  /** Its place in a sweep: which sweep, which config, which repeat (all null outside one). */
  sweepId: z.number().int().nullable().default(null),
  configIndex: z.number().int().nullable().default(null),
  repeatIndex: z.number().int().nullable().default(null),
  /** A resumed sweep ran this place again: the interrupted run this one replaces, and the run that replaced this one. */
  replacesRunId: z.number().int().nullable().default(null),
  replacedByRunId: z.number().int().nullable().default(null),
  /** How long it waited for an idle, cool GPU before it started (sweeps), and why it stopped waiting. */
  /** A run pulled back from MLflow, recorded on another box; null for runs recorded here. */
  origin: runOrigin.nullable().default(null),
  wait: z
    .object({
      seconds: z.number(),
      reason: z.enum(['ready', 'timeout', 'no-gpu', 'disabled']),
      /** The host's part of the wait: CPU cores others used when the run started, and whether it waited for them. */
      host: z
        .object({ reason: z.enum(['ready', 'timeout', 'disabled']), seconds: z.number(), otherCpuCores: z.number().nullable() })
        .nullable()
        .default(null),
      startTempC: z.number().nullable(),
      endTempC: z.number().nullable(),
      targetTempC: z.number().nullable(),
      busyProcesses: z.number().int(),
    })
    .nullable()
    .default(null),
});

export const outputChunk = z.object({
  seq: z.number().int().nonnegative(),
  /** Milliseconds since the run started. */
  tMs: z.number().nonnegative(),
  data: z.string(),
});

export const orphan = z.object({
  runId,
  /** The run's first process if it is still alive, else one that is. */
  pid: z.number().int().positive(),
  /** Every process of the run still alive (those that left its group or session included). */
  pids: z.array(z.number().int().positive()),
  command: z.array(z.string()),
});

export const logFormat = z.enum(['raw', 'plain']);

/** JSON has no NaN or Infinity: they cross as strings. */
export const metricValue = z.union([z.number(), z.enum(['nan', 'inf', '-inf'])]);

export const metricPoint = z.object({
  step: z.number().nullable(),
  tMs: z.number(),
  name: z.string(),
  value: metricValue,
  kind: z.enum(['train', 'eval', 'progress', 'summary']),
  source: z.enum(['text', 'channel', 'derived']),
});

export const gpuTelemetryPoint = z.object({
  tMs: z.number(),
  utilGpu: nullable,
  utilMem: nullable,
  memUsedMiB: nullable,
  memTotalMiB: nullable,
  /** GPU memory of the run's own processes, from the once-a-second per-process query. */
  runVramMiB: nullable.default(null),
  powerW: nullable,
  powerLimitW: nullable,
  tempC: nullable,
  smClockMHz: nullable,
  memClockMHz: nullable,
  /** Reasons active that distort timing (power cap, thermal, hardware slowdown), decoded. */
  throttling: z.array(z.string()),
});

export const hostTelemetryPoint = z.object({
  tMs: z.number(),
  cpuTotal: z.number(),
  cpuPerCore: z.array(z.number()),
  iowait: z.number(),
  memUsedMiB: z.number(),
  swapUsedMiB: z.number(),
  procCpu: z.number(),
  procRssMiB: z.number(),
  busiestThreadCpu: z.number(),
});

/** Work in one step, stated by the user so throughput can be given in tokens/s or samples/s for any command. */
export const unitsPerStepInput = z
  .object({
    tokens: z.number().positive().max(1e12).nullable().default(null),
    samples: z.number().positive().max(1e12).nullable().default(null),
  })
  .refine((u) => u.tokens === null || u.samples === null, { message: 'give tokens or samples per step, not both' });

/** A run parsed again: what its summary said before and says now. */
export const reparseResult = z.object({
  run,
  before: z.object({ samples: z.number().int(), steps: z.number().nullable(), throughput: z.number().nullable(), unit: z.string().nullable() }),
  after: z.object({ samples: z.number().int(), steps: z.number().nullable(), throughput: z.number().nullable(), unit: z.string().nullable() }),
});

/** A summary a run had before it was parsed again. */
export const summaryHistoryEntry = z.object({ replacedAt: z.string(), reason: z.string(), summary: runSummary });

export type Run = z.output<typeof run>;

export type RunCheckout = z.output<typeof runCheckout>;

export type Orphan = z.output<typeof orphan>;

export type RunOrigin = z.output<typeof runOrigin>;

export type MetricPoint = z.output<typeof metricPoint>;

export type GpuTelemetryPoint = z.output<typeof gpuTelemetryPoint>;

export type HostTelemetryPoint = z.output<typeof hostTelemetryPoint>;

export type LogFormat = z.output<typeof logFormat>;

export type RunSummary = z.output<typeof runSummary>;

export type RunStatus = z.output<typeof runStatus>;

export type ExitClass = z.output<typeof exitClass>;

export type SummaryHistoryEntry = z.output<typeof summaryHistoryEntry>;

export type ReparseResult = z.output<typeof reparseResult>;

export type UnitsPerStepInput = z.output<typeof unitsPerStepInput>;

export type Fairness = z.output<typeof fairness>;

export type FairnessIssue = z.output<typeof fairnessIssue>;

export type OutputChunk = z.output<typeof outputChunk>;

/** Run methods: `runs.*`, with their metrics (`metrics.*`) and step profiles (`profiles.*`). */
export const runMethods = {
  'runs.list': { input: z.object({ limit: z.number().int().min(1).max(10_000).default(500) }), output: z.array(run) },
  'runs.get': { input: z.object({ id: runId }), output: run },
  'runs.start': {
    input: z
      .object({
        /** A registered workload, or... */
        workloadId: z.number().int().positive().optional(),
        /** ...a typed command with `{var}` placeholders (exactly one of the two). */
        command: typedCommand.optional(),
        values: z.record(varName, z.string().max(LIMITS.argChars)).default({}),
        /** Stop the run (SIGINT, then SIGTERM, then SIGKILL) after this long; it ends `timed_out`. */
        timeoutSeconds: z.number().positive().max(MAX_RUN_SECONDS).optional(),
        /** Stop the run once its metrics report this step; it ends `stopped` with exit class `ok`. */
        maxSteps: z.number().int().positive().optional(),
        /** With maxSteps: go on past it until the logged steps span this long, from the first (fast steps are a moment's worth). */
        minStepSeconds: z.number().min(0).max(MAX_RUN_SECONDS).optional(),
        /** GPU settings for this run only: journaled, applied before it starts, restored after it ends. */
        gpuSettings: gpuRunSettingsInput.optional(),
        /** Lock even though other processes use the GPU (the person was shown them and agreed). */
        confirmOtherProcesses: z.boolean().default(false),
        /** Tokens or samples in one step, when the workload does not say (throughput in tokens/s or samples/s). */
        unitsPerStep: unitsPerStepInput.optional(),
        /** Profile a window of steady steps of this run (torch.profiler, no change to the script). */
        profile: profileOptions.optional(),
        /** Warm-up and left-out steps set by hand for this run. */
        steps: stepChoices.optional(),
        /** Standard speed-ups applied without changing the script (shared/knobs.ts): `{workers: '4', autocast: 'bf16'}`. */
        knobs: knobSettings.optional(),
      })
      .extend(terminalSize.partial().shape),
    output: run,
  },
  /** Runs a run's command again with a window of steady steps profiled; the new run. */
  'runs.profile': { input: profileOptions.extend({ id: runId }), output: run },
  /**
   * The same thing again, in the same place: the run's workload with its values (or its command, directory and
   * environment), its work per step; a before/after side in its worktree made again (same code, same links). Refused
   * for an imported log and for a run pulled back from MLflow.
   */
  'runs.rerun': { input: z.object({ id: runId }), output: run },
  /** A run's step profile (or that of the newest profiled re-run of its command); null when it has none. */
  'profiles.get': { input: z.object({ runId }), output: runProfile.nullable() },
  /** A run's profile beside a baseline run's: which phases and operators got faster or slower. */
  'profiles.compare': { input: z.object({ runId, baselineRunId: runId }), output: profileComparison },
  /** A profile's Chrome trace, to save and open in Perfetto or chrome://tracing. */
  'profiles.trace': {
    input: z.object({ runId }),
    output: z.object({ content: z.string(), filename: z.string(), mimeType: z.string() }),
  },
  /** `reason`: why, in the run's record (the CLI says which signal stopped it); the default is "stopped by the user". */
  'runs.stop': { input: z.object({ id: runId, reason: z.string().min(1).max(300).optional() }), output: ok },
  'runs.write': { input: z.object({ id: runId, data: z.string().min(1).max(LIMITS.writeChars) }), output: ok },
  'runs.resize': { input: z.object({ id: runId }).extend(terminalSize.shape), output: ok },
  /**
   * Stored output in pages of at most `maxBytes`: after `afterSeq`, or with `fromEnd` the last
   * `maxBytes` of it (a view replays the end of a long log, not all of it).
   */
  'runs.output': {
    input: z.object({
      id: runId,
      afterSeq: z.number().int().min(-1).default(-1),
      maxBytes: z.number().int().min(1024).max(LIMITS.outputPageBytes).default(LIMITS.outputPageBytes),
      fromEnd: z.boolean().default(false),
    }),
    output: z.object({
      chunks: z.array(outputChunk),
      /** True when this page reaches the end of what is stored and the run has ended. */
      complete: z.boolean(),
      /** Bytes stored before the first chunk of this page that it does not contain. */
      skippedBytes: z.number().int().nonnegative(),
      /** Highest seq stored so far. */
      lastSeq: z.number().int().min(-1),
    }),
  },
  /** The view has drawn this many chars of a run's live output; the engine holds back a view that falls behind. */
  'runs.ackOutput': {
    input: z.object({
      id: runId,
      chars: z
        .number()
        .int()
        .positive()
        .max(1 << 30),
    }),
    output: ok,
  },
  /** Saves the whole log: Electron asks where (a path comes back); headless mode gives a download URL. */
  'runs.saveLog': {
    input: z.object({ id: runId, format: logFormat }),
    output: z.object({ path: z.string().nullable(), downloadUrl: z.string().nullable() }),
  },
  /**
   * A run's metric samples in the order they were recorded, in one answer: refused for a run of more than
   * MAX_METRICS_ANSWER (a long run's every value is gigabytes on the engine's thread): its charts read
   * `runs.chartMetrics`, and the CLI's `metrics` streams every value.
   */
  'runs.metrics': { input: z.object({ id: runId }), output: z.array(metricPoint) },
  /**
   * A run's metric samples for its charts, in the order recorded: every sample of a metric with at most
   * `maxPointsPerMetric`, else the first and last, the lowest and highest, of each of that many quarters of its
   * samples (spikes stay), and its first non-finite value. `stored`: how many samples each metric has in all.
   */
  'runs.chartMetrics': {
    input: z.object({ id: runId, maxPointsPerMetric: z.number().int().min(64).max(1_000_000) }),
    output: z.object({
      points: z.array(metricPoint),
      stored: z.array(z.object({ name: z.string(), kind: metricPoint.shape.kind, source: metricPoint.shape.source, samples: z.number().int() })),
    }),
  },
  /** A log made elsewhere becomes a run: parsed, summarised, its failure classified. */
  'runs.import': {
    input: z.object({ name: name.optional(), text: z.string().min(1, 'the log is empty (0 bytes): nothing to import').max(MAX_IMPORT_CHARS) }),
    output: run,
  },
  /**
   * A log file the UI imports, in pieces: begin (with its size, for the refusal of one too large before anything is
   * sent), append each piece in order (each answered with the bytes received, for a progress bar), finish for the run.
   * An import idle for two minutes is cancelled, and what was stored of it removed.
   */
  'runs.importBegin': {
    input: z.object({
      name: name.optional(),
      totalBytes: z
        .number()
        .int()
        .nonnegative()
        .max(MAX_IMPORT_FILE_BYTES * 4)
        .nullable()
        .default(null),
    }),
    output: z.object({ importId: z.string() }),
  },
  'runs.importAppend': {
    input: z.object({ importId: z.string().min(1).max(100), text: z.string().min(1).max(IMPORT_PIECE_CHARS) }),
    output: z.object({ receivedBytes: z.number().int().nonnegative() }),
  },
  'runs.importFinish': { input: z.object({ importId: z.string().min(1).max(100) }), output: run },
  'runs.importCancel': { input: z.object({ importId: z.string().min(1).max(100) }), output: ok },
  /**
   * Parses runs' stored output again with today's parsers and their workload's current regex: their
   * parsed metrics and summary are replaced in one transaction, the old summary kept in the history.
   */
  'runs.reparse': {
    input: z.object({
      ids: z.array(runId).min(1).max(1000),
      /** Files the runs under this workload first (its regex then applies): for imports and ad-hoc runs. */
      workloadId: z.number().int().positive().optional(),
    }),
    output: z.array(reparseResult),
  },
  /**
   * Sets a run's warm-up and left-out steps by hand (null warm-up: the automatic rule again) and makes its summary
   * again from what it stored, without running it again; the summary it had is kept in its history.
   */
  'runs.setSteps': { input: stepChoices.extend({ id: runId }), output: run },
  /** The uncommitted changes of the code a run ran (git diff against its commit, untracked files added). */
  'runs.codeDiff': {
    input: z.object({ id: runId }),
    output: z.object({ diff: z.string().nullable(), reason: z.string().nullable() }),
  },
  /**
   * The code diff from one run to another: each run's commit with its recorded uncommitted changes, rebuilt and diffed
   * in the first run's repository (your tree, for a before/after side).
   */
  'runs.codeDiffBetween': {
    input: z.object({ fromId: runId, toId: runId }),
    output: z.object({
      root: z.string(),
      from: z.object({ runId, code: z.string(), tree: z.string() }),
      to: z.object({ runId, code: z.string(), tree: z.string() }),
      diff: z.string(),
      /** The whole diff's size; `truncated` when `diff` holds only its first 2 MiB. */
      bytes: z.number().int().nonnegative(),
      truncated: z.boolean(),
    }),
  },
  /** The summaries a run had before it was parsed again, oldest first. */
  'runs.summaryHistory': { input: z.object({ id: runId }), output: z.array(summaryHistoryEntry) },
  /** Lines of a run's output that hold numbers, for a run whose output gave no metrics: what a regex could match. */
  'runs.numericLines': {
    input: z.object({ id: runId, limit: z.number().int().min(1).max(200).default(20) }),
    output: z.object({ lines: z.array(z.string()), scannedBytes: z.number().int().nonnegative() }),
  },
  /** Tries a user regex with named groups against a log before it is saved with a workload. */
  'metrics.testRegex': {
    input: z.object({ pattern: z.string().min(1).max(2000), text: z.string().max(MAX_IMPORT_CHARS) }),
    output: z.object({
      error: z.string().nullable(),
      groups: z.array(z.string()),
      matches: z.array(z.object({ line: z.number().int(), text: z.string(), values: z.record(z.string(), metricValue) })),
      matchCount: z.number().int(),
    }),
  },
  /** A run's telemetry: GPU samples (empty without a GPU) and host samples. */
  'runs.telemetry': {
    input: z.object({ id: runId }),
    output: z.object({ gpu: z.array(gpuTelemetryPoint), host: z.array(hostTelemetryPoint) }),
  },
  /** Notes and tags of a run (tags: short words to filter by). */
  'runs.annotate': {
    input: z.object({
      id: z.number().int().positive(),
      notes: z.string().max(10_000).optional(),
      tags: z
        .array(
          z
            .string()
            .trim()
            .min(1)
            .max(40)
            .regex(/^[\w.+-]+$/u, 'a tag is letters, digits and . _ - +'),
        )
        .max(20)
        .optional(),
    }),
    output: run,
  },
  /** Training processes of interrupted runs still alive after the engine died. */
  'runs.orphans': { input: empty, output: z.array(orphan) },
  'runs.killOrphan': { input: z.object({ runId }), output: ok },
} as const;
