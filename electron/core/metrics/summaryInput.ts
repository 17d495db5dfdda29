// The samples a finished run's summary and chart series are made from, read without every bar redraw where they are not needed.
import type { MetricStore, OrderedSample } from '../store/metricStore.js';
import type { MetricSample } from './samples.js';
import { readsEveryProgressSample } from './summary.js';

/**
 * What summarizeMetrics and buildSeries read for a run: its training, evaluation and summary
 * samples, and of its progress bars' only the few values the summary takes from them — unless the
 * training lines lack timing or loss, when every bar sample is read as before. Bar redraws are most
 * rows of a long or imported run: reading them all back held an import's memory at 1.5 GB.
 * The result is the same summary and series as from every sample (test/integration/summaryInput.test.ts).
 */
export function samplesForSummary(metrics: MetricStore, runId: number): MetricSample[] {
  const merged = mergeInOrder(metrics.forRunExceptProgress(runId), metrics.progressDigest(runId));
  return readsEveryProgressSample(merged) ? metrics.forRun(runId) : merged;
}

function mergeInOrder(a: readonly OrderedSample[], b: readonly OrderedSample[]): OrderedSample[] {
  const merged: OrderedSample[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]!.order < b[j]!.order)) merged.push(a[i++]!);
    else merged.push(b[j++]!);
  }
  return merged;
}
