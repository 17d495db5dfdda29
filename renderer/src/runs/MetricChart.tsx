// One line chart of a run's metric or telemetry against step or time: zoom and pan on x (linked across a group),
// reset, Save PNG, shaded intervals, colours that follow the scheme.
import { useMemo } from 'react';
import type { Plugin } from 'chart.js';
import { ChartCard } from '../shared/ChartCard.js';
import type { ChartLink } from '../shared/chartLink.js';
import type { ChartTheme, LineColour } from '../shared/chartSetup.js';
import {
  smoothLine,
  STEP_AXIS,
  withAlpha,
  type ChartAxis,
  type LineChartContent,
  type LineChartSetup,
  type LineDataset,
  type XAxis,
  type XRange,
} from '../shared/lineChart.js';
import { useLineChart } from '../shared/useLineChart.js';
import type { XY } from '../shared/runRecord/metricSeries.js';
import './RunCharts.css';

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
  /** What x is when a person chose (step, tokens, time); the axis's own when absent. */
  xAxis?: XAxis;
  /** A log y switch on the card: whether it is on, and what to do when it is switched. */
  logY?: { on: boolean; onChange: (on: boolean) => void };
  /** Smoothing weight, 0 (none) to 0.99: the smoothed line drawn over the raw one, which stays faint behind it. */
  smoothing?: number;
  /** A chart a person added can be removed. */
  onRemove?: () => void;
}

interface MetricContent extends LineChartContent {
  lines: readonly ChartLine[];
  bands: readonly ChartBand[] | undefined;
  bandColour: LineColour | undefined;
  smoothing: number;
}

/** LTTB keeps a line's shape with about this many points, whatever the run's length (chart.js's own suggestion is ~width). */
const DECIMATED_SAMPLES = 500;
/** Below this many visible points a line is drawn as is: decimating is for long runs, not for the first minute. */
const DECIMATION_THRESHOLD = 1000;

function formatSecondsTick(value: number): string {
  const seconds = Math.round(value);
  if (seconds < 120) return `${seconds}`;
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** Eight small time charts say "seconds since start" once, in the panel's header, not under each plot. */
const SECONDS_AXIS: XAxis = { unit: 'seconds', title: null, tick: formatSecondsTick, wholeTicks: true };

function bandAt(bands: readonly ChartBand[], x: number): ChartBand | undefined {
  return bands.find((band) => x >= band.from && x <= band.to);
}

/** Shades each band over the plot area, under the lines. */
function bandsPlugin(content: () => MetricContent, theme: () => ChartTheme): Plugin<'line'> {
  return {
    id: 'tuningBenchBands',
    beforeDatasetsDraw(chart) {
      const { bands, bandColour } = content();
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

function setup(axis: ChartAxis) {
  return (content: () => MetricContent, theme: () => ChartTheme): LineChartSetup => ({
    x: axis === 'seconds' ? SECONDS_AXIS : STEP_AXIS,
    decimation: { samples: DECIMATED_SAMPLES, threshold: DECIMATION_THRESHOLD },
    tooltipFooter: (x) => {
      const band = bandAt(content().bands ?? [], x);
      return band ? `throttled: ${band.label}` : '';
    },
    plugins: [bandsPlugin(content, theme)],
  });
}

/** Opacity of a smoothed line's raw points, behind it: there to see the noise, faint enough to read the trend. */
const RAW_UNDER_SMOOTHED_ALPHA = 0.25;

function datasets(content: MetricContent, theme: ChartTheme): LineDataset[] {
  return content.lines.flatMap((line) => {
    // A copy: chart.js patches the methods of arrays it is given, and the set's arrays keep growing under it.
    // On a log axis only values above zero have a place.
    const data = content.logY ? line.data.filter((point) => point.y > 0) : line.data.slice();
    const line_: LineDataset = {
      label: line.label,
      data,
      borderColor: theme[line.colour],
      backgroundColor: theme[line.colour],
      borderWidth: line.dashed ? 1.25 : line.markers ? 1.5 : 1.75,
      pointRadius: line.markers ? 3 : 0,
      pointHoverRadius: 4,
      borderDash: line.markers ? [4, 3] : line.dashed ? [6, 4] : [],
    };
    // Sparse markers (evaluations) and bounds are not smoothed: there is no noise to take out of them.
    if (content.smoothing <= 0 || line.markers || line.dashed) return [line_];
    const faint = withAlpha(theme[line.colour], RAW_UNDER_SMOOTHED_ALPHA);
    return [
      { ...line_, label: `${line.label} (raw)`, borderColor: faint, backgroundColor: faint, borderWidth: 1 },
      { ...line_, label: `${line.label} (smoothed)`, data: smoothLine(data, content.smoothing) },
    ];
  });
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
  xAxis,
  logY,
  smoothing = 0,
  onRemove,
}: MetricChartProps) {
  const logOn = logY?.on ?? false;
  const content = useMemo<MetricContent>(
    () => ({ lines, yTitle, beginAtZero, xRange, bands, bandColour, smoothing, logY: logOn, ...(xAxis ? { x: xAxis } : {}) }),
    [lines, yTitle, beginAtZero, xRange, bands, bandColour, smoothing, logOn, xAxis],
  );
  // The chart is made once, with the axis and link of its first render (a chart group keeps one link for its life).
  const { canvasRef, controls } = useLineChart({ content, datasets, setup: setup(axis), link });

  const points = lines.reduce((sum, line) => sum + line.data.length, 0);
  const legendItems = (
    <span className="chart-legend">
      {lines.map((line) => (
        <span key={line.label} className="legend-item">
          <span className={`swatch swatch-${line.colour} ${line.markers ? 'markers' : ''} ${line.dashed ? 'dashed' : ''}`} aria-hidden="true" />
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
    <ChartCard
      canvasRef={canvasRef}
      controls={controls}
      testId={testId}
      counts={{ 'data-points': points, 'data-bands': bands?.length ?? 0 }}
      title={title}
      axis={axis}
      compact={axis === 'seconds'}
      fileName={fileName}
      points={points}
      emptyText={emptyText}
      toolbar={axis === 'step' && lines.length > 1 && legendItems}
      {...(logY ? { logY } : {})}
      {...(onRemove ? { onRemove } : {})}
      // Small time charts keep their legend on a row of its own, always there, so the plots of a row line up.
      aboveCanvas={axis === 'seconds' && <div className="chart-legend-row">{legendItems}</div>}
    />
  );
}
