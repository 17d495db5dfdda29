// What every line chart of the app shares, whatever it draws: a linear x axis of steps or seconds, zoom and pan on x,
// decimation, the tooltip, and the colours and titles that follow the scheme and the data.
import type { Chart, ChartDataset, ChartOptions, Plugin, Point } from 'chart.js';
// For its option types (`plugins.zoom`); chartSetup.ts registers the plugin itself.
import type {} from 'chartjs-plugin-zoom';
import { formatNumber } from './format.js';

export type LineChart = Chart<'line', Point[]>;
export type LineDataset = ChartDataset<'line', Point[]>;

/** What x is: a training step or seconds since the run started. */
export type ChartAxis = 'step' | 'seconds';

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
}

export function lineChartOptions(
  setup: LineChartSetup,
  onZoomChange: (chart: LineChart) => void,
): ChartOptions<'line'> {
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
            return seconds ? `${formatNumber(at, 4)} s since start` : `step ${at}`;
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
export function styleLineChart(
  options: ChartOptions<'line'>,
  content: LineChartContent,
  theme: FrameColours,
  zoomed: boolean,
): void {
  const { x, y } = options.scales ?? {};
  for (const scale of [x, y]) {
    if (!scale) continue;
    scale.grid = { color: theme.grid };
    scale.border = { color: theme.grid };
    scale.ticks = { ...scale.ticks, color: theme.text };
    if ('title' in scale && scale.title) scale.title.color = theme.text;
  }
  if (y?.type === 'linear') {
    // Set whether or not the key is there yet: before the chart is made, chart.js has not filled in its defaults.
    y.title = { ...y.title, text: content.yTitle };
    y.beginAtZero = content.beginAtZero;
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
