// The compared runs overlaid, one colour a run: throughput and loss against step, then GPU utilisation, VRAM, power,
// temperature and SM clock against seconds since each run's start. One legend toggles a run in every chart; zoom and
// pan are linked within the step charts and within the time charts; each chart saves as a PNG.
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import type { ComparisonRow, RunSeries } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { ChartCard } from '../shared/ChartCard.js';
import { ChartLink } from '../shared/chartLink.js';
import { darkScheme, onSchemeChange } from '../shared/colourScheme.js';
import { errorMessage } from '../shared/format.js';
import { STEP_AXIS, type ChartAxis, type LineChartContent, type LineChartSetup, type LineDataset, type XAxis } from '../shared/lineChart.js';
import { useLineChart } from '../shared/useLineChart.js';
import type { XY } from '../shared/runRecord/metricSeries.js';
import { MAX_CHARTED_RUNS, seriesRequest } from './compareRequests.js';
import '../shared/charts.css';
import './CompareCharts.css';

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

export function useDarkScheme(): boolean {
  return useSyncExternalStore(onSchemeChange, () => darkScheme().matches);
}

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
  axis: ChartAxis;
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

/** Each time chart says what x is under its plot, and a run of a few seconds ticks at half seconds. */
const SECONDS_AXIS: XAxis = { unit: 'seconds', title: 'seconds since start', tick: formatSecondsTick, wholeTicks: false };

function setup(axis: ChartAxis): () => LineChartSetup {
  return () => ({ x: axis === 'seconds' ? SECONDS_AXIS : STEP_AXIS, decimation: { threshold: DECIMATION_THRESHOLD } });
}

interface OverlayContent extends LineChartContent {
  lines: readonly OverlayLine[];
  hidden: ReadonlySet<number>;
}

function datasets(content: OverlayContent): LineDataset[] {
  return content.lines.map((line) => ({
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
    hidden: content.hidden.has(line.runId),
    // No gaps in stored series: chart.js may skip splitting each line into segments (its performance advice).
    spanGaps: true,
  }));
}

function OverlayChart({ spec, hidden, link }: { spec: ChartSpec; hidden: ReadonlySet<number>; link: ChartLink }) {
  const content = useMemo<OverlayContent>(
    () => ({ lines: spec.lines, hidden, yTitle: spec.yTitle, beginAtZero: spec.beginAtZero }),
    [spec.lines, hidden, spec.yTitle, spec.beginAtZero],
  );
  const { canvasRef, controls } = useLineChart({ content, datasets, setup: setup(spec.axis), link });
  const points = spec.lines.reduce((sum, line) => sum + (hidden.has(line.runId) ? 0 : line.data.length), 0);
  return (
    <ChartCard
      canvasRef={canvasRef}
      controls={controls}
      testId={spec.testId}
      className="compare-chart"
      counts={{ 'data-points': points, 'data-lines': spec.lines.length }}
      title={spec.title}
      axis={spec.axis}
      fileName={spec.file}
      points={points}
      emptyText={spec.lines.length === 0 ? 'None of these runs recorded it' : 'Every run is hidden'}
      toolbar={spec.dashedMeans && <span className="hint">{spec.dashedMeans}</span>}
    />
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
    {
      testId: 'compare-chart-throughput',
      title,
      yTitle: unit,
      file: `comparison-${metric.replaceAll('_', '-')}.png`,
      axis: 'step',
      beginAtZero: true,
      lines: metricLines(metric),
    },
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
        {rows.flatMap((row) => row.runIds).length > MAX_CHARTED_RUNS && <span className="hint">the first {MAX_CHARTED_RUNS} runs are drawn</span>}
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
