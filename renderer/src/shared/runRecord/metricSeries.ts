// A run's metric points sorted into chartable series (x = step), and the choice of what the charts show from them.
import type { MetricPoint } from '../../../../electron/shared/api.js';

export interface XY {
  x: number;
  y: number;
}

/** A metric's point: x is the step, `t` the seconds since the run started when it was printed (for a time axis). */
export interface StepPoint extends XY {
  t: number;
}

export type ThroughputUnit = 'tokens/s' | 'samples/s' | 'steps/s';

export interface ThroughputSeries {
  /** The metric plotted, or `step_time_ms` when the rate is worked out from printed step times. */
  name: string;
  unit: ThroughputUnit;
  data: readonly StepPoint[];
}

export interface NonFiniteLoss {
  name: 'loss' | 'eval_loss';
  value: 'nan' | 'inf' | '-inf';
  /** Null when the point that carried it had no step. */
  step: number | null;
}

/** One parsed metric with its points, for the chart a person may add of any of them. */
export interface MetricSeriesEntry {
  /** `kind:name`: the same name from evaluations and from training lines are two series. */
  key: string;
  name: string;
  kind: string;
  data: readonly StepPoint[];
  /** How many points the run has of it: more than `data` when a long run's stored points came thinned for the chart. */
  samples: number;
}

/** What the charts draw at one moment; the arrays are the set's own and keep growing, so a chart copies them. */
export interface MetricsView {
  throughput: ThroughputSeries | null;
  loss: readonly StepPoint[] | null;
  evalLoss: readonly StepPoint[] | null;
  /** The first NaN or infinite loss, which is never plotted but must not go unseen. */
  nonFiniteLoss: NonFiniteLoss | null;
  source: 'channel' | 'text' | null;
  /** Every parsed metric that has points, by name: what a person may plot besides throughput and loss. */
  metrics: readonly MetricSeriesEntry[];
}

/**
 * Names that are no measurement to plot: the engine's bookkeeping (see core/metrics/summary.ts) and a loop's
 * constant lengths.
 */
const NOT_PLOTTED: ReadonlySet<string> = new Set(['tokens_per_step', 'step_counter_restart', 'total_steps', 'total_epochs', 'batches', 'samples_total']);

/** In the engine's order of preference (core/metrics/summary.ts): tokens, then samples, then steps. */
const RATES: readonly { name: string; unit: ThroughputUnit }[] = [
  { name: 'tokens_per_sec', unit: 'tokens/s' },
  { name: 'samples_per_sec', unit: 'samples/s' },
  { name: 'steps_per_sec', unit: 'steps/s' },
];
/** Training lines carry the numbers; a progress bar's redraws count only when there are none. */
const TIMING_KINDS = ['train', 'progress'] as const;

type Group = 'channel' | 'text';

interface GroupState {
  /** Keyed `kind:name`; each sorted by step, one point per step. */
  series: Map<string, StepPoint[]>;
  nonFiniteLoss: NonFiniteLoss | null;
}

function emptyGroup(): GroupState {
  return { series: new Map(), nonFiniteLoss: null };
}

/**
 * Puts (step, value) in its place. A later point for a step replaces the earlier one, as the engine's summary does
 * (a progress bar redraws the same step); logs almost always count up, so the common case is a push.
 */
export function placeByStep<P extends XY>(series: P[], x: number, y: number, extra?: Omit<P, 'x' | 'y'>): void {
  const point = { x, y, ...extra } as P;
  const last = series[series.length - 1];
  if (last === undefined || x > last.x) {
    series.push(point);
    return;
  }
  let lo = 0;
  let hi = series.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (series[mid]!.x < x) lo = mid + 1;
    else hi = mid;
  }
  if (series[lo]?.x === x) series[lo] = point;
  else series.splice(lo, 0, point);
}

export class MetricSeriesSet {
  /** Structured-channel points win over parsed text when there are any, as in the engine's summary. */
  private readonly groups: Record<Group, GroupState> = { channel: emptyGroup(), text: emptyGroup() };
  private pointCount = 0;
  /**
   * Of a long run fetched thinned (see setStored), how many points each series has in the store, by group and
   * `kind:name`, and the live points counted on top since; null when every stored point was given.
   */
  private stored: Map<string, number> | null = null;

  /** The stored points were thinned for the chart: these are how many each metric has (runs.chartMetrics's `stored`). */
  setStored(stored: ReadonlyArray<{ name: string; kind: string; source: string; samples: number }>): void {
    this.stored = new Map();
    this.pointCount = 0;
    for (const entry of stored) {
      const id = `${entry.source === 'channel' ? 'channel' : 'text'}|${entry.kind}:${entry.name}`;
      this.stored.set(id, (this.stored.get(id) ?? 0) + entry.samples);
      this.pointCount += entry.samples;
    }
  }

  add(points: readonly MetricPoint[]): void {
    for (const point of points) {
      this.pointCount += 1;
      // Engine-derived points sit with the parsed text: they are worked out from it.
      const groupName: Group = point.source === 'channel' ? 'channel' : 'text';
      const group = this.groups[groupName];
      if (this.stored !== null) {
        const id = `${groupName}|${point.kind}:${point.name}`;
        this.stored.set(id, (this.stored.get(id) ?? 0) + 1);
      }
      if (typeof point.value !== 'number') {
        if ((point.name === 'loss' || point.name === 'eval_loss') && point.kind !== 'summary') {
          const seen = group.nonFiniteLoss;
          const earlier = seen === null || (point.step !== null && (seen.step === null || point.step < seen.step));
          if (earlier) group.nonFiniteLoss = { name: point.name, value: point.value, step: point.step };
        }
        continue;
      }
      // The x axis is the step; a point without one (an end-of-run summary) has no place on it.
      if (point.step === null) continue;
      const key = `${point.kind}:${point.name}`;
      let series = group.series.get(key);
      if (!series) {
        series = [];
        group.series.set(key, series);
      }
      placeByStep(series, point.step, point.value, { t: point.tMs / 1000 });
    }
  }

  /** Every point given to the set, plotted or not. */
  get size(): number {
    return this.pointCount;
  }

  view(): MetricsView {
    const source: Group | null =
      this.groups.channel.series.size > 0 || this.groups.channel.nonFiniteLoss
        ? 'channel'
        : this.groups.text.series.size > 0 || this.groups.text.nonFiniteLoss
          ? 'text'
          : null;
    if (source === null) return { throughput: null, loss: null, evalLoss: null, nonFiniteLoss: null, source, metrics: [] };
    const group = this.groups[source];
    const get = (kind: string, name: string) => {
      const series = group.series.get(`${kind}:${name}`);
      return series && series.length > 0 ? series : null;
    };
    return {
      throughput: pickThroughput(get),
      loss: get('train', 'loss') ?? get('progress', 'loss'),
      evalLoss: get('eval', 'eval_loss') ?? get('train', 'eval_loss') ?? get('progress', 'eval_loss'),
      nonFiniteLoss: group.nonFiniteLoss,
      source,
      metrics: [...group.series.entries()]
        .filter(([key, data]) => data.length > 0 && !NOT_PLOTTED.has(key.slice(key.indexOf(':') + 1)))
        .map(([key, data]) => ({
          key,
          kind: key.slice(0, key.indexOf(':')),
          name: key.slice(key.indexOf(':') + 1),
          data,
          samples: Math.max(data.length, this.stored?.get(`${source}|${key}`) ?? 0),
        }))
        .sort((a, b) => a.name.localeCompare(b.name) || a.kind.localeCompare(b.kind)),
    };
  }
}

export type MetricXAxis = 'step' | 'tokens' | 'seconds';

/**
 * A series against the x a person chose: the step; the tokens trained on by then (step × tokens per step); or seconds
 * since the start (sorted by time, one point per second value, as the charts need their x in order).
 */
export function onXAxis(data: readonly StepPoint[], axis: MetricXAxis, tokensPerStep: number | null): XY[] {
  if (axis === 'tokens' && tokensPerStep !== null) return data.map((point) => ({ x: point.x * tokensPerStep, y: point.y }));
  if (axis !== 'seconds') return data.slice();
  const byTime: XY[] = [];
  for (const point of [...data].sort((a, b) => a.t - b.t)) placeByStep(byTime, point.t, point.y);
  return byTime;
}

/** Whether a run's points were printed at different times: an import without stamps has them all at 0, and no time axis. */
export function hasTimes(view: MetricsView): boolean {
  for (const entry of view.metrics) {
    const first = entry.data[0];
    if (first !== undefined && entry.data.some((point) => point.t !== first.t)) return true;
  }
  return false;
}

function pickThroughput(get: (kind: string, name: string) => StepPoint[] | null): ThroughputSeries | null {
  for (const kind of TIMING_KINDS) {
    for (const rate of RATES) {
      const data = get(kind, rate.name);
      if (data) return { name: rate.name, unit: rate.unit, data };
    }
    // nanoGPT and others print only the time of a step: its inverse is steps per second.
    const stepTimes = get(kind, 'step_time_ms');
    if (stepTimes) {
      const data = stepTimes.filter((p) => p.y > 0).map((p) => ({ x: p.x, y: 1000 / p.y, t: p.t }));
      if (data.length > 0) return { name: 'step_time_ms', unit: 'steps/s', data };
    }
  }
  return null;
}

/** How the note under the loss chart reads: "NaN in loss at step 120". */
export function describeNonFiniteLoss(bad: NonFiniteLoss): string {
  const what = bad.value === 'nan' ? 'NaN' : bad.value === 'inf' ? '+Inf' : '-Inf';
  return bad.step === null ? `${what} in ${bad.name}` : `${what} in ${bad.name} at step ${bad.step}`;
}
