// Comparisons: rows against a baseline with verdicts, the quality gate, exports, chart series.
import { z } from 'zod';
import { interval } from './common.js';

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
  /** The machine its runs ran on when that is not the baseline's (runs pulled back from MLflow): no speedup verdict across machines unless asked. */
  machine: z.string().nullable().default(null),
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
