// The run view's charts panel: throughput and loss against step (Metrics tab), GPU and host telemetry against time
// (Telemetry tab), live while the run runs, folded away on request.
import { useMemo, useState } from 'react';
import { describeNonFiniteLoss, type MetricsView } from './metricSeries.js';
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

function throughputLines(view: MetricsView | null): ChartLine[] {
  if (!view?.throughput) return [];
  return [{ label: view.throughput.unit, data: view.throughput.data, colour: 'throughput' }];
}

function lossLines(view: MetricsView | null): ChartLine[] {
  const lines: ChartLine[] = [];
  if (view?.loss) lines.push({ label: 'loss', data: view.loss, colour: 'loss' });
  if (view?.evalLoss) lines.push({ label: 'eval loss', data: view.evalLoss, colour: 'evalLoss', markers: true });
  return lines;
}

export function RunCharts({ runId, running }: { runId: number; running: boolean }) {
  const metrics = useRunMetrics(runId, running);
  const telemetry = useRunTelemetry(runId, running);
  const statuses = useTelemetryStatus(runId);
  const [collapsed, setCollapsed] = useState(readCollapsed);
  const [tab, setTab] = useState<ChartsTab>(readTab);
  const view = metrics.status === 'ready' ? metrics.view : null;
  // New arrays only when the metrics moved on, so a chart redraws at the feed's pace, not at every render.
  const throughput = useMemo(() => throughputLines(view), [view]);
  const loss = useMemo(() => lossLines(view), [view]);

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

  const nothing = view !== null && throughput.length === 0 && loss.length === 0 && view.nonFiniteLoss === null;
  // A running run keeps the charts' room from the start, empty or not: the panel must not grow under the terminal
  // when the first metrics come, which would resize the pty (and redraw a progress bar) in the middle of the run.
  const showCharts = !collapsed && (running ? metrics.status !== 'failed' : view !== null && !nothing);
  const quiet = running ? null : metrics.status === 'loading' ? 'Loading metrics…' : null;
  const unit = view?.throughput?.unit ?? '';
  return (
    <section className={`charts-panel ${collapsed ? 'collapsed' : ''}`} data-testid="charts" aria-label="Metrics charts">
      <div className="charts-header">
        <button
          type="button"
          className="charts-toggle"
          data-testid="charts-toggle"
          aria-expanded={!collapsed}
          onClick={toggle}
        >
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
        {tab === 'metrics' && showCharts && !nothing && (
          <span className="hint">Wheel or drag to zoom the steps · Shift+drag to pan</span>
        )}
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
        <div className="charts">
          <MetricChart
            testId="chart-throughput"
            title={THROUGHPUT_TITLES[view?.throughput?.name ?? ''] ?? 'Throughput'}
            yTitle={unit}
            lines={throughput}
            beginAtZero
            fileName={`run-${runId}-throughput.png`}
            emptyText={running ? 'Waiting for throughput in the output…' : 'No throughput in this run’s metrics'}
          />
          <MetricChart
            testId="chart-loss"
            title="Loss"
            yTitle="loss"
            lines={loss}
            beginAtZero={false}
            fileName={`run-${runId}-loss.png`}
            emptyText={running ? 'Waiting for a loss in the output…' : 'No loss in this run’s metrics'}
          />
        </div>
      )}
    </section>
  );
}
