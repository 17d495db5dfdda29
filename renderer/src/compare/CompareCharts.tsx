// The compared runs overlaid, one colour a run: throughput and loss against step, then GPU utilisation, VRAM, power,
// temperature and SM clock against seconds since each run's start. One legend toggles a run in every chart; zoom and
// pan are linked within the step charts and within the time charts; each chart saves as a PNG.
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { ChartDataset, ChartOptions } from 'chart.js';
import type { ComparisonRow, RunSeries } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { canvasBackground, Chart, chartTheme, type ChartTheme } from '../shared/chartSetup.js';
import { downloadUrl } from '../shared/download.js';
import { errorMessage, formatNumber } from '../shared/format.js';
import type { XY } from '../runs/metricSeries.js';
import { darkScheme } from '../terminal/xtermThemes.js';
import { ChartLink } from '../runs/MetricChart.js';
import { MAX_CHARTED_RUNS, seriesRequest } from './compareRequests.js';

/**
 * Above this many visible points a line is decimated (LTTB) to one point per pixel of the chart's width, chart.js's
 * default. The stored series hold up to 1000 points, several per pixel of a chart a third of the window wide: drawn
 * as they are, ten runs in seven charts make 70,000 point objects, most of the view's first draw. Zoomed in, fewer
 * points are visible and each line gets its detail back.
 */
const DECIMATION_THRESHOLD = 200;

/** Ten colours told apart on either background (Tableau-like, shifted per scheme for contrast); then golden-angle hues. */
const DARK_PALETTE = ['#4c8dff', '#e09b3d', '#3fb468', '#c38fff', '#e5534b', '#39c5cf', '#d4a72c', '#f778ba', '#a0b3c8', '#9d7b5a'];
const LIGHT_PALETTE = ['#0969da', '#bc4c00', '#1a7f37', '#8250df', '#cf222e', '#1b7c83', '#9a6700', '#bf3989', '#57606a', '#7d4e2a'];

export function runColour(index: number, dark: boolean): string {
  const palette = dark ? DARK_PALETTE : LIGHT_PALETTE;
  if (index < palette.length) return palette[index]!;
  const hue = Math.round((index * 137.508) % 360);
  return `hsl(${hue}, 65%, ${dark ? 62 : 40}%)`;
}

function subscribeScheme(onChange: () => void): () => void {
  const query = darkScheme();
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

export function useDarkScheme(): boolean {
  return useSyncExternalStore(subscribeScheme, () => darkScheme().matches);
}

type LineChart = Chart<'line', XY[]>;
type Axis = 'step' | 'seconds';

interface OverlayLine {
  runId: number;
  label: string;
  colour: string;
  data: XY[];
  dashed?: boolean;
}

interface ChartSpec {
  testId: string;
  title: string;
  yTitle: string;
  file: string;
  axis: Axis;
  beginAtZero: boolean;
  lines: OverlayLine[];
  /** What a dashed line of this chart is, for its toolbar. */
  dashedMeans?: string;
}

function formatSecondsTick(value: number): string {
  // Runs of a few seconds get ticks at half seconds: rounded, they would read 0 1 1 2 2.
  if (value < 120) return String(Number(value.toFixed(2)));
  const seconds = Math.round(value);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

function options(axis: Axis, onZoom: (chart: LineChart) => void): ChartOptions<'line'> {
  const seconds = axis === 'seconds';
  return {
    // {x, y} sorted by x: chart.js may skip parsing and sorting, which the decimation plugin requires.
    parsing: false,
    normalized: true,
    animation: false,
    responsive: true,
    maintainAspectRatio: false,
    interaction: { mode: 'nearest', axis: 'x', intersect: false },
    scales: {
      x: {
        type: 'linear',
        title: { display: true, text: seconds ? 'seconds since start' : 'step' },
        ticks: {
          maxTicksLimit: seconds ? 6 : 8,
          callback: (value) => (seconds ? formatSecondsTick(Number(value)) : Math.round(Number(value)).toLocaleString()),
        },
      },
      y: { type: 'linear', title: { display: true }, ticks: { maxTicksLimit: 6 } },
    },
    plugins: {
      decimation: { enabled: true, algorithm: 'lttb', threshold: DECIMATION_THRESHOLD },
      tooltip: {
        callbacks: {
          title: (items) => {
            const x = items[0]?.parsed.x;
            if (x === undefined || x === null) return '';
            return seconds ? `${formatNumber(x, 4)} s since start` : `step ${x}`;
          },
          label: (item) => `${item.dataset.label ?? ''}: ${formatNumber(item.parsed.y, 4)}`,
        },
      },
      zoom: {
        zoom: {
          mode: 'x',
          wheel: { enabled: true },
          drag: { enabled: true, threshold: 5 },
          pinch: { enabled: true },
          onZoomComplete: ({ chart }) => onZoom(chart as LineChart),
        },
        pan: { enabled: true, mode: 'x', modifierKey: 'shift', onPanComplete: ({ chart }) => onZoom(chart as LineChart) },
        limits: { x: { min: 'original', max: 'original' } },
      },
    },
  };
}

function translucent(colour: string, alpha: number): string {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/iu.exec(colour);
  if (!match) return `rgba(128, 128, 128, ${alpha})`;
  const [r, g, b] = match.slice(1).map((part) => parseInt(part, 16));
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

interface SyncState {
  lines: readonly OverlayLine[];
  hidden: ReadonlySet<number>;
  yTitle: string;
  beginAtZero: boolean;
}

function datasets(state: SyncState): Array<ChartDataset<'line', XY[]>> {
  return state.lines.map((line) => {
    const dataset: ChartDataset<'line', XY[]> = {
      label: line.label,
      // A copy: chart.js patches the methods of arrays it is given.
      data: line.data.slice(),
      borderColor: line.colour,
      backgroundColor: line.colour,
      borderWidth: line.dashed ? 1.25 : 1.5,
      borderDash: line.dashed ? [5, 3] : [],
      // Evaluations are sparse (a few a run): a marker at each, as the run view draws them.
      pointRadius: line.dashed ? 2.5 : 0,
      pointHoverRadius: 3,
      hidden: state.hidden.has(line.runId),
      // No gaps in stored series: chart.js may skip splitting each line into segments (its performance advice).
      spanGaps: true,
    };
    return dataset;
  });
}

/** Colours and titles that follow the scheme and the props, set on the options before a draw. */
function styleOptions(options: ChartOptions<'line'>, state: SyncState, theme: ChartTheme): void {
  const { x, y } = options.scales ?? {};
  for (const scale of [x, y]) {
    if (!scale) continue;
    scale.grid = { color: theme.grid };
    scale.border = { color: theme.grid };
    scale.ticks = { ...scale.ticks, color: theme.text };
    if ('title' in scale && scale.title) scale.title.color = theme.text;
  }
  if (y && 'title' in y && y.title) y.title.text = state.yTitle;
  if (y && 'beginAtZero' in y) y.beginAtZero = state.beginAtZero;
  const drag = options.plugins?.zoom?.zoom?.drag;
  if (drag) {
    drag.backgroundColor = translucent(theme.accent, 0.18);
    drag.borderColor = theme.accent;
    drag.borderWidth = 1;
  }
}

function sync(chart: LineChart, state: SyncState, theme: ChartTheme): void {
  chart.data.datasets = datasets(state);
  styleOptions(chart.options, state, theme);
  chart.update('none');
}

function OverlayChart({ spec, hidden, link }: { spec: ChartSpec; hidden: ReadonlySet<number>; link: ChartLink }) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const chartRef = useRef<LineChart | null>(null);
  const themeRef = useRef<ChartTheme | null>(null);
  const stateRef = useRef<SyncState>({ lines: spec.lines, hidden, yTitle: spec.yTitle, beginAtZero: spec.beginAtZero });
  const [zoomed, setZoomed] = useState(false);
  const axisRef = useRef(spec.axis);
  const linkRef = useRef(link);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    const theme = chartTheme();
    themeRef.current = theme;
    const config = options(axisRef.current, (c) => {
      setZoomed(c.isZoomedOrPanned());
      linkRef.current.follow(c);
    });
    styleOptions(config, stateRef.current, theme);
    // Made with its data and colours, so the first draw is the only one.
    const chart: LineChart = new Chart(canvas, {
      type: 'line',
      data: { datasets: datasets(stateRef.current) },
      options: config,
      plugins: [canvasBackground(() => themeRef.current?.background ?? theme.background)],
    });
    chartRef.current = chart;
    const leave = linkRef.current.join({ chart, setZoomed });
    const scheme = darkScheme();
    const onSchemeChange = () => {
      const next = chartTheme();
      themeRef.current = next;
      sync(chart, stateRef.current, next);
    };
    scheme.addEventListener('change', onSchemeChange);
    return () => {
      scheme.removeEventListener('change', onSchemeChange);
      leave();
      chart.destroy();
      chartRef.current = null;
    };
  }, []);

  useEffect(() => {
    const last = stateRef.current;
    // On mount the chart was just drawn from these very props: drawing ten runs' lines twice is the view's cost.
    if (last.lines === spec.lines && last.hidden === hidden && last.yTitle === spec.yTitle && last.beginAtZero === spec.beginAtZero) return;
    const next = { lines: spec.lines, hidden, yTitle: spec.yTitle, beginAtZero: spec.beginAtZero };
    stateRef.current = next;
    const chart = chartRef.current;
    const theme = themeRef.current;
    if (chart && theme) sync(chart, next, theme);
  }, [spec.lines, hidden, spec.yTitle, spec.beginAtZero]);

  const points = spec.lines.reduce((sum, line) => sum + (hidden.has(line.runId) ? 0 : line.data.length), 0);
  const savePng = () => {
    const chart = chartRef.current;
    if (chart) downloadUrl(chart.toBase64Image('image/png', 1), spec.file);
  };
  return (
    <figure className="chart-card compare-chart" data-testid={spec.testId} data-points={points} data-lines={spec.lines.length}>
      <figcaption className="chart-toolbar">
        <span className="chart-title">{spec.title}</span>
        {spec.dashedMeans && <span className="hint">{spec.dashedMeans}</span>}
        <span className="spacer" />
        <button type="button" className="button small" data-testid="reset-zoom" disabled={!zoomed} onClick={() => link.reset()}>
          Reset zoom
        </button>
        <button type="button" className="button small" data-testid="save-chart-png" title="Save this chart as a PNG image" disabled={points === 0} onClick={savePng}>
          Save PNG
        </button>
      </figcaption>
      <div className="chart-canvas" title="Wheel: zoom · drag: zoom to a range · Shift+drag: pan">
        <canvas ref={canvasRef} className={points === 0 ? 'empty' : undefined} role="img" aria-label={spec.title} />
        {points === 0 && <p className="chart-empty">{spec.lines.length === 0 ? 'None of these runs recorded it' : 'Every run is hidden'}</p>}
      </div>
    </figure>
  );
}

const THROUGHPUT_METRICS: Array<[string, string, string]> = [
  ['tokens_per_sec', 'Throughput', 'tokens/s'],
  ['samples_per_sec', 'Throughput', 'samples/s'],
  ['step_time_ms', 'Step time', 'ms'],
];

const TIME_CHARTS: Array<{ key: string; title: string; yTitle: string; file: string; beginAtZero: boolean }> = [
  { key: 'utilGpu', title: 'GPU utilisation', yTitle: '%', file: 'gpu-util', beginAtZero: true },
  { key: 'memUsedMiB', title: 'VRAM', yTitle: 'MiB', file: 'vram', beginAtZero: true },
  { key: 'powerW', title: 'Power', yTitle: 'W', file: 'power', beginAtZero: true },
  { key: 'tempC', title: 'GPU temperature', yTitle: '°C', file: 'gpu-temperature', beginAtZero: false },
  { key: 'smClockMHz', title: 'SM clock', yTitle: 'MHz', file: 'sm-clock', beginAtZero: true },
];

const toXY = (points: ReadonlyArray<readonly [number, number]>): XY[] => points.map(([x, y]) => ({ x, y }));

interface ChartRun {
  runId: number;
  label: string;
  colour: string;
  series: RunSeries;
}

function chartSpecs(runs: readonly ChartRun[]): { step: ChartSpec[]; time: ChartSpec[] } {
  const has = (name: string) => runs.some((run) => (run.series.metrics[name]?.length ?? 0) > 0);
  const [metric, title, unit] = THROUGHPUT_METRICS.find(([name]) => has(name)) ?? THROUGHPUT_METRICS[0]!;
  const metricLines = (name: string, dashed = false): OverlayLine[] =>
    runs.flatMap((run) => {
      const points = run.series.metrics[name];
      if (!points || points.length === 0) return [];
      return [{ runId: run.runId, label: dashed ? `${run.label} (eval)` : run.label, colour: run.colour, data: toXY(points), dashed }];
    });
  const evalLines = metricLines('eval_loss', true);
  const step: ChartSpec[] = [
    { testId: 'compare-chart-throughput', title, yTitle: unit, file: `comparison-${metric.replaceAll('_', '-')}.png`, axis: 'step', beginAtZero: true, lines: metricLines(metric) },
    {
      testId: 'compare-chart-loss',
      title: 'Loss',
      yTitle: 'loss',
      file: 'comparison-loss.png',
      axis: 'step',
      beginAtZero: false,
      lines: [...metricLines('loss'), ...evalLines],
      ...(evalLines.length > 0 ? { dashedMeans: 'dashed: eval loss' } : {}),
    },
  ];
  const time = TIME_CHARTS.map((chart) => ({
    testId: `compare-chart-${chart.file}`,
    title: chart.title,
    yTitle: chart.yTitle,
    file: `comparison-${chart.file}.png`,
    axis: 'seconds' as const,
    beginAtZero: chart.beginAtZero,
    lines: runs.flatMap((run) => {
      const points = run.series.telemetry[chart.key];
      return points && points.length > 0 ? [{ runId: run.runId, label: run.label, colour: run.colour, data: toXY(points) }] : [];
    }),
  }));
  return { step, time };
}

/** The runs of the rows, in row order, each once, the first MAX_CHARTED_RUNS of them. */
export function chartedRunIds(rows: readonly ComparisonRow[]): number[] {
  return [...new Set(rows.flatMap((row) => row.runIds))].slice(0, MAX_CHARTED_RUNS);
}

export type SeriesState = { status: 'loading' } | { status: 'ready'; series: RunSeries[] } | { status: 'failed'; error: string };
const LOADING: SeriesState = { status: 'loading' };

/**
 * The series of a set of runs (order does not matter: the charts order them by row). The compare view asks as soon as
 * it knows the runs, which for runs named in the URL is before the comparison itself has come back.
 */
export function useRunSeries(runIds: readonly number[] | null): SeriesState {
  const { api } = useBridge();
  const key = seriesRequest(runIds)?.runIds.join(',') ?? '';
  const [state, setState] = useState<{ key: string; value: SeriesState }>({ key: '', value: LOADING });
  useEffect(() => {
    if (key === '') return;
    let cancelled = false;
    api['compare.series']({ runIds: key.split(',').map(Number) }).then(
      (series) => {
        if (!cancelled) setState({ key, value: { status: 'ready', series } });
      },
      (error: unknown) => {
        if (!cancelled) setState({ key, value: { status: 'failed', error: errorMessage(error) } });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [api, key]);
  return state.key === key ? state.value : LOADING;
}

export function CompareCharts({ rows, series: current }: { rows: readonly ComparisonRow[]; series: SeriesState }) {
  const dark = useDarkScheme();
  const [hidden, setHidden] = useState<ReadonlySet<number>>(() => new Set());
  const stepLink = useMemo(() => new ChartLink(), []);
  const timeLink = useMemo(() => new ChartLink(), []);

  const rowOf = useMemo(() => {
    const map = new Map<number, ComparisonRow>();
    for (const row of rows) for (const id of row.runIds) map.set(id, row);
    return map;
  }, [rows]);
  const chartRuns = useMemo<ChartRun[]>(() => {
    if (current.status !== 'ready') return [];
    const byRun = new Map(current.series.map((series) => [series.runId, series]));
    const ordered = chartedRunIds(rows).flatMap((id) => {
      const series = byRun.get(id);
      return series ? [series] : [];
    });
    const manySweeps = new Set(rows.map((row) => row.sweepId)).size > 1;
    return ordered.map((series, index) => {
      const row = rowOf.get(series.runId);
      const sweep = manySweeps && row && row.sweepId !== null ? ` (sweep ${row.sweepId})` : '';
      return {
        runId: series.runId,
        label: row && row.name !== `run ${series.runId}` ? `#${series.runId} ${row.name}${sweep}` : series.label,
        colour: runColour(index, dark),
        series,
      };
    });
  }, [current, rows, rowOf, dark]);
  const specs = useMemo(() => chartSpecs(chartRuns), [chartRuns]);

  const toggle = (runId: number) =>
    setHidden((prev) => {
      const next = new Set(prev);
      if (next.has(runId)) next.delete(runId);
      else next.add(runId);
      return next;
    });
  const allRunIds = chartRuns.map((run) => run.runId);
  const ready = current.status === 'ready';
  return (
    <section className="compare-charts" data-testid="compare-charts" data-ready={ready ? 'true' : 'false'} aria-label="Charts of the compared runs">
      <div className="compare-charts-header">
        <h3>Charts</h3>
        {current.status === 'loading' && <span className="hint">Loading the runs’ series…</span>}
        {current.status === 'failed' && (
          <span className="inline-error" role="alert">
            Could not load the series: {current.error}
          </span>
        )}
        {rows.flatMap((row) => row.runIds).length > MAX_CHARTED_RUNS && (
          <span className="hint">the first {MAX_CHARTED_RUNS} runs are drawn</span>
        )}
        <span className="spacer" />
        <span className="hint">Wheel or drag to zoom · Shift+drag to pan · click a run to hide it</span>
      </div>
      {ready && (
        <div className="compare-legend" role="group" aria-label="Runs drawn" data-testid="compare-legend">
          {chartRuns.map((run) => (
            <button
              key={run.runId}
              type="button"
              className="legend-toggle"
              data-testid={`legend-run-${run.runId}`}
              aria-pressed={!hidden.has(run.runId)}
              title={hidden.has(run.runId) ? 'Show this run in every chart' : 'Hide this run in every chart'}
              onClick={() => toggle(run.runId)}
            >
              <span className="legend-swatch" style={{ background: run.colour }} aria-hidden="true" />
              {run.label}
            </button>
          ))}
          {chartRuns.length > 1 && (
            <>
              <button type="button" className="button small" data-testid="legend-show-all" disabled={hidden.size === 0} onClick={() => setHidden(new Set())}>
                Show all
              </button>
              <button
                type="button"
                className="button small"
                data-testid="legend-hide-all"
                disabled={hidden.size === allRunIds.length}
                onClick={() => setHidden(new Set(allRunIds))}
              >
                Hide all
              </button>
            </>
          )}
        </div>
      )}
      {ready && (
        <>
          <div className="charts compare-step-charts">
            {specs.step.map((spec) => (
              <OverlayChart key={spec.testId} spec={spec} hidden={hidden} link={stepLink} />
            ))}
          </div>
          <div className="charts compare-time-charts">
            {specs.time.map((spec) => (
              <OverlayChart key={spec.testId} spec={spec} hidden={hidden} link={timeLink} />
            ))}
          </div>
        </>
      )}
    </section>
  );
}
