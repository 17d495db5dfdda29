// One run's telemetry for the charts: the stored samples, then live ones, redrawn at most twice a second.
import type { ApiClient, GpuTelemetryPoint, HostTelemetryPoint } from '../../electron/shared/api.js';
import type { Bridge } from './bridge/types.js';
import { errorMessage } from './format.js';
import { REDRAW_INTERVAL_MS } from './metricsFeed.js';
import { TelemetrySeriesSet, type TelemetryView } from './telemetrySeries.js';

export type TelemetrySnapshot =
  | { status: 'loading' }
  | { status: 'failed'; error: string }
  | { status: 'ready'; view: TelemetryView };

export interface RunTelemetryFeedOptions {
  runId: number;
  api: Pick<ApiClient, 'runs.telemetry'>;
  on: Bridge['on'];
  onChange: (snapshot: TelemetrySnapshot) => void;
}

interface Held {
  gpu: GpuTelemetryPoint[];
  host: HostTelemetryPoint[];
}

/** Same life as RunMetricsFeed: samples come 6 times a second (GPU 4/s, host 2/s), the charts redraw twice a second. */
export class RunTelemetryFeed {
  private series: TelemetrySeriesSet | null = null;
  private held: Held = { gpu: [], host: [] };
  private fetching = 0;
  private redrawTimer: ReturnType<typeof setTimeout> | undefined;
  private lastRedraw = 0;
  private disposed = false;
  private readonly offTelemetry: () => void;

  constructor(private readonly options: RunTelemetryFeedOptions) {
    // Subscribed before the first fetch, so nothing sampled while it is in flight is lost.
    this.offTelemetry = options.on('runs.onTelemetry', (event) => {
      if (event.runId === options.runId) this.live(event.gpu, event.host);
    });
  }

  /** (Re)loads everything stored: on open, after a reconnect, and once the run has ended. */
  reload(): void {
    const generation = ++this.fetching;
    this.held = { gpu: [], host: [] };
    this.options.api['runs.telemetry']({ id: this.options.runId }).then(
      ({ gpu, host }) => {
        if (this.disposed || generation !== this.fetching) return;
        const series = new TelemetrySeriesSet();
        series.addGpu(gpu);
        series.addHost(host);
        this.addHeld(series);
        this.series = series;
        this.fetching = 0;
        this.redrawNow();
      },
      (error: unknown) => {
        if (this.disposed || generation !== this.fetching) return;
        this.fetching = 0;
        if (this.series) {
          this.addHeld(this.series);
          this.redrawNow();
        } else this.options.onChange({ status: 'failed', error: errorMessage(error) });
      },
    );
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.redrawTimer);
    this.offTelemetry();
  }

  private addHeld(series: TelemetrySeriesSet): void {
    series.addGpu(this.held.gpu);
    series.addHost(this.held.host);
    this.held = { gpu: [], host: [] };
  }

  private live(gpu: GpuTelemetryPoint | undefined, host: HostTelemetryPoint | undefined): void {
    if (this.disposed) return;
    if (this.fetching !== 0 || !this.series) {
      if (gpu) this.held.gpu.push(gpu);
      if (host) this.held.host.push(host);
      return;
    }
    if (gpu) this.series.addGpu([gpu]);
    if (host) this.series.addHost([host]);
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
    this.options.onChange({ status: 'ready', view: this.series.view() });
  }
}
