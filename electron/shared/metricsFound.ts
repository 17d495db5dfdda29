// What a run's metrics hold for a reader: a step time (or throughput) and a loss. One rule for the CLI and the UI on when to offer teaching a format.
import type { RunSummary } from './api.js';

/**
 * A run "has metrics" when its summary has what a comparison rests on: a step time or a throughput, or a
 * loss. Any other value parsed from its output (an `epoch` counter, a learning rate) is not enough: a log
 * whose lines only mention the epoch still needs its format taught.
 */
export interface MetricsFound {
  /** A steady step time, or a throughput where only a rate was printed. */
  timing: boolean;
  /** Which of the two timing was: the step time, or the rate alone. */
  timingFrom: 'step time' | 'throughput' | null;
  /** A training or evaluation loss (a NaN one counts: it was found). */
  loss: boolean;
}

export function metricsFound(summary: Pick<RunSummary, 'throughput' | 'stepTimeMs' | 'finalLoss' | 'evalLoss' | 'nanDetected'>): MetricsFound {
  const timingFrom = summary.stepTimeMs.median !== null ? 'step time' : summary.throughput.median !== null ? 'throughput' : null;
  return { timing: timingFrom !== null, timingFrom, loss: summary.finalLoss !== null || summary.evalLoss !== null || summary.nanDetected === true };
}

export function hasMetrics(found: MetricsFound): boolean {
  return found.timing || found.loss;
}

/** Both halves found: nothing to teach. */
export function hasAllMetrics(found: MetricsFound): boolean {
  return found.timing && found.loss;
}

/** "step times and loss", "step times; no loss found", "a loss; no step time or throughput found", or "no step time, throughput or loss found". */
export function describeMetricsFound(found: MetricsFound): string {
  const timing = found.timingFrom === 'throughput' ? 'throughput' : 'step times';
  if (found.timing && found.loss) return `${timing} and loss`;
  if (found.timing) return `${timing}; no loss found`;
  if (found.loss) return 'a loss; no step time or throughput found';
  return 'no step time, throughput or loss found';
}
