// One run's metrics for the charts: the stored points, then live ones, redrawn at most twice a second.
import type { ApiClient, MetricPoint } from '../../electron/shared/api.js';
import type { Bridge } from './bridge/types.js';
import { errorMessage } from './format.js';
import { MetricSeriesSet, type MetricsView } from './metricSeries.js';

/** ~2 redraws a second: the engine batches points ~4 times a second, and a chart redraw of 100k points is not free. */
export const REDRAW_INTERVAL_MS = 500;

export type MetricsSnapshot =
  | { status: 'loading' }
  | { status: 'failed'; error: string }
  /** `points`: how many points the run has so far, plotted or not. */
  | { status: 'ready'; view: MetricsView; points: number };

export interface RunMetricsFeedOptions {
  runId: number;
  api: Pick<ApiClient, 'runs.metrics'>;
  on: Bridge['on'];
  onChange: (snapshot: MetricsSnapshot) => void;
}

export class RunMetricsFeed {
  private series: MetricSeriesSet | null = null;
  /** Live points that came while the stored ones were being fetched; put on top of them once they are in. */
  private held: MetricPoint[] = [];
  private fetching = 0;
  private redrawTimer: ReturnType<typeof setTimeout> | undefined;
  private lastRedraw = 0;
  private disposed = false;
  private readonly offMetrics: () => void;

  constructor(private readonly options: RunMetricsFeedOptions) {
    // Subscribed before the first fetch, so nothing recorded while it is in flight is lost.
    this.offMetrics = options.on('runs.onMetrics', (event) => {
      if (event.runId === options.runId) this.live(event.points);
    });
  }

  /**
   * (Re)loads everything stored: on open, after a reconnect (events sent meanwhile are gone), and once the run has
   * ended (its last points, and any the engine read from the channel file as the run closed, are all stored then).
   * A point that comes both live and in the fetch lands on the same step and replaces itself.
   */
  reload(): void {
    const generation = ++this.fetching;
    this.held = [];
    this.options.api['runs.metrics']({ id: this.options.runId }).then(
      (points) => {
        if (this.disposed || generation !== this.fetching) return;
        const series = new MetricSeriesSet();
        series.add(points);
        series.add(this.held);
        this.held = [];
        this.series = series;
        this.fetching = 0;
        this.redrawNow();
      },
      (error: unknown) => {
        if (this.disposed || generation !== this.fetching) return;
        this.fetching = 0;
        // Stored points already on screen stay, with what came live meanwhile; a first load that failed says why.
        if (this.series) {
          this.series.add(this.held);
          this.held = [];
          this.redrawNow();
        } else this.options.onChange({ status: 'failed', error: errorMessage(error) });
      },
    );
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.redrawTimer);
    this.offMetrics();
  }

  private live(points: readonly MetricPoint[]): void {
    if (this.disposed) return;
    if (this.fetching !== 0 || !this.series) {
      this.held.push(...points);
      return;
    }
    this.series.add(points);
    this.scheduleRedraw();
  }

  private scheduleRedraw(): void {
    if (this.redrawTimer !== undefined) return;
    const wait = Math.max(0, this.lastRedraw + REDRAW_INTERVAL_MS - Date.now());
    this.redrawTimer = setTimeout(() => this.redrawNow(), wait);
  }

  private redrawNow(): void {
    clearTimeout(this.redrawTimer);
    this.redrawTimer = undefined;
    if (this.disposed || !this.series) return;
    this.lastRedraw = Date.now();
    this.options.onChange({ status: 'ready', view: this.series.view(), points: this.series.size });
  }
}
