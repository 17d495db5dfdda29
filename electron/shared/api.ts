// The one contract between the engine and every face: each method and event, with zod schemas.
// Imports nothing outside electron/shared and nothing of Node or the DOM, so main, server, preload and renderer can all use it.
import { z } from 'zod';
import { profileComparison, profileOptions, runProfile } from './profile.js';
import { gpuOperationInput, gpuRunSettingsInput, gpuSelectorText } from './gpuSettings.js';

/** Bounds on what crosses a boundary; a face never hands the engine more than this. */
export const LIMITS = {
  nameChars: 120,
  argChars: 4096,
  argCount: 256,
  envKeys: 128,
  variables: 64,
  terminalCols: { min: 20, max: 400 },
  terminalRows: { min: 5, max: 200 },
  writeChars: 64 * 1024,
  /** Largest page of stored output one call returns. */
  outputPageBytes: 4 * 1024 * 1024,
} as const;

/** Longest limit a run may be given: a week. */
const MAX_RUN_SECONDS = 7 * 24 * 3600;

const name = z
  .string()
  .trim()
  .min(1, 'a name is required')
  .max(LIMITS.nameChars)
  .regex(/^[\w.\- +]+$/u, 'use letters, digits, spaces and . _ - + only');
const varName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/u, 'a variable name is letters, digits and _');
const runId = z.number().int().positive();

export const runStatus = z.enum(['running', 'succeeded', 'failed', 'stopped', 'timed_out', 'interrupted']);
export const exitClass = z.enum([
  'ok',
  'error',
  'cuda_oom',
  'host_oom',
  'cuda_error',
  'nan_loss',
  'not_found',
  'killed',
  'timeout',
]);

export const workloadVariable = z.object({
  name: varName,
  default: z.string().max(LIMITS.argChars),
  description: z.string().max(500).default(''),
  /** This variable seeds the workload's randomness: each sweep repeat gets its own value unless the sweep pins it. */
  seed: z.boolean().optional(),
});

export const commandMode = z.enum(['argv', 'shell']);

const workloadFields = z.object({
  name,
  description: z.string().max(2000).default(''),
  /** Directory the command runs in; `{resources}` names the app's bundled resources. */
  cwd: z.string().min(1).max(LIMITS.argChars),
  /**
   * `argv`: each element is one argument, `{var}` placeholders substituted, never re-split.
   * `shell`: one element, a script for `/bin/sh -c`, each value substituted shell-quoted.
   */
  mode: commandMode.default('argv'),
  command: z.array(z.string().max(LIMITS.argChars)).min(1).max(LIMITS.argCount),
  /** Tokens in one step as arithmetic of the variables (`{batch} * {seq_len}`), to derive tokens/s; '' when unknown. */
  tokensPerStep: z.string().max(500).default(''),
  /** The workload's own metric pattern: a regex whose named groups are metrics (`step (?<step>\\d+).*loss (?<loss>[\\d.]+)`). */
  metricRegex: z.string().max(2000).default(''),
  env: z.record(varName, z.string().max(LIMITS.argChars)).refine((e) => Object.keys(e).length <= LIMITS.envKeys, {
    message: `at most ${LIMITS.envKeys} environment variables`,
  }),
  variables: z.array(workloadVariable).max(LIMITS.variables),
});

export const workloadInput = workloadFields.refine((w) => w.mode === 'argv' || w.command.length === 1, {
  message: 'a shell-mode command is one script string',
  path: ['command'],
});

export const workload = workloadFields.extend({
  id: z.number().int().positive(),
  builtin: z.boolean(),
  createdAt: z.string(),
});

const nullableNumber = z.number().nullable();

export const runSummary = z.object({
  steps: nullableNumber,
  /** Steady-state throughput: warm-up and outlier steps left out. */
  throughput: z.object({
    median: nullableNumber,
    iqr: nullableNumber,
    unit: z.string().nullable(),
    /** Medians of up to 20 consecutive stretches of the steady state: what comparisons bootstrap over. */
    blocks: z.array(z.number()).default([]),
  }),
  /** `medianWithOutliers`: the steady steps with the left-out ones put back. */
  stepTimeMs: z.object({ median: nullableNumber, medianWithOutliers: nullableNumber.default(null) }),
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
    })
    .nullable()
    .default(null),
  outlierSteps: z.number().int().nonnegative().default(0),
  /** Steps left out because a profiler was on while they ran (`run --profile`). */
  profiledSteps: z.number().int().nonnegative().default(0),
  /** Why steps were left out: eval/checkpoint marker in the output, named by the user, or the symmetric rule; and how many that rule flagged but kept. */
  outliers: z
    .object({ marked: z.number().int(), byUser: z.number().int(), byRule: z.number().int(), flaggedKept: z.number().int() })
    .nullable()
    .default(null),
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
  host: z.object({ cpuMean: nullableNumber, rssPeakMiB: nullableNumber }).nullable(),
  /** Plain-language readings of the telemetry, such as a likely input-bound run. */
  hints: z.array(z.string()).default([]),
  /** Tokens per step where known (to compare losses at a matched token count). */
  tokensPerStep: nullableNumber.default(null),
  /** The training loss at up to 200 steps, [step, loss], to compare at a matched step. */
  lossCurve: z.array(z.tuple([z.number(), z.number()])).default([]),
  /** The last finite value of each metric the run printed: what a quality gate on another metric compares. */
  finalMetrics: z.record(z.string(), z.number()).default({}),
});

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
  /** Work in one step as the user stated it with the run (`--tokens-per-step`, `--samples-per-step`); null when not given. */
  unitsPerStep: z.object({ tokens: z.number().positive().nullable(), samples: z.number().positive().nullable() }).nullable().default(null),
  summary: runSummary,
  gpuSettings: z.record(z.string(), z.unknown()).nullable(),
  /** The environment it ran in: GPU, driver and CUDA, VBIOS, PCIe, power limit, CPU, kernel, Python and PyTorch. */
  fingerprint: z.record(z.string(), z.unknown()).nullable().default(null),
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
  wait: z
    .object({
      seconds: z.number(),
      reason: z.enum(['ready', 'timeout', 'no-gpu', 'disabled']),
      startTempC: z.number().nullable(),
      endTempC: z.number().nullable(),
      targetTempC: z.number().nullable(),
      busyProcesses: z.number().int(),
    })
    .nullable()
    .default(null),
});


/**
 * The quality gate. Default: the optimisation plans' rule, final validation (eval) loss within
 * +0.05 of the baseline's (train loss at the matched point when a side has no eval loss).
 */
export const qualityGate = z.object({
  /** `auto` (eval loss, else train loss at the matched point), `loss`, `eval_loss`, or any metric name the runs share. */
  metric: z.string().min(1).default('auto'),
  /** Which way is better for the metric (loss: lower; accuracy: higher). */
  direction: z.enum(['lower', 'higher']).default('lower'),
  /** A row may be at most this much worse than the baseline (null: no absolute tolerance). */
  absolute: z.number().min(0).nullable().default(0.05),
  /** ...and at most this fraction of the baseline's value worse (null: none). A row passes when within every tolerance given. */
  relative: z.number().min(0).nullable().default(null),
  /** False: no gate, every row `n/a`. */
  enabled: z.boolean().default(true),
});

const interval = z.object({ low: z.number(), high: z.number() }).nullable();

export const comparisonRow = z.object({
  key: z.string(),
  name: z.string(),
  runIds: z.array(z.number().int()),
  sweepId: z.number().int().nullable(),
  configIndex: z.number().int().nullable(),
  config: z.record(z.string(), z.string()),
  isBaseline: z.boolean(),
  throughput: z.object({ median: z.number().nullable(), ci95: interval, unit: z.string().nullable() }),
  speedup: z.object({
    ratio: z.number().nullable(),
    ci95: interval,
    /** `repeat to decide`: one run on a side says nothing about run-to-run variance, so no faster/slower. */
    verdict: z.enum(['baseline', 'faster', 'slower', 'within noise', 'repeat to decide', 'unknown']),
    /** Why there is no ratio or no verdict (units that cannot be converted, one run each), or how units were converted. */
    reason: z.string().nullable().default(null),
  }),
  /** Runs with a steady throughput in this row: what the verdict rests on. */
  n: z.number().int().nonnegative().default(0),
  /** Some of its runs were stopped, timed out or interrupted: their numbers come from the steps they had. */
  partial: z.boolean().default(false),
  /** Notes on the row, such as repeats that were identical copies. */
  notes: z.array(z.string()).default([]),
  /** What the quality gate compared: the metric, where, this row's value, the baseline's, and the signed delta. */
  compared: z
    .object({ metric: z.string(), at: z.string().nullable(), value: z.number(), base: z.number(), delta: z.number() })
    .nullable()
    .default(null),
  stepTimeMs: z.number().nullable(),
  vramPeakMiB: z.number().nullable(),
  utilMean: z.number().nullable(),
  powerMeanW: z.number().nullable(),
  energyPer1kTokensJ: z.number().nullable(),
  finalLoss: z.number().nullable(),
  evalLoss: z.number().nullable(),
  /** Loss at the step (or token count) every row reached, against the baseline's there. */
  matchedLoss: z.object({ at: z.number(), by: z.enum(['step', 'tokens']), value: z.number(), delta: z.number() }).nullable(),
  lossDelta: z.number().nullable(),
  gate: z.enum(['pass', 'fail', 'n/a']),
  gateReason: z.string(),
  fasterButWorse: z.boolean(),
  exitClasses: z.array(z.string()),
  /** Where its GPU settings or environment differ from the baseline's (or within its own repeats). */
  differences: z.array(z.string()),
  best: z.boolean(),
});

export const comparison = z.object({
  /** Variables whose values differ between rows: the only ones worth a column. */
  columns: z.array(z.string()),
  rows: z.array(comparisonRow),
  baselineKey: z.string(),
  groupBy: z.enum(['config', 'run']),
  gate: qualityGate,
  /** The gate in words, for tables and exports. */
  gateText: z.string().default(''),
  generatedAt: z.string(),
  notes: z.array(z.string()),
});

export const compareRequest = z.object({
  runIds: z.array(z.number().int().positive()).max(1000).default([]),
  sweepIds: z.array(z.number().int().positive()).max(100).default([]),
  /** A run id whose row is the baseline; default: the first sweep's first config, else the first run. */
  baselineRunId: z.number().int().positive().optional(),
  groupBy: z.enum(['config', 'run']).default('config'),
  gate: qualityGate.default({ metric: 'auto', direction: 'lower', absolute: 0.05, relative: null, enabled: true }),
});

export const exportFormat = z.enum(['md', 'csv', 'json', 'html']);

/** One run's series for overlaid charts, decimated to at most ~1000 points each. */
export const runSeries = z.object({
  runId: z.number().int(),
  label: z.string(),
  metrics: z.record(z.string(), z.array(z.tuple([z.number(), z.number()]))),
  telemetry: z.record(z.string(), z.array(z.tuple([z.number(), z.number()]))),
});

export const sweepPlan = z.enum(['one-at-a-time', 'ladder', 'grid']);
const sweepVariable = z.object({
  name: varName,
  values: z.array(z.string().min(1).max(LIMITS.argChars)).min(1).max(64),
});

/** What a sweep is asked to do: the same for the plan preview and the start. */
/** A command typed for a run or a sweep, with `{var}` placeholders (no workload registered): values are quoted by the app. */
export const typedCommand = z.object({
  template: z.array(z.string().min(1).max(LIMITS.argChars)).min(1).max(LIMITS.argCount),
  mode: commandMode.default('argv'),
  cwd: z.string().min(1).max(LIMITS.argChars),
});

export const sweepRequest = z.object({
  /** A registered workload, or... */
  workloadId: z.number().int().positive().optional(),
  /** ...a typed command (exactly one of the two). */
  command: typedCommand.optional(),
  /** Paths (relative to the repository) linked into each `git=` worktree: datasets, outputs the script needs. */
  links: z.array(z.string().min(1).max(LIMITS.argChars)).max(64).default([]),
  /** Keep the `git=` worktrees after the sweep (to look at them); removed otherwise. */
  keepWorktrees: z.boolean().default(false),
  name: z.string().trim().max(LIMITS.nameChars).optional(),
  /** Values every config shares (the rest come from the workload's defaults). */
  values: z.record(varName, z.string().max(LIMITS.argChars)).default({}),
  /** Variables varied; the first value of each is the baseline's. */
  vary: z.array(sweepVariable).min(1).max(16),
  plan: sweepPlan.default('ladder'),
  repeats: z.number().int().min(1).max(50).default(3),
  /** Keep the workload's seed variable at one value for every repeat (by default each repeat gets its own, so repeats are independent). */
  pinSeed: z.boolean().default(false),
  /** Each run stops after this many steps, or after this long (ends `timed_out`). */
  maxSteps: z.number().int().positive().optional(),
  timeoutSeconds: z.number().positive().max(MAX_RUN_SECONDS).optional(),
  /** Before each run: wait for no other compute process, low utilisation, and a temperature near idle. */
  waitForIdle: z.boolean().default(true),
  maxWaitSeconds: z.number().min(0).max(3600).default(120),
  /** GPU settings held for the whole sweep (a profile or custom), restored at its end. */
  gpuSettings: gpuRunSettingsInput.optional(),
  confirmOtherProcesses: z.boolean().default(false),
});

export const sweepConfig = z.object({
  index: z.number().int(),
  name: z.string(),
  values: z.record(z.string(), z.string()),
  /** What differs from the baseline, as VAR=VALUE. */
  changes: z.array(z.string()),
});

export const sweepConfigState = sweepConfig.extend({
  runIds: z.array(z.number().int()),
  status: z.enum(['pending', 'running', 'done', 'oom', 'failed', 'skipped']),
  /** Repeats pooled: median of the runs' steady throughputs, and the same for step time and final loss. */
  throughputMedian: z.number().nullable(),
  throughputUnit: z.string().nullable(),
  stepTimeMsMedian: z.number().nullable(),
  finalLossMedian: z.number().nullable(),
  vramPeakMiB: z.number().nullable(),
});

export const sweep = z.object({
  id: z.number().int(),
  name: z.string(),
  kind: z.enum(['sweep', 'batch-finder']),
  createdAt: z.string(),
  endedAt: z.string().nullable(),
  workloadId: z.number().int().nullable(),
  workloadName: z.string(),
  plan: z.string(),
  repeats: z.number().int(),
  status: z.enum(['queued', 'running', 'paused', 'succeeded', 'failed', 'cancelled', 'interrupted']),
  configs: z.array(sweepConfigState),
  progress: z.object({
    /** Runs finished or skipped, of all the schedule holds. */
    done: z.number().int(),
    total: z.number().int(),
    currentRunId: z.number().int().nullable(),
    /** What the current run is: "config 2 of 5 (+batch=16), repeat 1 of 3". */
    current: z.string().nullable(),
    /** From the durations measured so far in this sweep; null before the first run ends. */
    etaSeconds: z.number().nullable(),
    waiting: z.string().nullable(),
  }),
  request: z.record(z.string(), z.unknown()),
  /** A sweep over `git=` revisions: the directory whose repository they name and the revisions, baseline first; else null. */
  git: z.object({ cwd: z.string(), revisions: z.array(z.string()) }).nullable().default(null),
  /** Why it stopped early, for a person to read. */
  error: z.string().nullable(),
  /** The batch-size finder's answer: the largest batch that fit, the first that did not. */
  result: z
    .object({ variable: z.string(), largestFit: z.number().nullable(), firstFailure: z.number().nullable(), message: z.string() })
    .nullable(),
});

export const sweepPreview = z.object({
  configs: z.array(
    sweepConfig.extend({ command: z.array(z.string()), cwd: z.string(), env: z.record(z.string(), z.string()) }),
  ),
  runCount: z.number().int(),
  /** From earlier runs of the workload; null when there are none to go by. */
  estimateSeconds: z.number().nullable(),
  estimateBasis: z.string(),
});


export const outputChunk = z.object({
  seq: z.number().int().nonnegative(),
  /** Milliseconds since the run started. */
  tMs: z.number().nonnegative(),
  data: z.string(),
});

const terminalSize = z.object({
  cols: z.number().int().min(LIMITS.terminalCols.min).max(LIMITS.terminalCols.max),
  rows: z.number().int().min(LIMITS.terminalRows.min).max(LIMITS.terminalRows.max),
});

const empty = z.object({}).strict();
const ok = z.object({ ok: z.literal(true) });


const clockRange = z.object({ minMHz: z.number(), maxMHz: z.number() });

/** What GPU control reads before it changes anything (`nvidia-smi -q -x -i GPU`), and the locks it knows of. */
export const gpuControlState = z.object({
  index: z.number().int(),
  uuid: z.string().nullable(),
  busId: z.string().nullable(),
  name: z.string().nullable(),
  persistenceMode: z.boolean().nullable(),
  clocks: z.object({
    graphicsMHz: nullableNumber,
    memMHz: nullableNumber,
    maxGraphicsMHz: nullableNumber,
    maxMemMHz: nullableNumber,
    maxCustomerBoostMHz: nullableNumber,
    defaultApplicationsGraphicsMHz: nullableNumber,
  }),
  /** Highest first; empty where the driver lists none (`N/A` on old drivers). */
  supportedGraphicsMHz: z.array(z.number()),
  supportedMemoryMHz: z.array(z.number()),
  power: z.object({
    drawW: nullableNumber,
    limitW: nullableNumber,
    requestedLimitW: nullableNumber,
    defaultLimitW: nullableNumber,
    minLimitW: nullableNumber,
    maxLimitW: nullableNumber,
  }),
  /**
   * Clock locks in force as far as Tuning Bench knows: nvidia-smi does not report `-lgc`/`-lmc`, so
   * these come from the journal (a run's own lock, or a manual one since the last boot).
   */
  locks: z.object({ clocks: clockRange.nullable(), memoryClocks: clockRange.nullable() }),
  processes: z.array(z.object({ pid: z.number().int(), name: z.string().nullable(), usedMemoryMiB: nullableNumber })),
});

export const gpuJournalEntry = z.object({
  id: z.number().int(),
  createdAt: z.string(),
  gpu: z.string(),
  operation: z.enum(['persistence', 'lockClocks', 'resetClocks', 'lockMemoryClocks', 'resetMemoryClocks', 'powerLimit']),
  prior: z.record(z.string(), z.unknown()),
  applied: z.record(z.string(), z.unknown()),
  scope: z.enum(['run', 'sweep', 'manual']),
  ownerPid: z.number().int().nullable(),
  runId: z.number().int().nullable(),
  state: z.enum(['pending', 'applied', 'restored', 'failed']),
  restoredAt: z.string().nullable(),
  error: z.string().nullable(),
  /** One line: "lock GPU clocks at 2100 MHz (run 12)". */
  description: z.string(),
});

export const gpuRunSettings = z.object({
  persistence: z.boolean().optional(),
  lockClocks: clockRange.optional(),
  lockMemoryClocks: clockRange.optional(),
  powerLimitW: z.number().optional(),
});

export const gpuProfile = z.object({
  id: z.enum(['max-sustained', 'base-clock']),
  name: z.string(),
  settings: gpuRunSettings,
  /** Where the numbers come from, said plainly (a driver value, or an estimate and why). */
  basis: z.string(),
});

export const gpuElevation = z.object({
  mode: z.enum(['root', 'sudo', 'pkexec', 'manual']),
  detail: z.string(),
});


export const orphan = z.object({
  runId,
  pid: z.number().int().positive(),
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

const nullable = z.number().nullable();
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

/** A commit, branch or tag (anything `git rev-parse` reads), or `WORKTREE` for the tree as it is; never an option. */
const gitRevisionValue = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^-\s][^\s]*$/u, 'a revision is a commit, branch or tag (no spaces, not starting with -), or WORKTREE');

export const gitCommit = z.object({ sha: z.string(), subject: z.string(), date: z.string(), author: z.string() });

export const gitRevisions = z.object({
  root: z.string(),
  branch: z.string().nullable(),
  head: z.string().nullable(),
  /** Uncommitted changes or untracked files: "working tree vs HEAD" has something to measure. */
  dirty: z.boolean(),
  commits: z.array(gitCommit),
});

export const gitRevisionDiff = z.object({
  root: z.string(),
  from: z.object({ value: z.string(), commit: z.string().nullable() }),
  to: z.object({ value: z.string(), commit: z.string().nullable() }),
  diff: z.string(),
  /** The whole diff's size; `truncated` when `diff` holds only its beginning. */
  bytes: z.number().int().nonnegative(),
  truncated: z.boolean(),
});

/** Largest log the UI may import in one call; the CLI has no such limit. */
export const MAX_IMPORT_CHARS = 8 * 1024 * 1024;

/** Every method: `domain.verb`, its input and its output. */
export const methods = {
  'app.info': {
    input: empty,
    output: z.object({
      version: z.string(),
      face: z.enum(['electron', 'headless']),
      dbPath: z.string(),
      platform: z.string(),
    }),
  },
  'workloads.list': { input: empty, output: z.array(workload) },
  'workloads.create': { input: workloadInput, output: workload },
  /** Changes a workload the user registered (built-in ones are fixed); its runs keep what they ran with. */
  'workloads.update': { input: z.object({ id: z.number().int().positive(), workload: workloadInput }), output: workload },
  /** Removes a workload the user registered; its runs stay, named as they were. */
  'workloads.remove': { input: z.object({ id: z.number().int().positive() }), output: ok },
  'workloads.preview': {
    input: z.object({
      workloadId: z.number().int().positive().optional(),
      /** A typed command instead of a workload. */
      command: typedCommand.optional(),
      values: z.record(varName, z.string().max(LIMITS.argChars)),
    }),
    output: z.object({ command: z.array(z.string()), cwd: z.string(), env: z.record(z.string(), z.string()) }),
  },
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
        /** GPU settings for this run only: journaled, applied before it starts, restored after it ends. */
        gpuSettings: gpuRunSettingsInput.optional(),
        /** Lock even though other processes use the GPU (the person was shown them and agreed). */
        confirmOtherProcesses: z.boolean().default(false),
        /** Tokens or samples in one step, when the workload does not say (throughput in tokens/s or samples/s). */
        unitsPerStep: unitsPerStepInput.optional(),
        /** Profile a window of steady steps of this run (torch.profiler, no change to the script). */
        profile: profileOptions.optional(),
      })
      .extend(terminalSize.partial().shape),
    output: run,
  },
  /** Runs a run's command again with a window of steady steps profiled; the new run. */
  'runs.profile': { input: profileOptions.extend({ id: runId }), output: run },
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
  'runs.ackOutput': { input: z.object({ id: runId, chars: z.number().int().positive().max(1 << 30) }), output: ok },
  /** Saves the whole log: Electron asks where (a path comes back); headless mode gives a download URL. */
  'runs.saveLog': {
    input: z.object({ id: runId, format: logFormat }),
    output: z.object({ path: z.string().nullable(), downloadUrl: z.string().nullable() }),
  },
  /** A run's metric samples in the order they were recorded. */
  'runs.metrics': { input: z.object({ id: runId }), output: z.array(metricPoint) },
  /** A log made elsewhere becomes a run: parsed, summarised, its failure classified. */
  'runs.import': {
    input: z.object({ name: name.optional(), text: z.string().min(1).max(MAX_IMPORT_CHARS) }),
    output: run,
  },
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
  /** The uncommitted changes of the code a run ran (git diff against its commit, untracked files added). */
  'runs.codeDiff': {
    input: z.object({ id: runId }),
    output: z.object({ diff: z.string().nullable(), reason: z.string().nullable() }),
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
  /** The GPU info card from `nvidia-smi -q -x`, or why there is none. */
  'gpu.info': {
    input: empty,
    output: z.object({ available: z.boolean(), reason: z.string().nullable(), card: z.record(z.string(), z.unknown()).nullable() }),
  },
  /** GPU control: the state, how the app gets root, profiles, and journal entries not yet restored. */
  'gpu.status': {
    input: z.object({ gpu: gpuSelectorText.optional() }).strict(),
    output: z.object({
      available: z.boolean(),
      reason: z.string().nullable(),
      gpu: z.string(),
      state: gpuControlState.nullable(),
      elevation: gpuElevation,
      profiles: z.array(gpuProfile),
      /** Changes of runs or sweeps whose engine died before restoring them. */
      abandoned: z.array(gpuJournalEntry),
      /** Manual changes in force (they stay until reset or a reboot). */
      manual: z.array(gpuJournalEntry),
      /** A run or sweep holding this GPU's settings now. */
      heldBy: z.string().nullable(),
    }),
  },
  /** A manual change that stays: journaled, checked against the GPU's ranges, run with the least privilege that works. */
  'gpu.apply': {
    input: z
      .object({ gpu: gpuSelectorText.optional(), operation: gpuOperationInput, confirmOtherProcesses: z.boolean().default(false) })
      .strict(),
    output: z.object({ message: z.string(), via: gpuElevation.shape.mode, warnings: z.array(z.string()), state: gpuControlState.nullable() }),
  },
  /** Puts back what abandoned runs or sweeps changed (the desktop asks first; the CLI does it at start). */
  'gpu.restoreAbandoned': {
    input: empty,
    output: z.object({ restored: z.array(gpuJournalEntry), failed: z.array(gpuJournalEntry) }),
  },
  /** The plan a sweep would run: every config's exact command and env, the run count, an estimate. */
  'sweeps.plan': { input: sweepRequest, output: sweepPreview },
  /** Queues a sweep; it runs one run at a time on the GPU. */
  'sweeps.start': { input: sweepRequest, output: sweep },
  'sweeps.list': { input: z.object({ limit: z.number().int().min(1).max(1000).default(100) }), output: z.array(sweep) },
  'sweeps.get': { input: z.object({ id: z.number().int().positive() }), output: sweep },
  /** Pause after the current run; resume; skip the current run; cancel the rest. */
  'sweeps.control': {
    input: z.object({ id: z.number().int().positive(), action: z.enum(['pause', 'resume', 'skip', 'cancel']) }),
    output: sweep,
  },
  /** Doubles a batch variable until out of memory, then bisects to the largest that fits (short runs). */
  'sweeps.findBatch': {
    input: z.object({
      workloadId: z.number().int().positive(),
      values: z.record(varName, z.string().max(LIMITS.argChars)).default({}),
      variable: varName.default('batch'),
      start: z.number().int().positive().max(1 << 20).default(1),
      maxSteps: z.number().int().positive().default(20),
      timeoutSeconds: z.number().positive().max(MAX_RUN_SECONDS).default(300),
    }),
    output: sweep,
  },
  /**
   * The recent commits of the repository `cwd` is in (newest first, from HEAD), and whether its tree has uncommitted
   * changes: what a before/after picks its two sides from. Not a repository: `invalid_input`, saying what to give.
   */
  'git.revisions': {
    input: z.object({ cwd: z.string().min(1).max(LIMITS.argChars), limit: z.number().int().min(1).max(500).default(50) }),
    output: gitRevisions,
  },
  /** The diff from one revision to another (either may be `WORKTREE`: the tree as it is, untracked files included). */
  'git.diff': {
    input: z.object({ cwd: z.string().min(1).max(LIMITS.argChars), from: gitRevisionValue, to: gitRevisionValue }),
    output: gitRevisionDiff,
  },
  /** Runs or sweeps side by side against a baseline: one row per config (repeats pooled) or per run. */
  'compare.runs': { input: compareRequest, output: comparison },
  /** The same comparison as Markdown, CSV, JSON or a self-contained HTML report. */
  'compare.export': {
    input: compareRequest.extend({ format: exportFormat }),
    output: z.object({ content: z.string(), filename: z.string(), mimeType: z.string() }),
  },
  /** Decimated series of runs for overlaid charts: throughput and loss by step, telemetry by time. */
  'compare.series': { input: z.object({ runIds: z.array(z.number().int().positive()).min(1).max(50) }), output: z.array(runSeries) },
  /** Notes and tags of a run (tags: short words to filter by). */
  'runs.annotate': {
    input: z.object({
      id: z.number().int().positive(),
      notes: z.string().max(10_000).optional(),
      tags: z.array(z.string().trim().min(1).max(40).regex(/^[\w.+-]+$/u, 'a tag is letters, digits and . _ - +')).max(20).optional(),
    }),
    output: run,
  },
  /** Training processes of interrupted runs still alive after the engine died. */
  'runs.orphans': { input: empty, output: z.array(orphan) },
  'runs.killOrphan': { input: z.object({ runId }), output: ok },
} as const;

/** Every event the engine pushes to the faces: `domain.onEvent`. */
export const events = {
  /** Live output, merged over a few milliseconds; `seq` matches the stored chunk. */
  'runs.onOutput': z.object({ runId, seq: z.number().int().nonnegative(), tMs: z.number().nonnegative(), data: z.string() }),
  /** A run started, changed status or ended. */
  'runs.onDidChange': run,
  /** Telemetry news of a run: no GPU, nvidia-smi restarted, a field unsupported, the GPU lost. */
  'runs.onTelemetryStatus': z.object({ runId, level: z.enum(['info', 'warning', 'error']), message: z.string() }),
  /** A telemetry sample of a running run (GPU every 250 ms, host every 500 ms by default). */
  'runs.onTelemetry': z.object({ runId, gpu: gpuTelemetryPoint.optional(), host: hostTelemetryPoint.optional() }),
  /** The desktop menu or a shortcut asked for a view (Electron only). */
  'app.onMenuCommand': z.object({ command: z.enum(['new-run', 'new-sweep', 'import-log', 'runs', 'sweeps', 'compare', 'gpu-control']) }),
  /** A sweep changed: progress, a config's status, paused, ended. */
  'sweeps.onDidChange': sweep,
  /** New metric samples of a running run (for live charts), batched. */
  'runs.onMetrics': z.object({ runId, points: z.array(metricPoint) }),
  /** The registered workloads changed (one was added, edited or removed). */
  'workloads.onDidChange': z.object({ workloads: z.array(workload) }),
} as const;

export type Methods = typeof methods;
export type MethodName = keyof Methods;
export type EventName = keyof typeof events;
export type MethodInput<M extends MethodName> = z.input<Methods[M]['input']>;
export type ParsedInput<M extends MethodName> = z.output<Methods[M]['input']>;
export type MethodOutput<M extends MethodName> = z.output<Methods[M]['output']>;
export type EventPayload<E extends EventName> = z.output<(typeof events)[E]>;

/**
 * An event and its payload as one pair: a listener written `(event, payload) => ...` has its payload
 * narrowed by checking the event's name, with no cast.
 */
export type EventArgs = { [E in EventName]: [event: E, payload: EventPayload<E>] }[EventName];

export type Run = z.output<typeof run>;
export type Orphan = z.output<typeof orphan>;
export type GpuControlState = z.output<typeof gpuControlState>;
export type Sweep = z.output<typeof sweep>;
export type Comparison = z.output<typeof comparison>;
export type ComparisonRow = z.output<typeof comparisonRow>;
export type CompareRequest = z.output<typeof compareRequest>;
export type QualityGate = z.output<typeof qualityGate>;
export type WorkloadVariable = z.output<typeof workloadVariable>;
export type ExportFormat = z.output<typeof exportFormat>;
export type RunSeries = z.output<typeof runSeries>;
export type SweepRequest = z.output<typeof sweepRequest>;
export type TypedCommand = z.output<typeof typedCommand>;
export type SweepConfig = z.output<typeof sweepConfig>;
export type SweepPreview = z.output<typeof sweepPreview>;
export type GpuJournalEntry = z.output<typeof gpuJournalEntry>;
export type GitRevisions = z.output<typeof gitRevisions>;
export type GitRevisionDiff = z.output<typeof gitRevisionDiff>;
export type GpuProfile = z.output<typeof gpuProfile>;
export type GpuElevation = z.output<typeof gpuElevation>;
export type MetricPoint = z.output<typeof metricPoint>;
export type GpuTelemetryPoint = z.output<typeof gpuTelemetryPoint>;
export type HostTelemetryPoint = z.output<typeof hostTelemetryPoint>;
export type LogFormat = z.output<typeof logFormat>;
export type RunSummary = z.output<typeof runSummary>;
export type RunStatus = z.output<typeof runStatus>;
export type ExitClass = z.output<typeof exitClass>;
export type Workload = z.output<typeof workload>;
export type SummaryHistoryEntry = z.output<typeof summaryHistoryEntry>;
export type ReparseResult = z.output<typeof reparseResult>;
export type UnitsPerStepInput = z.output<typeof unitsPerStepInput>;
export type WorkloadInput = z.input<typeof workloadInput>;
export type OutputChunk = z.output<typeof outputChunk>;

export const methodNames = Object.keys(methods) as MethodName[];
export const eventNames = Object.keys(events) as EventName[];

/** Errors cross every boundary as data, never as a thrown object (Electron keeps only a message). */
export type ApiErrorCode = 'invalid_input' | 'not_found' | 'conflict' | 'unavailable' | 'internal' | 'unknown_method';
export interface ApiError {
  code: ApiErrorCode;
  message: string;
}
export type ApiResult<T> = { ok: true; value: T } | { ok: false; error: ApiError };

/** Who is calling: the face's subscriber id, so per-view state (output acknowledgements) has an owner. */
export interface CallContext {
  subscriberId: number | null;
}

/** What the engine implements: a method without a handler fails to compile. */
export type ApiHandlers = {
  [M in MethodName]: (input: ParsedInput<M>, context: CallContext) => Promise<MethodOutput<M>> | MethodOutput<M>;
};

/** What a face calls: typed by the contract, transport-agnostic. */
export type ApiClient = {
  [M in MethodName]: (input: MethodInput<M>) => Promise<MethodOutput<M>>;
};

export function isMethodName(value: unknown): value is MethodName {
  return typeof value === 'string' && Object.hasOwn(methods, value);
}

export function isEventName(value: unknown): value is EventName {
  return typeof value === 'string' && Object.hasOwn(events, value);
}

/** Turns a zod failure into one line a person can act on. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

/** Throw one of these in a handler to send a specific code; anything else becomes `internal`. */
export class ApiFailure extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

/**
 * Parses the input against the contract and runs the handler; every outcome becomes an ApiResult.
 * Each face (IPC, WebSocket, CLI) calls this, so validation happens once, in one place.
 */
export async function dispatch(
  handlers: ApiHandlers,
  method: unknown,
  input: unknown,
  context: CallContext = { subscriberId: null },
): Promise<ApiResult<unknown>> {
  if (!isMethodName(method)) {
    return { ok: false, error: { code: 'unknown_method', message: `unknown method ${String(method)}` } };
  }
  const parsed = methods[method].input.safeParse(input ?? {});
  if (!parsed.success) {
    return { ok: false, error: { code: 'invalid_input', message: `${method}: ${describeZodError(parsed.error)}` } };
  }
  try {
    // The mapped type guarantees the handler matches the method; TypeScript cannot correlate the union here.
    const handler = handlers[method] as (input: unknown, context: CallContext) => Promise<unknown> | unknown;
    return { ok: true, value: await handler(parsed.data, context) };
  } catch (error) {
    if (error instanceof ApiFailure) return { ok: false, error: { code: error.code, message: error.message } };
    return { ok: false, error: { code: 'internal', message: error instanceof Error ? error.message : String(error) } };
  }
}

/** Builds a typed client from one `call` function: the IPC and WebSocket clients are both made this way. */
export function createClient(call: (method: MethodName, input: unknown) => Promise<ApiResult<unknown>>): ApiClient {
  const client: Partial<Record<MethodName, (input: unknown) => Promise<unknown>>> = {};
  for (const method of methodNames) {
    client[method] = async (input: unknown) => {
      const result = await call(method, input);
      if (!result.ok) throw new ApiFailure(result.error.code, result.error.message);
      return result.value;
    };
  }
  return client as ApiClient;
}
