// One line chart of a run's metric or telemetry against step or time: zoom and pan on x (linked across a group),
// reset, Save PNG, shaded intervals, colours that follow the scheme.
import { useEffect, useRef, useState } from 'react';
import type { ChartDataset, ChartOptions, Plugin } from 'chart.js';
import { canvasBackground, Chart, chartTheme, type ChartTheme, type LineColour } from '../shared/chartSetup.js';
import { downloadUrl } from '../shared/download.js';
import { formatNumber } from '../shared/format.js';
import type { XY } from './metricSeries.js';
import { darkScheme } from '../terminal/xtermThemes.js';

export interface ChartLine {
  label: string;
  data: readonly XY[];
  colour: LineColour;
  /** Sparse values (evaluations) get a marker at each point; dense ones are a plain line. */
  markers?: boolean;
  /** A bound rather than a measurement (VRAM total, power limit): drawn dashed. */
  dashed?: boolean;
}

/** An x interval shaded behind the lines (GPU throttling), named in the tooltip of any point inside it. */
export interface ChartBand {
  from: number;
  to: number;
  label: string;
}

export type ChartAxis = 'step' | 'seconds';

export interface XRange {
  min: number;
  max: number;
}

type LineChart = Chart<'line', XY[]>;

interface LinkMember {
  chart: LineChart;
  setZoomed: (zoomed: boolean) => void;
}

/** Charts that zoom, pan and reset together: the telemetry charts read one time axis. */
export class ChartLink {
  private readonly members = new Set<LinkMember>();

  join(member: LinkMember): () => void {
    this.members.add(member);
    return () => {
      this.members.delete(member);
    };
  }

  /** Set while the link itself moves the charts: their own zoom callbacks (reset calls them too) must not echo. */
  private moving = false;

  /** One chart's x range changed by a person: the others show the same range. */
  follow(source: LineChart): void {
    if (this.moving || !source.isZoomedOrPanned()) return;
    const { min, max } = source.scales.x!;
    this.moving = true;
    try {
      for (const member of this.members) {
        if (member.chart === source) continue;
        member.chart.zoomScale('x', { min, max }, 'none');
        member.setZoomed(true);
      }
    } finally {
      this.moving = false;
    }
  }

  reset(): void {
    this.moving = true;
    try {
      for (const member of this.members) {
        member.chart.resetZoom('none');
        member.setZoomed(false);
      }
    } finally {
      this.moving = false;
    }
  }
}

interface MetricChartProps {
  testId: string;
  title: string;
  /** The y axis' title: the unit, where there is one. */
  yTitle: string;
  /** Pass the same array until the data changes: each new one redraws the chart. */
  lines: readonly ChartLine[];
  beginAtZero: boolean;
  fileName: string;
  emptyText: string;
  /** What x is: a training step (the default) or seconds since the run started. */
  axis?: ChartAxis;
  /** A fixed x range, so charts side by side line up; the data's own extent when absent. Kept while zoomed. */
  xRange?: XRange | null;
  bands?: readonly ChartBand[];
  /** The band colour, and the tooltip's word for a point inside a band. */
  bandColour?: LineColour;
  link?: ChartLink;
  /** Shown on the chart card for a person: what the bands mean. */
  bandLegend?: string;
}

/** LTTB keeps a line's shape with about this many points, whatever the run's length (chart.js's own suggestion is ~width). */
const DECIMATED_SAMPLES = 500;
/** Below this many visible points a line is drawn as is: decimating is for long runs, not for the first minute. */
const DECIMATION_THRESHOLD = 1000;

function bandAt(bands: readonly ChartBand[], x: number): ChartBand | undefined {
  return bands.find((band) => x >= band.from && x <= band.to);
}

function formatSecondsTick(value: number): string {
  const seconds = Math.round(value);
  if (seconds < 120) return `${seconds}`;
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

function baseOptions(onZoomChange: (chart: LineChart) => void, axis: ChartAxis, bands: () => readonly ChartBand[]): ChartOptions<'line'> {
  const seconds = axis === 'seconds';
  return {
    // The data are {x, y} sorted by step with one point per step: chart.js may skip parsing and sorting, and the
    // decimation plugin requires exactly that.
    parsing: false,
    normalized: true,
    animation: false,
    responsive: true,
    maintainAspectRatio: false,
    interaction: { mode: 'nearest', axis: 'x', intersect: false },
    scales: {
      x: {
        type: 'linear',
        // Eight small time charts say "seconds since start" once, in the panel's header, not under each plot.
        title: { display: !seconds, text: 'step' },
        // A zoomed axis starts and ends between steps, and chart.js labels those ends too: steps are whole numbers.
        ticks: {
          precision: 0,
          maxTicksLimit: seconds ? 6 : 8,
          callback: (value) => (seconds ? formatSecondsTick(Number(value)) : Math.round(Number(value)).toLocaleString()),
        },
      },
      y: { type: 'linear', title: { display: true }, ticks: { maxTicksLimit: 6 } },
    },
    plugins: {
      decimation: { enabled: true, algorithm: 'lttb', samples: DECIMATED_SAMPLES, threshold: DECIMATION_THRESHOLD },
      tooltip: {
        callbacks: {
          title: (items) => {
            const x = items[0]?.parsed.x;
            if (x === undefined || x === null) return '';
            return seconds ? `${formatNumber(x, 4)} s since start` : `step ${x}`;
          },
          label: (item) => `${item.dataset.label ?? ''}: ${formatNumber(item.parsed.y, 4)}`,
          footer: (items) => {
            const x = items[0]?.parsed.x;
            const band = x === undefined || x === null ? undefined : bandAt(bands(), x);
            return band ? `throttled: ${band.label}` : '';
          },
        },
      },
      zoom: {
        // Wheel or a dragged range zooms the steps; Shift+drag pans them. The y axis follows what is visible.
        zoom: {
          mode: 'x',
          wheel: { enabled: true },
          drag: { enabled: true, threshold: 5 },
          pinch: { enabled: true },
          onZoomComplete: ({ chart }) => onZoomChange(chart as LineChart),
        },
        pan: { enabled: true, mode: 'x', modifierKey: 'shift', onPanComplete: ({ chart }) => onZoomChange(chart as LineChart) },
        limits: { x: { min: 'original', max: 'original' } },
      },
    },
  };
}

/** `#rrggbb` at this opacity; a canvas does not take every CSS colour syntax (color-mix), so the selection is made here. */
function withAlpha(hex: string, alpha: number): string {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/iu.exec(hex);
  if (!match) return `rgba(128, 128, 128, ${alpha})`;
  const [r, g, b] = match.slice(1).map((part) => parseInt(part, 16));
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

type SyncProps = Pick<MetricChartProps, 'lines' | 'yTitle' | 'beginAtZero' | 'xRange' | 'bands' | 'bandColour'>;

/** Shades each band over the plot area, under the lines. */
function bandsPlugin(props: () => SyncProps, theme: () => ChartTheme): Plugin<'line'> {
  return {
    id: 'tuningBenchBands',
    beforeDatasetsDraw(chart) {
      const { bands, bandColour } = props();
      const x = chart.scales.x;
      if (!bands || bands.length === 0 || !x) return;
      const area = chart.chartArea;
      const { ctx } = chart;
      ctx.save();
      ctx.beginPath();
      ctx.rect(area.left, area.top, area.width, area.height);
      ctx.clip();
      ctx.fillStyle = withAlpha(theme()[bandColour ?? 'throttle'], 0.16);
      for (const band of bands) {
        const left = x.getPixelForValue(band.from);
        // A band of one sample still shows: at least two pixels wide.
        const right = Math.max(x.getPixelForValue(band.to), left + 2);
        if (right < area.left || left > area.right) continue;
        ctx.fillRect(left, area.top, right - left, area.height);
      }
      ctx.restore();
    },
  };
}

/** Colours, axis titles and data: everything that follows the props or the scheme, set in place. */
function sync(chart: LineChart, props: SyncProps, theme: ChartTheme): void {
  const datasets = chart.data.datasets;
  const sameLines = datasets.length === props.lines.length && props.lines.every((line, i) => datasets[i]!.label === line.label);
  if (!sameLines) chart.data.datasets = props.lines.map((line) => ({ label: line.label, data: [] }));
  props.lines.forEach((line, i) => {
    const dataset = chart.data.datasets[i] as ChartDataset<'line', XY[]>;
    // A copy: chart.js patches the methods of arrays it is given, and the set's arrays keep growing under it.
    dataset.data = line.data.slice();
    dataset.borderColor = theme[line.colour];
    dataset.backgroundColor = theme[line.colour];
    dataset.borderWidth = line.markers ? 1.5 : 1.75;
    dataset.pointRadius = line.markers ? 3 : 0;
    dataset.pointHoverRadius = 4;
    dataset.borderDash = line.markers ? [4, 3] : line.dashed ? [6, 4] : [];
    if (line.dashed) dataset.borderWidth = 1.25;
  });

  const { x, y } = chart.options.scales ?? {};
  for (const scale of [x, y]) {
    if (!scale) continue;
    scale.grid = { color: theme.grid };
    scale.border = { color: theme.grid };
    scale.ticks = { ...scale.ticks, color: theme.text };
    if ('title' in scale && scale.title) scale.title.color = theme.text;
  }
  if (y && 'title' in y && y.title) y.title.text = props.yTitle;
  if (y && 'beginAtZero' in y) y.beginAtZero = props.beginAtZero;
  // A person's zoom wins over the shared range; it comes back with Reset zoom.
  if (x && props.xRange && !chart.isZoomedOrPanned()) {
    x.min = props.xRange.min;
    x.max = props.xRange.max;
  }
  const plugins = chart.options.plugins!;
  if (plugins.zoom?.zoom?.drag) {
    plugins.zoom.zoom.drag.backgroundColor = withAlpha(theme.accent, 0.18);
    plugins.zoom.zoom.drag.borderColor = theme.accent;
    plugins.zoom.zoom.drag.borderWidth = 1;
  }
  chart.update('none');
}

export function MetricChart({
  testId,
  title,
  yTitle,
  lines,
  beginAtZero,
  fileName,
  emptyText,
  axis = 'step',
  xRange = null,
  bands,
  bandColour,
  link,
  bandLegend,
}: MetricChartProps) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const chartRef = useRef<LineChart | null>(null);
  const themeRef = useRef<ChartTheme | null>(null);
  /** What the chart shows now, for the scheme listener, which outlives any one render. */
  const propsRef = useRef<SyncProps>({ lines, yTitle, beginAtZero, xRange, bands, bandColour });
  const [zoomed, setZoomed] = useState(false);
  // The chart is made once, with the axis and link of its first render (a chart group keeps one link for its life).
  const axisRef = useRef(axis);
  const linkRef = useRef(link);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    const theme = chartTheme();
    themeRef.current = theme;
    const chart: LineChart = new Chart(canvas, {
      type: 'line',
      data: { datasets: [] },
      options: baseOptions(
        (c) => {
          setZoomed(c.isZoomedOrPanned());
          linkRef.current?.follow(c);
        },
        axisRef.current,
        () => propsRef.current.bands ?? [],
      ),
      plugins: [
        canvasBackground(() => themeRef.current?.background ?? theme.background),
        bandsPlugin(
          () => propsRef.current,
          () => themeRef.current ?? theme,
        ),
      ],
    });
    chartRef.current = chart;
    const leave = linkRef.current?.join({ chart, setZoomed });
    sync(chart, propsRef.current, theme);
    const scheme = darkScheme();
    const onSchemeChange = () => {
      const next = chartTheme();
      themeRef.current = next;
      sync(chart, propsRef.current, next);
    };
    scheme.addEventListener('change', onSchemeChange);
    return () => {
      scheme.removeEventListener('change', onSchemeChange);
      leave?.();
      chart.destroy();
      chartRef.current = null;
    };
  }, []);

  // Only when what is drawn changes: the run view re-renders every second while its run grows.
  useEffect(() => {
    const next = { lines, yTitle, beginAtZero, xRange, bands, bandColour };
    propsRef.current = next;
    const chart = chartRef.current;
    const theme = themeRef.current;
    if (chart && theme) sync(chart, next, theme);
  }, [lines, yTitle, beginAtZero, xRange, bands, bandColour]);

  const resetZoom = () => {
    if (link) {
      link.reset();
      return;
    }
    chartRef.current?.resetZoom();
    setZoomed(false);
  };
  const savePng = () => {
    const chart = chartRef.current;
    if (chart) downloadUrl(chart.toBase64Image('image/png', 1), fileName);
  };

  const points = lines.reduce((sum, line) => sum + line.data.length, 0);
  const legendItems = (
    <span className="chart-legend">
      {lines.map((line) => (
        <span key={line.label} className="legend-item">
          <span
            className={`swatch swatch-${line.colour} ${line.markers ? 'markers' : ''} ${line.dashed ? 'dashed' : ''}`}
            aria-hidden="true"
          />
          {line.label}
        </span>
      ))}
      {bandLegend && bands && bands.length > 0 && (
        <span className="legend-item band-legend" title={[...new Set(bands.map((band) => band.label))].join('; ')}>
          <span className={`swatch band swatch-${bandColour ?? 'throttle'}`} aria-hidden="true" />
          {bandLegend}
        </span>
      )}
    </span>
  );
  return (
    <figure className="chart-card" data-testid={testId} data-points={points} data-bands={bands?.length ?? 0}>
      <figcaption className="chart-toolbar">
        <span className="chart-title">{title}</span>
        {axis === 'step' && lines.length > 1 && legendItems}
        <span className="spacer" />
        <button
          type="button"
          className="button small"
          data-testid="reset-zoom"
          title={axis === 'seconds' ? 'Show the whole run again' : 'Show every step again'}
          disabled={!zoomed}
          onClick={resetZoom}
        >
          {axis === 'seconds' ? 'Reset' : 'Reset zoom'}
        </button>
        <button
          type="button"
          className="button small"
          data-testid="save-chart-png"
          title="Save this chart as a PNG image"
          disabled={points === 0}
          onClick={savePng}
        >
          {axis === 'seconds' ? 'PNG' : 'Save PNG'}
        </button>
      </figcaption>
      {/* Small time charts keep their legend on a row of its own, always there, so the plots of a row line up. */}
      {axis === 'seconds' && <div className="chart-legend-row">{legendItems}</div>}
      <div className="chart-canvas" title="Wheel: zoom · drag: zoom to a range · Shift+drag: pan">
        {/* Hidden, not removed, when empty: the chart keeps its canvas and redraws there when points come. */}
        <canvas ref={canvasRef} className={points === 0 ? 'empty' : undefined} role="img" aria-label={title} />
        {points === 0 && <p className="chart-empty">{emptyText}</p>}
      </div>
    </figure>
  );
}
