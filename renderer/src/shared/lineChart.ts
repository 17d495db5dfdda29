// What every line chart of the app shares, whatever it draws: a linear x axis of steps or seconds, zoom and pan on x,
// decimation, the tooltip, and the colours and titles that follow the scheme and the data.
import type { Chart, ChartDataset, ChartOptions, Plugin, Point } from 'chart.js';
// For its option types (`plugins.zoom`); chartSetup.ts registers the plugin itself.
import type {} from 'chartjs-plugin-zoom';
import { formatNumber } from './format.js';

export type LineChart = Chart<'line', Point[]>;
export type LineDataset = ChartDataset<'line', Point[]>;

/** What x is: a training step, the tokens trained on so far, or seconds since the run started. */
export type ChartAxis = 'step' | 'tokens' | 'seconds';

export interface XRange {
  min: number;
  max: number;
}

export interface XAxis {
  unit: ChartAxis;
  /** The axis' title under the plot; null where a panel's header says it once for many small charts. */
  title: string | null;
  tick: (value: number) => string;
  /** Labels only at whole numbers: a zoomed axis starts and ends between steps, and chart.js labels those ends too. */
  wholeTicks: boolean;
}

export const STEP_AXIS: XAxis = {
  unit: 'step',
  title: 'step',
  tick: (value) => Math.round(value).toLocaleString(),
  wholeTicks: true,
};

/** `1.2M`, `350k`: a token count short enough for a tick. */
function compactCount(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e9) return `${+(value / 1e9).toPrecision(3)}G`;
  if (abs >= 1e6) return `${+(value / 1e6).toPrecision(3)}M`;
  if (abs >= 1e3) return `${+(value / 1e3).toPrecision(3)}k`;
  return `${Math.round(value)}`;
}

export const TOKENS_AXIS: XAxis = { unit: 'tokens', title: 'tokens', tick: compactCount, wholeTicks: true };

/** `42`, `2:05`, `1:02:05`: seconds since the start. */
export function formatElapsed(value: number): string {
  const seconds = Math.round(value);
  if (seconds < 120) return `${seconds}`;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const ss = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

export const TIME_AXIS: XAxis = { unit: 'seconds', title: 'seconds since start', tick: formatElapsed, wholeTicks: true };

/** The x axis a chart of a run's metrics can be drawn against. */
export const METRIC_X_AXES: Readonly<Record<'step' | 'tokens' | 'seconds', XAxis>> = { step: STEP_AXIS, tokens: TOKENS_AXIS, seconds: TIME_AXIS };

/**
 * A line smoothed as TensorBoard smooths it: an exponential moving average whose start is debiased (divided by the
 * weight not yet given), so the first points are not pulled towards zero. `weight` 0 is the line itself; 0.99 is
 * very smooth. Non-finite values pass through and do not enter the average.
 */
export function smoothLine<P extends { x: number; y: number }>(points: readonly P[], weight: number): P[] {
  if (weight <= 0) return points.slice();
  const w = Math.min(weight, 0.999);
  let average = 0;
  let count = 0;
  return points.map((point) => {
    if (!Number.isFinite(point.y)) return point;
    count += 1;
    average = average * w + (1 - w) * point.y;
    const debias = 1 - w ** count;
    return { ...point, y: average / debias };
  });
}

/** LTTB down to `samples` points a line (the chart's width in pixels when absent) once more than `threshold` are visible. */
export interface Decimation {
  threshold: number;
  samples?: number;
}

/** What differs from chart to chart in how it is made; read once, when the chart is made. */
export interface LineChartSetup {
  x: XAxis;
  decimation: Decimation;
  /** A last tooltip line for the point at x (what else was true there); none when empty. */
  tooltipFooter?: (x: number) => string;
  /** Drawing of the chart's own (shaded intervals), after the page's background. */
  plugins?: Array<Plugin<'line'>>;
}

/** What the chart shows now, besides its lines: each change is set in place and redrawn. */
export interface LineChartContent {
  /** The y axis' title: the unit, where there is one. */
  yTitle: string;
  beginAtZero: boolean;
  /** A fixed x range, so charts side by side line up; the data's own extent when absent. A person's zoom wins. */
  xRange?: XRange | null;
  /** A logarithmic y axis (a loss over orders of magnitude); only positive values are drawn then. */
  logY?: boolean;
  /** What x is now, where a person may choose (step, tokens, time); the setup's axis when absent. */
  x?: XAxis;
}

export function lineChartOptions(setup: LineChartSetup, onZoomChange: (chart: LineChart) => void): ChartOptions<'line'> {
  const { x, decimation, tooltipFooter } = setup;
  const seconds = x.unit === 'seconds';
  return {
    // The data are {x, y} sorted by x with one point per x: chart.js may skip parsing and sorting, and the decimation
    // plugin requires exactly that.
    parsing: false,
    normalized: true,
    animation: false,
    responsive: true,
    maintainAspectRatio: false,
    interaction: { mode: 'nearest', axis: 'x', intersect: false },
    scales: {
      x: {
        type: 'linear',
        title: { display: x.title !== null, text: x.title ?? '' },
        ticks: {
          ...(x.wholeTicks ? { precision: 0 } : {}),
          maxTicksLimit: seconds ? 6 : 8,
          callback: (value) => x.tick(Number(value)),
        },
      },
      y: { type: 'linear', title: { display: true }, ticks: { maxTicksLimit: 6 } },
    },
    plugins: {
      decimation: { enabled: true, algorithm: 'lttb', ...decimation },
      tooltip: {
        callbacks: {
          title: (items) => {
            const at = items[0]?.parsed.x;
            if (at === undefined || at === null) return '';
            return axisPoint(seconds ? 'seconds' : x.unit, at);
          },
          label: (item) => `${item.dataset.label ?? ''}: ${formatNumber(item.parsed.y, 4)}`,
          ...(tooltipFooter
            ? {
                footer: (items) => {
                  const at = items[0]?.parsed.x;
                  return at === undefined || at === null ? '' : tooltipFooter(at);
                },
              }
            : {}),
        },
      },
      zoom: {
        // Wheel or a dragged range zooms x; Shift+drag pans it. The y axis follows what is visible.
        zoom: {
          mode: 'x',
          wheel: { enabled: true },
          drag: { enabled: true, threshold: 5 },
          pinch: { enabled: true },
          onZoomComplete: ({ chart }) => onZoomChange(chart as LineChart),
        },
        pan: {
          enabled: true,
          mode: 'x',
          modifierKey: 'shift',
          onPanComplete: ({ chart }) => onZoomChange(chart as LineChart),
        },
        limits: { x: { min: 'original', max: 'original' } },
      },
    },
  };
}

/** A point's x as a tooltip names it: `step 120`, `1.2M tokens`, `42.5 s since start`. */
export function axisPoint(unit: ChartAxis, at: number): string {
  if (unit === 'seconds') return `${formatNumber(at, 4)} s since start`;
  if (unit === 'tokens') return `${compactCount(at)} tokens`;
  return `step ${at}`;
}

/** `#rrggbb` at this opacity; a canvas does not take every CSS colour syntax (color-mix), so the mix is made here. */
export function withAlpha(hex: string, alpha: number): string {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/iu.exec(hex);
  if (!match) return `rgba(128, 128, 128, ${alpha})`;
  const [r, g, b] = match.slice(1).map((part) => parseInt(part, 16));
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

/** The theme's colours for what every chart has: text, grid lines and the dragged zoom range (see ChartTheme). */
export interface FrameColours {
  text: string;
  grid: string;
  accent: string;
}

/** Colours, the y title and the x range, set on the options in place before a draw. */
export function styleLineChart(options: ChartOptions<'line'>, content: LineChartContent, theme: FrameColours, zoomed: boolean): void {
  const { x, y } = options.scales ?? {};
  for (const scale of [x, y]) {
    if (!scale) continue;
    scale.grid = { color: theme.grid };
    scale.border = { color: theme.grid };
    // The ticks are copied once a draw: copying the copy again at once made chart.js's option resolver call a scale's
    // `_scriptable` descriptor with a context ("name.startsWith is not a function"), and the page went blank.
    const tick = scale === x && content.x ? content.x.tick : null;
    scale.ticks = { ...scale.ticks, color: theme.text, ...(tick ? { callback: (value: string | number) => tick(Number(value)) } : {}) };
    if ('title' in scale && scale.title) scale.title.color = theme.text;
  }
  if (y?.type === 'linear' || y?.type === 'logarithmic') {
    // Set whether or not the key is there yet: before the chart is made, chart.js has not filled in its defaults.
    y.title = { ...y.title, text: content.logY ? `${content.yTitle} (log)` : content.yTitle };
    // Set only when it changes: chart.js rebuilds a scale whose type is assigned.
    const type = content.logY ? 'logarithmic' : 'linear';
    if (y.type !== type) y.type = type;
    // A log axis has no zero; a linear one starts there where asked (the key only a linear scale has).
    (y as { beginAtZero?: boolean }).beginAtZero = content.logY ? false : content.beginAtZero;
  }
  if (x && content.x) {
    const axis = content.x;
    x.title = { ...x.title, display: axis.title !== null, text: axis.title ?? '' };
    const callbacks = options.plugins?.tooltip?.callbacks;
    if (callbacks) {
      callbacks.title = (items) => {
        const at = items[0]?.parsed.x;
        return at === undefined || at === null ? '' : axisPoint(axis.unit, at);
      };
    }
  }
  // A person's zoom wins over the shared range; it comes back with Reset zoom.
  if (x && content.xRange && !zoomed) {
    x.min = content.xRange.min;
    x.max = content.xRange.max;
  }
  const drag = options.plugins?.zoom?.zoom?.drag;
  if (drag) {
    drag.backgroundColor = withAlpha(theme.accent, 0.18);
    drag.borderColor = theme.accent;
    drag.borderWidth = 1;
  }
}
