// One run's metrics for the charts: the stored points, then live ones, redrawn at most twice a second.
import type { ApiClient, MetricPoint } from '../../../electron/shared/api.js';
import type { Bridge } from '../bridge/types.js';
import { LiveFeed, type FeedSnapshot } from './liveFeed.js';
import { MetricSeriesSet, type MetricsView } from '../shared/runRecord/metricSeries.js';

/** Stored points fetched a metric at most: of a longer one, the first, last, lowest and highest of each of 2,000 stretches, so spikes stay. */
const CHART_POINTS_PER_METRIC = 8000;

/** `points`: how many points the run has so far, plotted or not. */
export type MetricsSnapshot = FeedSnapshot<{ view: MetricsView; points: number }>;

export interface RunMetricsFeedOptions {
  runId: number;
  api: Pick<ApiClient, 'runs.chartMetrics'>;
  on: Bridge['on'];
  onChange: (snapshot: MetricsSnapshot) => void;
}

export class RunMetricsFeed extends LiveFeed<MetricSeriesSet, readonly MetricPoint[], { view: MetricsView; points: number }> {
  private readonly offReplaced: () => void;

  constructor(options: RunMetricsFeedOptions) {
    super(
      {
        subscribe: (take) =>
          options.on('runs.onMetrics', (event) => {
            if (event.runId === options.runId) take(event.points);
          }),
        fetch: async () => {
          const series = new MetricSeriesSet();
          // Thinned to a few thousand points a metric: a run of millions of steps loads in a moment, and the chart
          // draws about that many anyway (MetricChart's LTTB).
          const { points, stored } = await options.api['runs.chartMetrics']({ id: options.runId, maxPointsPerMetric: CHART_POINTS_PER_METRIC });
          series.add(points);
          series.setStored(stored);
          return series;
        },
        add: (series, points) => series.add(points),
        view: (series) => ({ view: series.view(), points: series.size }),
      },
      options.onChange,
    );
    // Parsed again (a regex saved, today's parsers): what is drawn is gone, so it is fetched anew.
    this.offReplaced = options.on('runs.onMetricsReplaced', (event) => {
      if (event.runId === options.runId) this.reload();
    });
  }

  override dispose(): void {
    this.offReplaced();
    super.dispose();
  }
}
