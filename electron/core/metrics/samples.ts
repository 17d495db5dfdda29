// Metric samples as the engine stores them: one named value at a step and a time.

/** Where a sample came from: parsed from the terminal, the structured channel, or computed by the engine. */
export type MetricSource = 'text' | 'channel' | 'derived';
/** What printed it: a training step, an evaluation, a progress bar's redraw, or end-of-run totals. */
export type MetricKind = 'train' | 'eval' | 'progress' | 'summary';

export interface MetricSample {
  step: number | null;
  /** Milliseconds since the run started. */
  tMs: number;
  name: string;
  /** NaN and ±Infinity are kept: a NaN loss is a fact worth recording. */
  value: number;
  source: MetricSource;
  kind: MetricKind;
}
