// Each run's chart series, decimated once (min and max per bucket, so spikes survive) and stored, so a
// comparison of ten one-hour runs reads ten small rows instead of a million samples.
import { KIND_CODE, SampleColumns, SOURCE_CODE } from '../store/sampleColumns.js';
import type { SummaryInput } from '../metrics/summary.js';
import { groupByStep } from '../metrics/stepColumns.js';
import type { StoredSeries } from '../store/runStore.js';
import type { TimedGpuSample } from '../telemetry/nvidiaSmiSampler.js';

/** About one point per horizontal pixel of a wide chart. */
export const MAX_SERIES_POINTS = 1000;

const METRIC_SERIES = ['loss', 'eval_loss', 'tokens_per_sec', 'samples_per_sec', 'step_time_ms', 'lr', 'grad_norm'];
const TELEMETRY_SERIES: Array<[string, (s: TimedGpuSample) => number | null]> = [
  ['utilGpu', (s) => s.utilGpu],
  ['memUsedMiB', (s) => s.memUsedMiB],
  ['powerW', (s) => s.powerW],
  ['tempC', (s) => s.tempC],
  ['smClockMHz', (s) => s.smClockMHz],
];

/**
 * At most `maxPoints` points: the first and last kept, and in between each bucket's lowest and
 * highest in their own order. Input sorted by x.
 */
export function decimate(points: ReadonlyArray<[number, number]>, maxPoints = MAX_SERIES_POINTS): Array<[number, number]> {
  if (points.length <= maxPoints) return [...points];
  return decimatedIndexes(points.length, (i) => points[i]![1], maxPoints).map((i) => points[i]!);
}

/** decimate() of points held as two columns: only the points kept are made. */
export function decimateColumns(x: Float64Array, y: Float64Array, maxPoints = MAX_SERIES_POINTS): Array<[number, number]> {
  return decimatedIndexes(x.length, (i) => y[i]!, maxPoints).map((i) => [x[i]!, y[i]!]);
}

/** Which of `length` points decimate() keeps, in order, reading each point's value through `valueAt`. */
function decimatedIndexes(length: number, valueAt: (i: number) => number, maxPoints: number): number[] {
  if (length <= maxPoints) return Array.from({ length }, (_, i) => i);
  const buckets = Math.floor((maxPoints - 2) / 2);
  const inner = length - 2;
  const out: number[] = [0];
  for (let b = 0; b < buckets; b++) {
    const from = 1 + Math.floor((b * inner) / buckets);
    const to = 1 + Math.floor(((b + 1) * inner) / buckets);
    let low = from;
    let high = from;
    for (let i = from; i < to; i++) {
      if (valueAt(i) < valueAt(low)) low = i;
      if (valueAt(i) > valueAt(high)) high = i;
    }
    if (low === high) out.push(low);
    else out.push(Math.min(low, high), Math.max(low, high));
  }
  out.push(length - 1);
  return out;
}

export function buildSeries(input: SummaryInput, gpu: readonly TimedGpuSample[]): StoredSeries {
  const metrics = input instanceof SampleColumns ? input : SampleColumns.from(input);
  // The structured channel wins over text where it has the metric (as in the summary).
  const fromChannel = metrics.source.subarray(0, metrics.length).includes(SOURCE_CODE.channel);
  const usable = (i: number) =>
    Number.isFinite(metrics.value[i]!) &&
    (metrics.kind[i] === KIND_CODE.train || metrics.kind[i] === KIND_CODE.eval) &&
    (!fromChannel || metrics.source[i] === SOURCE_CODE.channel);
  const series: StoredSeries = { metrics: {}, telemetry: {} };
  for (const name of METRIC_SERIES) {
    const code = metrics.nameCode(name);
    if (code < 0) continue;
    // Each step's last value, in step order, as columns (see stepColumns.ts): no pair per sample.
    const byStep = groupByStep(
      metrics,
      metrics.where((i) => metrics.name[i] === code && usable(i)),
      [name],
    );
    const values = byStep.values.get(name);
    if (values === undefined) continue;
    series.metrics[name] = decimateColumns(byStep.step, values);
  }
  for (const [name, pick] of TELEMETRY_SERIES) {
    const points: Array<[number, number]> = [];
    for (const sample of gpu) {
      const value = pick(sample);
      if (value !== null) points.push([Math.round(sample.tMs) / 1000, value]);
    }
    if (points.length > 0) series.telemetry[name] = decimate(points);
  }
  return series;
}
