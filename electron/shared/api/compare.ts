// Comparisons: rows against a baseline with verdicts, the quality gate, exports, chart series.
import { z } from 'zod';
import { interval } from './common.js';

/**
 * The quality gate. Default: the optimisation plans' rule, final validation (eval) loss within
 * +0.05 of the baseline's (train loss at the matched point when a side has no eval loss).
 */
/** The optimisation plans' tolerance: final eval loss at most this much above the baseline's. The CLI and the UI take it from here. */
export const DEFAULT_GATE_ABSOLUTE = 0.05;

export const qualityGate = z.object({
  /** `auto` (eval loss, else train loss at the matched point), `loss`, `eval_loss`, or any metric name the runs share. */
  metric: z.string().min(1).default('auto'),
  /** Which way is better for the metric (loss: lower; accuracy: higher). */
  direction: z.enum(['lower', 'higher']).default('lower'),
  /** A row may be at most this much worse than the baseline (null: no absolute tolerance). */
  absolute: z.number().min(0).nullable().default(DEFAULT_GATE_ABSOLUTE),
  /** ...and at most this fraction of the baseline's value worse (null: none). A row passes when within every tolerance given. */
  relative: z.number().min(0).nullable().default(null),
  /** False: no gate, every row `n/a`. */
  enabled: z.boolean().default(true),
});

/** δ of the `same` verdict, as a fraction: 0.02 is ±2 %. */
export const minEffect = z.number().gt(0).max(0.5);

/** DESIGN: a change smaller than 2 % is no change worth a person's time. */
export const DEFAULT_MIN_EFFECT = 0.02;
/**
 * Runs of the two sides that ran apart in time (every run of one side before every run of the other: two sweeps,
 * yesterday against today) share no conditions: the machine's level may have moved between them (heat, clocks, a
 * driver, other load) by an amount their spread within each side does not show. Their speed verdict is then told
 * only beyond this shift: a shift of sd 3 % between two sessions stays inside it 98 % of the time (the simulation's
 * `apart` rows in docs/statistics.md hold the false-verdict rate it gives, and the rate without it).
 */
export const APART_SHIFT_ALLOWANCE = 0.1;

export const comparisonRow = z.object({
  key: z.string(),
  name: z.string(),
  runIds: z.array(z.number().int()),
  sweepId: z.number().int().nullable(),
  configIndex: z.number().int().nullable(),
  config: z.record(z.string(), z.string()),
  isBaseline: z.boolean(),
  /** The geometric mean of its runs' steady medians (one run: its median), with a 95 % t-interval from two runs on. */
  throughput: z.object({ median: z.number().nullable(), ci95: interval, unit: z.string().nullable() }),
  speedup: z.object({
    ratio: z.number().nullable(),
    ci95: interval,
    /**
     * `faster`/`slower`: the interval excludes 1; `same`: it lies inside 1 ± minEffect; `inconclusive`: neither (see
     * `moreRepeats`); `repeat to decide`: one run on a side says nothing about run-to-run variance; `unknown`: no speedup.
     */
    verdict: z.enum(['baseline', 'faster', 'slower', 'same', 'inconclusive', 'repeat to decide', 'unknown']),
    /** Why there is no ratio or no verdict (work per step not known, one run each), what the verdict rests on, how units were converted. */
    reason: z.string().nullable().default(null),
    /** `welch` (two independent sets of runs) or `paired` (interleaved repeats round by round); null without an interval. */
    method: z.enum(['welch', 'paired']).nullable().default(null),
    /** For an inconclusive verdict: about how many more runs per side would decide (null: many more, or not inconclusive). */
    moreRepeats: z.number().int().nullable().default(null),
    /**
     * Inconclusive in a way more runs like these cannot settle (see `reason`): runs apart in time, step timing too
     * coarse for the change, or copies of one log.
     */
    repeatsCannotDecide: z.boolean().default(false),
  }),
  /**
   * Why the row's runs cannot be taken as run side by side with the baseline's (they ran apart in time, or when is not
   * known), so its verdict is told only beyond APART_SHIFT_ALLOWANCE; null where they interleaved.
   */
  ranApart: z.string().nullable().default(null),
  /** Each run of the row: what it adds to the figures, so they can be checked against its log. */
  runs: z
    .array(
      z.object({
        id: z.number().int(),
        /** Its steady median in the row's unit; null when it does not count for speed. */
        throughput: z.number().nullable(),
        /** How far the step timing's grain alone may move its throughput, relative (the run summary's `throughput.resolution`). */
        resolution: z.number().nullable().default(null),
        steadySteps: z.number().int().nullable(),
        warmupSteps: z.number().nullable(),
        leftOutSteps: z.number().int(),
        /** The fairness flags of the run (`host-busy`, `gpu-busy`, `throttled`, `clock-below-lock`). */
        unfair: z.array(z.string()),
        /** The earlier run of the row it is an identical copy of (stretch medians and loss curve to the last digit: one seed ran twice). */
        identicalTo: z.number().int().nullable().default(null),
      }),
    )
    .default([]),
  /** Work in one step: tokens and samples where known (the same for every run of the row, else null). */
  workPerStep: z.object({ tokens: z.number().nullable(), samples: z.number().nullable() }).default({ tokens: null, samples: null }),
  /** The row's runs whose machine was not fair, each kind once with the runs it hit: "host-busy: runs 3, 5". */
  fairness: z.array(z.object({ kind: z.string(), runIds: z.array(z.number().int()), message: z.string() })).default([]),
  /** Runs with a steady throughput in this row: what the verdict rests on. */
  n: z.number().int().nonnegative().default(0),
  /** Some of its runs were stopped, timed out or interrupted: their numbers come from the steps they had. */
  partial: z.boolean().default(false),
  /** Notes on the row, such as repeats that were identical copies. */
  notes: z.array(z.string()).default([]),
  /** What the quality gate compared: the metric, where, this row's value, the baseline's, and the signed delta. */
  compared: z.object({ metric: z.string(), at: z.string().nullable(), value: z.number(), base: z.number(), delta: z.number() }).nullable().default(null),
  stepTimeMs: z.number().nullable(),
  vramPeakMiB: z.number().nullable(),
  utilMean: z.number().nullable(),
  powerMeanW: z.number().nullable(),
  energyPer1kTokensJ: z.number().nullable(),
  finalLoss: z.number().nullable(),
  evalLoss: z.number().nullable(),
  /** Loss at the step (or token count) every row reached, against the baseline's there. */
  matchedLoss: z.object({ at: z.number(), by: z.enum(['step', 'tokens', 'samples']), value: z.number(), delta: z.number() }).nullable(),
  lossDelta: z.number().nullable(),
  gate: z.enum(['pass', 'fail', 'n/a']),
  gateReason: z.string(),
  fasterButWorse: z.boolean(),
  exitClasses: z.array(z.string()),
  /** Where its GPU settings or environment differ from the baseline's (or within its own repeats). */
  differences: z.array(z.string()),
  best: z.boolean(),
  /** The machine its runs ran on when that is not the baseline's (runs pulled back from MLflow): no speedup verdict across machines unless asked. */
  machine: z.string().nullable().default(null),
});

/** One fact of the environment the runs were measured in, with each value seen and the runs that had it. */
export const environmentFact = z.object({
  /** `machine`: the box, its GPU and CPU; `gpu settings`: what was in force on the GPU; `software`: Python, PyTorch, CUDA. */
  group: z.enum(['machine', 'gpu settings', 'software']),
  label: z.string(),
  /** One entry when every run agrees; else one per value (`not recorded` for runs without it), in order of first run. */
  values: z.array(z.object({ text: z.string(), runIds: z.array(z.number().int()) })),
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
  /** δ of the `same` verdict: an interval inside 1 ± minEffect. */
  minEffect: z.number().default(DEFAULT_MIN_EFFECT),
  /** The machine the runs ran on (from the baseline's first run), and where others differ, each value seen. */
  machine: z
    .object({ gpu: z.string().nullable(), driver: z.string().nullable(), cpu: z.string().nullable(), torch: z.string().nullable() })
    .default({ gpu: null, driver: null, cpu: null, torch: null }),
  /** The machine, GPU settings and software of every run compared, each fact once, each differing value with its runs. */
  environment: z.array(environmentFact).default([]),
  /** The commands compared, as templates (`python train.py --batch_size {batch}`) where a sweep or workload gave one. */
  commands: z.array(z.string()).default([]),
  generatedAt: z.string(),
  notes: z.array(z.string()),
});

export const compareRequest = z.object({
  runIds: z.array(z.number().int().positive()).max(1000).default([]),
  sweepIds: z.array(z.number().int().positive()).max(100).default([]),
  /** A run id whose row is the baseline; default: the first sweep's first config, else the first run. */
  baselineRunId: z.number().int().positive().optional(),
  groupBy: z.enum(['config', 'run']).default('config'),
  gate: qualityGate.default(() => qualityGate.parse({})),
  /** δ: a speedup whose interval lies inside 1 ± minEffect is "same" (DESIGN: 2 %). */
  minEffect: minEffect.default(DEFAULT_MIN_EFFECT),
  /**
   * `auto`: each run by its median step, unless a run compared has steps that come unevenly, when every run is measured
   * by its steady steps' work over their time; `workOverTime`: every run so, always (tune pools rounds compared apart).
   */
  measureBy: z.enum(['auto', 'workOverTime']).optional(),
  /** Give speedups and verdicts between rows measured on different machines too (flagged); by default there are none. */
  acrossMachines: z.boolean().optional(),
});

export const exportFormat = z.enum(['md', 'csv', 'json', 'html']);

/** One run's series for overlaid charts, decimated to at most ~1000 points each. */
export const runSeries = z.object({
  runId: z.number().int(),
  label: z.string(),
  metrics: z.record(z.string(), z.array(z.tuple([z.number(), z.number()]))),
  telemetry: z.record(z.string(), z.array(z.tuple([z.number(), z.number()]))),
});

export type Comparison = z.output<typeof comparison>;

export type ComparisonRow = z.output<typeof comparisonRow>;

export type EnvironmentFact = z.output<typeof environmentFact>;

export type CompareRequest = z.output<typeof compareRequest>;

export type QualityGate = z.output<typeof qualityGate>;

export type ExportFormat = z.output<typeof exportFormat>;

export type RunSeries = z.output<typeof runSeries>;

/** Comparison methods: `compare.*`. */
export const compareMethods = {
  /** Runs or sweeps side by side against a baseline: one row per config (repeats pooled) or per run. */
  'compare.runs': { input: compareRequest, output: comparison },
  /** The same comparison as Markdown, CSV, JSON or a self-contained HTML report. */
  'compare.export': {
    input: compareRequest.extend({ format: exportFormat }),
    output: z.object({ content: z.string(), filename: z.string(), mimeType: z.string() }),
  },
  /** Decimated series of runs for overlaid charts: throughput and loss by step, telemetry by time. */
  'compare.series': { input: z.object({ runIds: z.array(z.number().int().positive()).min(1).max(50) }), output: z.array(runSeries) },
} as const;
