// The run view's telemetry charts: GPU utilisation, VRAM, power, temperature and SM clock, then host CPU and the run's
// CPU and memory, all against seconds since the start on one shared, linked time axis, with throttling shaded.
import { useMemo } from 'react';
import type { TelemetryView } from './telemetrySeries.js';
import { ChartLink } from '../shared/chartLink.js';
import type { XRange } from '../shared/lineChart.js';
import { MetricChart, type ChartBand, type ChartLine } from './MetricChart.js';
import '../shared/charts.css';
import './RunCharts.css';

interface TelemetryChartsProps {
  runId: number;
  running: boolean;
  view: TelemetryView | null;
  /** True when the run has (or will have) no GPU samples: the GPU charts are left out. */
  hostOnly: boolean;
}

interface ChartSpec {
  testId: string;
  title: string;
  yTitle: string;
  file: string;
  lines: ChartLine[];
  gpu: boolean;
  /** Percentages start at zero; a clock or a temperature reads better around its own range. */
  beginAtZero: boolean;
}

function specs(view: TelemetryView | null): ChartSpec[] {
  const gpu = view?.gpu;
  const host = view?.host;
  const none: never[] = [];
  return [
    {
      testId: 'chart-gpu-util',
      title: 'GPU utilisation',
      yTitle: '%',
      file: 'gpu-util',
      lines: [{ label: 'GPU util', data: gpu?.util ?? none, colour: 'gpu' }],
      gpu: true,
      beginAtZero: true,
    },
    {
      testId: 'chart-gpu-vram',
      title: 'VRAM',
      yTitle: 'MiB',
      file: 'vram',
      lines: [
        { label: 'used', data: gpu?.memUsed ?? none, colour: 'memory' },
        { label: 'total', data: gpu?.memTotal ?? none, colour: 'limit', dashed: true },
      ],
      gpu: true,
      beginAtZero: true,
    },
    {
      testId: 'chart-gpu-power',
      title: 'Power',
      yTitle: 'W',
      file: 'power',
      lines: [
        { label: 'draw', data: gpu?.power ?? none, colour: 'power' },
        { label: 'limit', data: gpu?.powerLimit ?? none, colour: 'limit', dashed: true },
      ],
      gpu: true,
      beginAtZero: true,
    },
    {
      testId: 'chart-gpu-temp',
      title: 'GPU temperature',
      yTitle: '°C',
      file: 'gpu-temperature',
      lines: [{ label: 'temperature', data: gpu?.temp ?? none, colour: 'temperature' }],
      gpu: true,
      beginAtZero: false,
    },
    {
      testId: 'chart-gpu-clock',
      title: 'SM clock',
      yTitle: 'MHz',
      file: 'sm-clock',
      lines: [{ label: 'SM clock', data: gpu?.smClock ?? none, colour: 'clock' }],
      gpu: true,
      beginAtZero: true,
    },
    {
      testId: 'chart-host-cpu',
      title: 'Host CPU',
      yTitle: '% of all cores',
      file: 'host-cpu',
      lines: [{ label: 'CPU total', data: host?.cpuTotal ?? none, colour: 'cpu' }],
      gpu: false,
      beginAtZero: true,
    },
    {
      testId: 'chart-run-cpu',
      title: 'Run CPU',
      yTitle: '% of one core',
      file: 'run-cpu',
      lines: [
        { label: 'process', data: host?.procCpu ?? none, colour: 'cpu' },
        { label: 'top thread', data: host?.busiestThread ?? none, colour: 'thread' },
      ],
      gpu: false,
      beginAtZero: true,
    },
    {
      testId: 'chart-host-rss',
      title: 'Run memory (RSS)',
      yTitle: 'MiB',
      file: 'rss',
      lines: [{ label: 'RSS', data: host?.rss ?? none, colour: 'memory' }],
      gpu: false,
      beginAtZero: true,
    },
  ];
}

export function TelemetryCharts({ runId, running, view, hostOnly }: TelemetryChartsProps) {
  // One link for the charts' life: zooming one chart zooms them all to the same seconds.
  const link = useMemo(() => new ChartLink(), []);
  // New objects only when the samples moved on, so a chart redraws at the feed's pace, not at every render.
  const charts = useMemo(() => specs(view), [view]);
  const lastSeconds = view?.lastSeconds ?? 0;
  const xRange = useMemo<XRange | null>(() => (lastSeconds > 0 ? { min: 0, max: lastSeconds } : null), [lastSeconds]);
  const bands = useMemo<readonly ChartBand[]>(() => view?.throttle ?? [], [view]);
  const shown = hostOnly ? charts.filter((chart) => !chart.gpu) : charts;
  return (
    <div className={`charts telemetry ${hostOnly ? 'host-only' : ''}`} data-testid="telemetry-charts">
      {shown.map((chart) => (
        <MetricChart
          key={chart.testId}
          testId={chart.testId}
          title={chart.title}
          yTitle={chart.yTitle}
          lines={chart.lines}
          beginAtZero={chart.beginAtZero}
          fileName={`run-${runId}-${chart.file}.png`}
          emptyText={running ? (chart.gpu ? 'Waiting for GPU samples…' : 'Waiting for host samples…') : 'No samples recorded'}
          axis="seconds"
          xRange={xRange}
          bands={chart.gpu ? bands : undefined}
          bandColour="throttle"
          bandLegend={chart.gpu ? 'throttled' : undefined}
          link={link}
        />
      ))}
    </div>
  );
}
