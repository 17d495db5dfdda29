// The samples a finished run's summary and chart series are made from, read into columns and without every bar redraw where they are not needed.
import type { MetricStore, OrderedSample } from '../store/metricStore.js';
import type { MetricSample } from './samples.js';
import { SampleColumns } from '../store/sampleColumns.js';
import { readsEveryProgressSample } from './summary.js';

/**
 * What summarizeMetrics and buildSeries read for a run: its training, evaluation and summary
 * samples, and of its progress bars' only the few values the summary takes from them — unless the
 * training lines lack timing or loss, when every bar sample is read as before. Bar redraws are most
 * rows of a long or imported run: reading them all back held an import's memory at 1.5 GB.
 * Read straight into columns, never as one object a sample: a dense log (a metric line a step) writes
 * three samples a step, and objects held about 300 bytes a step to the end of the run.
 * The result is the same summary and series as from every sample (test/integration/summaryInput.test.ts).
 * `parse`: with the text samples of that parse instead of the run's current one (a parse being made, see reparse.ts).
 */
export function columnsForSummary(metrics: MetricStore, runId: number, parse?: number): SampleColumns {
  const digest = metrics.progressDigest(runId, parse);
  const merged = new SampleColumns(metrics.countNumeric(runId, 'exceptProgress', parse) + digest.length);
  // The digest's few samples go in among the others by their place in the run's order.
  let next = 0;
  const pushDigest = (sample: OrderedSample) => merged.push(sample.step, sample.tMs, sample.name, sample.value, sample.source, sample.kind);
  metrics.readNumeric(runId, 'exceptProgress', (order, step, tMs, name, value, source, kind) => {
    while (next < digest.length && digest[next]!.order < order) pushDigest(digest[next++]!);
    merged.push(step, tMs, name, value, source, kind);
  }, parse);
  while (next < digest.length) pushDigest(digest[next++]!);
  if (!readsEveryProgressSample(merged)) return merged;
  const all = new SampleColumns(metrics.countNumeric(runId, 'all', parse));
  metrics.readNumeric(runId, 'all', (_order, step, tMs, name, value, source, kind) => all.push(step, tMs, name, value, source, kind), parse);
  return all;
}

/** columnsForSummary as samples, for a reader that wants them one by one. */
export function samplesForSummary(metrics: MetricStore, runId: number): MetricSample[] {
  const columns = columnsForSummary(metrics, runId);
  return Array.from({ length: columns.length }, (_, i) => columns.sample(i));
}
