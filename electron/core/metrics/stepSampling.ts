// A bounded sample of a long run's steps for its summary (made by summaryInput.ts, read by summary.ts), and the facts
// about each series that need every sample.
import type { MetricKind, MetricSource } from './samples.js';

/** What every sample of one series (name, source, kind) showed, for the summary's facts that a sample of steps would get wrong. */
export interface SeriesFacts {
  name: string;
  source: MetricSource;
  kind: MetricKind;
  /** The lowest finite value. */
  lowest: number | null;
  /** The last finite value by step (samples without one last), then time, then the run's order. */
  last: { step: number; tMs: number; order: number; value: number } | null;
  /** Whether some value was NaN or infinite. */
  nonFinite: boolean;
  /** The largest step. */
  maxStep: number | null;
}

/**
 * A summary input that holds a sample of a long run's steps: every sample of the first `headLastStep` steps, then of
 * every `every`-th step, each with the step before it (a `leadIn`: the time between the two lines is that step's time
 * when the script prints none). Series that are not per step (evals, summaries, a metric of few samples) are read whole.
 * The steps on the grid (`onGrid`) are an even 1 in `every` of all; statistics over them stand for the run (a step
 * some sparse series alone logged is on no grid).
 */
export interface StepSampling {
  /** Steps the run logged in all (its dense series' distinct steps). */
  steps: number;
  every: number;
  headLastStep: number;
  /** The grid's steps: the head thinned as the rest is, then every `every`-th step; each stands for `every` steps. */
  grid: ReadonlySet<number>;
  /** Facts over every sample, keyed by `seriesKey`. */
  facts: ReadonlyMap<string, SeriesFacts>;
}

export const seriesKey = (name: string, source: MetricSource, kind: MetricKind): string => `${source}\u0000${kind}\u0000${name}`;

/** Whether a step is one of the sample's even 1 in `every`. */
export function onGrid(sampling: StepSampling, step: number): boolean {
  return sampling.grid.has(step);
}
