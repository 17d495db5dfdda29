// The run view's charts panel: throughput and loss against step (Metrics tab), GPU and host telemetry against time
// (Telemetry tab), live while the run runs, folded away on request.
import { useMemo, useState } from 'react';
import { describeNonFiniteLoss, hasTimes, onXAxis, type MetricSeriesEntry, type MetricsView, type MetricXAxis } from '../shared/runRecord/metricSeries.js';
import { ChartViewControls } from '../shared/ChartViewControls.js';
import { METRIC_X_AXES } from '../shared/lineChart.js';
import { MAX_EXTRA_CHARTS, readMetricChartPrefs, writeMetricChartPrefs, type MetricChartPrefs } from './metricChartPrefs.js';
import { useTelemetryStatus } from './telemetryStatus.js';
import { useRunMetrics } from './useRunMetrics.js';
import { useRunTelemetry } from './useRunTelemetry.js';
import { MetricChart, type ChartLine } from './MetricChart.js';
import { RunProfile } from './RunProfile.js';
import { TelemetryCharts } from './TelemetryCharts.js';
import { TelemetryStatus } from './TelemetryStatus.js';
import '../shared/charts.css';
import './RunCharts.css';

/** Remembered across runs and reloads: someone who folds the charts away wants the terminal's room everywhere. */
const COLLAPSED_KEY = 'tuning-bench.chartsCollapsed';

function readCollapsed(): boolean {
  try {
    return window.localStorage.getItem(COLLAPSED_KEY) === '1';
  } catch {
    // Storage can be switched off; the panel then simply starts open.
    return false;
  }
}

function writeCollapsed(collapsed: boolean): void {
  try {
    window.localStorage.setItem(COLLAPSED_KEY, collapsed ? '1' : '0');
  } catch {
    // Not remembered, and nothing else lost.
  }
}

function emptyText(running: boolean): string {
  return running
    ? 'No metrics parsed from this run’s output yet.'
    : 'No metrics parsed from this run’s output. A workload’s metric regex can teach Tuning Bench its format.';
}

type ChartsTab = 'metrics' | 'telemetry' | 'profile';
const TAB_TITLES: Record<ChartsTab, string> = { metrics: 'Metrics', telemetry: 'Telemetry', profile: 'Profile' };
/** Remembered too: someone watching the GPU wants that tab on the next run as well. */
const TAB_KEY = 'tuning-bench.chartsTab';

function readTab(): ChartsTab {
  try {
    const saved = window.localStorage.getItem(TAB_KEY);
    return saved === 'telemetry' || saved === 'profile' ? saved : 'metrics';
  } catch {
    return 'metrics';
  }
}

function writeTab(tab: ChartsTab): void {
  try {
    window.localStorage.setItem(TAB_KEY, tab);
  } catch {
    // Not remembered, and nothing else lost.
  }
}

const THROUGHPUT_TITLES: Record<string, string> = {
  tokens_per_sec: 'Throughput',
  samples_per_sec: 'Throughput',
  steps_per_sec: 'Throughput',
  step_time_ms: 'Throughput (from step time)',
};

/** Where the x a person chose is drawn from: the step, the tokens by then, or the time since the start. */
interface XChoice {
  axis: MetricXAxis;
  tokensPerStep: number | null;
}

function throughputLines(view: MetricsView | null, x: XChoice): ChartLine[] {
  if (!view?.throughput) return [];
  return [{ label: view.throughput.unit, data: onXAxis(view.throughput.data, x.axis, x.tokensPerStep), colour: 'throughput' }];
}

function lossLines(view: MetricsView | null, x: XChoice): ChartLine[] {
  const lines: ChartLine[] = [];
  if (view?.loss) lines.push({ label: 'loss', data: onXAxis(view.loss, x.axis, x.tokensPerStep), colour: 'loss' });
  if (view?.evalLoss) lines.push({ label: 'eval loss', data: onXAxis(view.evalLoss, x.axis, x.tokensPerStep), colour: 'evalLoss', markers: true });
  return lines;
}

/** A metric as a person reads its name in the picker: `grad_norm`, `eval_accuracy (eval)`, `loss (progress bar)`. */
function metricLabel(entry: Pick<MetricSeriesEntry, 'name' | 'kind'>): string {
  if (entry.kind === 'train') return entry.name;
  return `${entry.name} (${entry.kind === 'progress' ? 'progress bar' : entry.kind})`;
}

interface RunChartsProps {
  runId: number;
  running: boolean;
  /** Tokens in one step, where known: the tokens x axis is step × this. */
  tokensPerStep?: number | null;
}

export function RunCharts({ runId, running, tokensPerStep = null }: RunChartsProps) {
  const metrics = useRunMetrics(runId, running);
  const telemetry = useRunTelemetry(runId, running);
  const statuses = useTelemetryStatus(runId);
  const [collapsed, setCollapsed] = useState(readCollapsed);
  const [tab, setTab] = useState<ChartsTab>(readTab);
  const [prefs, setPrefs] = useState<MetricChartPrefs>(readMetricChartPrefs);
  const view = metrics.status === 'ready' ? metrics.view : null;
  const updatePrefs = (next: MetricChartPrefs) => {
    setPrefs(next);
    writeMetricChartPrefs(next);
  };
  const timed = view !== null && hasTimes(view);
  const unavailable = {
    ...(tokensPerStep === null ? { tokens: 'tokens per step unknown' } : {}),
    ...(view !== null && !timed ? { seconds: 'the log has no times' } : {}),
  };
  // An axis chosen on another run that this one cannot draw falls back to steps.
  const axis: MetricXAxis = unavailable[prefs.x as keyof typeof unavailable] !== undefined ? 'step' : prefs.x;
  const x = useMemo<XChoice>(() => ({ axis, tokensPerStep }), [axis, tokensPerStep]);
  // New arrays only when the metrics moved on, so a chart redraws at the feed's pace, not at every render.
  const throughput = useMemo(() => throughputLines(view, x), [view, x]);
  const loss = useMemo(() => lossLines(view, x), [view, x]);
  const extraEntries = useMemo(
    () => prefs.extra.map((key) => view?.metrics.find((entry) => entry.key === key) ?? null).filter((entry): entry is MetricSeriesEntry => entry !== null),
    [prefs.extra, view],
  );
  const extraLines = useMemo(
    () =>
      extraEntries.map(
        (entry) => [{ label: metricLabel(entry), data: onXAxis(entry.data, x.axis, x.tokensPerStep), colour: 'evalLoss' as const }] as ChartLine[],
      ),
    [extraEntries, x],
  );
  const logY = (key: string) => ({ on: prefs.logY[key] === true, onChange: (on: boolean) => updatePrefs({ ...prefs, logY: { ...prefs.logY, [key]: on } }) });
  const addable = view?.metrics.filter((entry) => !prefs.extra.includes(entry.key)) ?? [];

  const toggle = () => {
    setCollapsed(!collapsed);
    writeCollapsed(!collapsed);
  };
  const choose = (next: ChartsTab) => {
    setTab(next);
    writeTab(next);
    if (collapsed) {
      setCollapsed(false);
      writeCollapsed(false);
    }
  };

  const telemetryView = telemetry.status === 'ready' ? telemetry.view : null;
  // No GPU samples, and either the engine said why or the run is over: the GPU charts would stay empty.
  const hostOnly = telemetryView !== null && telemetryView.gpuSamples === 0 && (!running || statuses.length > 0);
  const noGpuReason = statuses[0]?.message ?? 'no GPU samples were recorded for this run';
  const onTelemetry = tab === 'telemetry' && !collapsed;

  // Any metric at all keeps the charts: one that is neither throughput nor loss can be plotted from the picker.
  const nothing = view !== null && throughput.length === 0 && loss.length === 0 && view.nonFiniteLoss === null && view.metrics.length === 0;
  // A running run keeps the charts' room from the start, empty or not: the panel must not grow under the terminal
  // when the first metrics come, which would resize the pty (and redraw a progress bar) in the middle of the run.
  const showCharts = !collapsed && (running ? metrics.status !== 'failed' : view !== null && !nothing);
  const quiet = running ? null : metrics.status === 'loading' ? 'Loading metrics…' : null;
  const unit = view?.throughput?.unit ?? '';
  return (
    <section className={`charts-panel ${collapsed ? 'collapsed' : ''}`} data-testid="charts" aria-label="Metrics charts">
      <div className="charts-header">
        <button type="button" className="charts-toggle" data-testid="charts-toggle" aria-expanded={!collapsed} onClick={toggle}>
          <span className="chevron" aria-hidden="true">
            {collapsed ? '▸' : '▾'}
          </span>
          Charts
        </button>
        <div className="charts-tabs" role="tablist" aria-label="Charts">
          {(['metrics', 'telemetry', 'profile'] as const).map((name) => (
            <button
              key={name}
              type="button"
              role="tab"
              className="charts-tab"
              data-testid={`charts-tab-${name}`}
              aria-selected={tab === name && !collapsed}
              onClick={() => choose(name)}
            >
              {TAB_TITLES[name]}
            </button>
          ))}
        </div>
        {view?.nonFiniteLoss && (
          <span className="nan-note" role="alert" data-testid="nan-note">
            {describeNonFiniteLoss(view.nonFiniteLoss)}
          </span>
        )}
        {tab === 'metrics' && view?.source === 'channel' && <span className="hint">from the structured channel</span>}
        {onTelemetry && telemetry.status === 'failed' && (
          <span className="charts-quiet failed" role="alert">
            Could not load this run’s telemetry: {telemetry.error}
          </span>
        )}
        {tab === 'metrics' && !collapsed && nothing && (
          <span className="charts-quiet" data-testid="charts-empty" title={emptyText(running)}>
            {emptyText(running)}
          </span>
        )}
        {tab === 'metrics' && !collapsed && quiet && <span className="charts-quiet">{quiet}</span>}
        {tab === 'metrics' && !collapsed && metrics.status === 'failed' && (
          <span className="charts-quiet failed" role="alert">
            Could not load this run’s metrics: {metrics.error}
          </span>
        )}
        <span className="spacer" />
        <TelemetryStatus entries={statuses} />
        {tab === 'metrics' && showCharts && !nothing && <span className="hint">Wheel or drag to zoom · Shift+drag to pan</span>}
        {onTelemetry && <span className="hint">x: seconds since start · wheel or drag to zoom all · Shift+drag to pan</span>}
      </div>
      {onTelemetry && hostOnly && (
        <p className="no-gpu-note" data-testid="no-gpu-note">
          No GPU telemetry: {noGpuReason}
        </p>
      )}
      {tab === 'profile' && !collapsed && <RunProfile key={runId} runId={runId} running={running} />}
      {onTelemetry && <TelemetryCharts runId={runId} running={running} view={telemetryView} hostOnly={hostOnly} />}
      {tab === 'metrics' && showCharts && (
        <>
          <ChartViewControls view={{ x: axis, smoothing: prefs.smoothing }} onChange={(next) => updatePrefs({ ...prefs, ...next })} unavailable={unavailable}>
            <label className="chart-control">
              <span className="label">plot</span>
              <select
                data-testid="add-metric-chart"
                value=""
                disabled={addable.length === 0 || prefs.extra.length >= MAX_EXTRA_CHARTS}
                title={
                  prefs.extra.length >= MAX_EXTRA_CHARTS ? `At most ${MAX_EXTRA_CHARTS} added charts: remove one first` : 'Any metric parsed from this run'
                }
                onChange={(event) => {
                  if (event.target.value !== '') updatePrefs({ ...prefs, extra: [...prefs.extra, event.target.value] });
                }}
              >
                <option value="">{addable.length === 0 ? 'no other metric parsed' : `another metric… (${addable.length})`}</option>
                {addable.map((entry) => (
                  <option key={entry.key} value={entry.key}>
                    {metricLabel(entry)} · {entry.samples.toLocaleString()} points
                  </option>
                ))}
              </select>
            </label>
          </ChartViewControls>
          <div className="charts">
            <MetricChart
              key={`throughput-${axis}`}
              testId="chart-throughput"
              title={THROUGHPUT_TITLES[view?.throughput?.name ?? ''] ?? 'Throughput'}
              yTitle={unit}
              lines={throughput}
              beginAtZero
              fileName={`run-${runId}-throughput.png`}
              emptyText={running ? 'Waiting for throughput in the output…' : 'No throughput in this run’s metrics'}
              xAxis={METRIC_X_AXES[axis]}
              logY={logY('throughput')}
              smoothing={prefs.smoothing}
            />
            <MetricChart
              key={`loss-${axis}`}
              testId="chart-loss"
              title="Loss"
              yTitle="loss"
              lines={loss}
              beginAtZero={false}
              fileName={`run-${runId}-loss.png`}
              emptyText={running ? 'Waiting for a loss in the output…' : 'No loss in this run’s metrics'}
              xAxis={METRIC_X_AXES[axis]}
              logY={logY('loss')}
              smoothing={prefs.smoothing}
            />
            {extraEntries.map((entry, i) => (
              <MetricChart
                key={`${entry.key}-${axis}`}
                testId={`chart-metric-${entry.name}`}
                title={metricLabel(entry)}
                yTitle={entry.name}
                lines={extraLines[i]!}
                beginAtZero={false}
                fileName={`run-${runId}-${entry.name}.png`}
                emptyText="No points yet"
                xAxis={METRIC_X_AXES[axis]}
                logY={logY(entry.key)}
                smoothing={prefs.smoothing}
                onRemove={() => updatePrefs({ ...prefs, extra: prefs.extra.filter((key) => key !== entry.key) })}
              />
            ))}
          </div>
        </>
      )}
    </section>
  );
}
