// One run's telemetry for the charts: the stored samples, then live ones, redrawn at most twice a second.
import type { ApiClient, GpuTelemetryPoint, HostTelemetryPoint } from '../../../electron/shared/api.js';
import type { Bridge } from '../bridge/types.js';
import { LiveFeed, type FeedSnapshot } from './liveFeed.js';
import { TelemetrySeriesSet, type TelemetryView } from './telemetrySeries.js';

export type TelemetrySnapshot = FeedSnapshot<{ view: TelemetryView }>;

export interface RunTelemetryFeedOptions {
  runId: number;
  api: Pick<ApiClient, 'runs.telemetry'>;
  on: Bridge['on'];
  onChange: (snapshot: TelemetrySnapshot) => void;
}

interface LiveSample {
  gpu: GpuTelemetryPoint | undefined;
  host: HostTelemetryPoint | undefined;
}

/** Samples come 6 times a second (GPU 4/s, host 2/s); the charts redraw twice a second. */
export class RunTelemetryFeed extends LiveFeed<TelemetrySeriesSet, LiveSample, { view: TelemetryView }> {
  constructor(options: RunTelemetryFeedOptions) {
    super(
      {
        subscribe: (take) =>
          options.on('runs.onTelemetry', (event) => {
            if (event.runId === options.runId) take({ gpu: event.gpu, host: event.host });
          }),
        fetch: async () => {
          const { gpu, host } = await options.api['runs.telemetry']({ id: options.runId });
          const series = new TelemetrySeriesSet();
          series.addGpu(gpu);
          series.addHost(host);
          return series;
        },
        add: (series, { gpu, host }) => {
          if (gpu) series.addGpu([gpu]);
          if (host) series.addHost([host]);
        },
        view: (series) => ({ view: series.view() }),
      },
      options.onChange,
    );
  }
}
