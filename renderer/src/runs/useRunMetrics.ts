// A run's metrics as React state (see useRunFeed for when they load and reload).
import { RunMetricsFeed, type MetricsSnapshot } from './metricsFeed.js';
import { useRunFeed, type RunFeedContext } from '../shared/runFeed/useRunFeed.js';

const LOADING: MetricsSnapshot = { status: 'loading' };
const createMetricsFeed = (context: RunFeedContext<MetricsSnapshot>) => new RunMetricsFeed(context);

export function useRunMetrics(runId: number, running: boolean): MetricsSnapshot {
  return useRunFeed(runId, running, createMetricsFeed, LOADING);
}
