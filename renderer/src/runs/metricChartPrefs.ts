// How a person likes a run's metric charts, kept across runs and reloads: the x axis, the smoothing, log scales, the metrics added.
import type { ChartView } from '../shared/ChartViewControls.js';

export interface MetricChartPrefs extends ChartView {
  /** Log y per chart, by the chart's key (`throughput`, `loss`, or a metric's `kind:name`). */
  logY: Record<string, boolean>;
  /** Metrics added beside throughput and loss, by `kind:name`, in the order added. */
  extra: string[];
}

const PREFS_KEY = 'tuning-bench.metricCharts';
/** More added charts than this is a wall; the picker says so rather than grow the panel without end. */
export const MAX_EXTRA_CHARTS = 8;

export const DEFAULT_METRIC_CHART_PREFS: MetricChartPrefs = { x: 'step', smoothing: 0, logY: {}, extra: [] };

export function readMetricChartPrefs(): MetricChartPrefs {
  try {
    const parsed: unknown = JSON.parse(window.localStorage.getItem(PREFS_KEY) ?? '{}');
    const raw = (parsed !== null && typeof parsed === 'object' ? parsed : {}) as Record<string, unknown>;
    const x = raw.x === 'tokens' || raw.x === 'seconds' ? raw.x : 'step';
    const smoothing = typeof raw.smoothing === 'number' && raw.smoothing >= 0 && raw.smoothing < 1 ? raw.smoothing : 0;
    const logY: Record<string, boolean> = {};
    if (raw.logY !== null && typeof raw.logY === 'object') for (const [key, on] of Object.entries(raw.logY)) if (on === true) logY[key] = true;
    const extra = Array.isArray(raw.extra) ? raw.extra.filter((key): key is string => typeof key === 'string').slice(0, MAX_EXTRA_CHARTS) : [];
    return { x, smoothing, logY, extra };
  } catch {
    // Storage switched off, or something else's value: the defaults.
    return DEFAULT_METRIC_CHART_PREFS;
  }
}

export function writeMetricChartPrefs(prefs: MetricChartPrefs): void {
  try {
    window.localStorage.setItem(PREFS_KEY, JSON.stringify(prefs));
  } catch {
    // Not remembered, and nothing else lost.
  }
}
