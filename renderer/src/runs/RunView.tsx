// One run: what ran and how it ended, a Stop button while it runs, its summary and charts, and its terminal.
import { lazy, Suspense, useState } from 'react';
import type { Run, Workload } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage, formatBytes, formatDateTime, formatDuration, formatEnvAssignments, runDurationMs, shellJoin } from '../shared/format.js';
import { useNow } from '../shared/useNow.js';
import { RunCharts } from './RunCharts.js';
import { ExitClassBadge, StatusBadge } from '../shared/StatusBadge.js';
import { RunFingerprint } from './RunFingerprint.js';
import { RunAnnotations } from '../shared/runRecord/RunAnnotations.js';
import { RunGpuSettings } from './RunGpuSettings.js';
import { RunKnobs } from './RunKnobs.js';
import { RunTune } from './RunTune.js';
import { NoMetricsNotice, ReparseButton, useReparse } from './RunParsing.js';
import { RunCode } from './RunCode.js';
import { sweepPlace } from './runLabel.js';
import { useSweeps } from '../shared/sweepStore.js';
import { sweepRouteHash } from '../shared/sweepRoute.js';
import { useView, viewHash } from '../route.js';
import { hasSummary, SummaryCard } from './SummaryCard.js';
import { RunSteps } from './RunSteps.js';
import { PublishToMlflow } from '../shared/publishing/PublishToMlflow.js';
import { IMPORTED_COMMAND } from '../../../electron/shared/api.js';
import './RunView.css';

/** xterm (~300 kB) loads with the first run view, not with the page: the runs table and compare view never draw a terminal (issue 18). */
const Terminal = lazy(() => import('./terminal/Terminal.js').then((module) => ({ default: module.Terminal })));

/** The engine's escalation step (core/runner STOP_ESCALATION_MS, 3 s): SIGINT, then SIGTERM, then SIGKILL. */
const STOP_ESCALATION_S = 3;

function exitText(run: Run): string {
  if (run.status === 'running') return run.pid === null ? 'running' : `running, pid ${run.pid}`;
  const parts: string[] = [];
  if (run.exitCode !== null) parts.push(`exit code ${run.exitCode}`);
  if (run.signal !== null) parts.push(`signal ${run.signal}`);
  return parts.length > 0 ? parts.join(', ') : 'no exit status recorded';
}

export function RunView({ run, workloads }: { run: Run; workloads: readonly Workload[] }) {
  const { api } = useBridge();
  const running = run.status === 'running';
  const now = useNow(running);
  const reparse = useReparse(run, workloads);
  /** Set by the Stop button and kept until the run ends: the engine escalates on its own, with no further call. */
  const [stopRequested, setStopRequested] = useState(false);
  const [stopError, setStopError] = useState<string | null>(null);

  const stop = async () => {
    setStopRequested(true);
    setStopError(null);
    try {
      await api['runs.stop']({ id: run.id });
    } catch (error) {
      setStopRequested(false);
      setStopError(errorMessage(error));
    }
  };
  const stopping = running && stopRequested;
  const configEntries = Object.entries(run.config);
  const envText = formatEnvAssignments(run.env);

  return (
    <section className="run-view" aria-label={`Run ${run.id}`}>
      <header className="run-header">
        <div className="run-title">
          <h2>
            <span className="run-id">#{run.id}</span> {run.workloadName ?? 'ad-hoc command'}
          </h2>
          <StatusBadge status={run.status} testId="run-status" />
          <ExitClassBadge exitClass={run.exitClass} testId="run-exit-class" />
          <span className="spacer" />
          {run.origin === null && <PublishToMlflow subject={{ runIds: [run.id] }} publications={{ runId: run.id }} what="this run" />}
          <ReparseButton run={run} reparse={reparse} />
          <RunAgain run={run} />
          {/* In the title row, not below it: the header keeps its height, so the terminal and the pty keep their size. */}
          {stopping && (
            <span className="stopping-note" role="status" data-testid="stopping-note">
              Stopping… SIGINT sent; SIGTERM after {STOP_ESCALATION_S} s, SIGKILL after {2 * STOP_ESCALATION_S} s
            </span>
          )}
          {running && (
            <button type="button" className="button danger" data-testid="stop-run" disabled={stopping} onClick={() => void stop()}>
              {stopping ? 'Stopping…' : 'Stop'}
            </button>
          )}
        </div>
        {stopError && (
          <p className="inline-error" role="alert">
            Could not stop: {stopError}
          </p>
        )}
        {run.origin && (
          <p className="origin-banner" data-testid="run-origin">
            Pulled back from MLflow: recorded on <strong>{run.origin.machine.label}</strong> (its run {run.origin.runId} there), read-only here; its log stays
            on the server.{' '}
            <a href={run.origin.url} target="_blank" rel="noreferrer">
              Open in MLflow ↗
            </a>
          </p>
        )}
        <dl className="facts">
          <div>
            <dt>Exit</dt>
            <dd data-testid="run-exit">{exitText(run)}</dd>
          </div>
          <div>
            <dt>Started</dt>
            <dd>{formatDateTime(run.startedAt)}</dd>
          </div>
          <div>
            <dt>Ended</dt>
            <dd>{formatDateTime(run.endedAt)}</dd>
          </div>
          <div>
            <dt>Duration</dt>
            <dd>{formatDuration(runDurationMs(run, now))}</dd>
          </div>
          <div>
            <dt>Output</dt>
            <dd>
              {formatBytes(run.outputBytes)}
              {run.outputDroppedBytes > 0 && (
                <span
                  className="output-dropped"
                  data-testid="run-output-dropped"
                  title="The disk was full and the output held in memory reached its limit: these bytes were read for metrics but not stored."
                >
                  {' '}
                  + {formatBytes(run.outputDroppedBytes)} not stored (disk full)
                </span>
              )}
            </dd>
          </div>
        </dl>
        {run.exitReason && (
          <p className={`exit-reason exit-${run.exitClass ?? 'unknown'}`} data-testid="run-exit-reason">
            <strong>{run.exitClass ?? 'exit'}:</strong> {run.exitReason}
          </p>
        )}
        <pre className="command-line" data-testid="run-command" title={`in ${run.cwd}`}>
          <span className="prompt">{run.cwd} $</span> {envText && <span className="env">{envText} </span>}
          {shellJoin(run.command)}
        </pre>
        <RunCode run={run} />
        <RunSweepLink run={run} />
        <RunReplacement run={run} />
        {configEntries.length > 0 && (
          <ul className="chips" data-testid="run-config" aria-label="Configuration">
            {configEntries.map(([key, value]) => (
              <li key={key} className="chip">
                <span className="chip-key">{key}</span>={value}
              </li>
            ))}
          </ul>
        )}
        {/* The engine summarises a run as it ends; until then the charts show how it goes. */}
        {!running && hasSummary(run.summary) && <SummaryCard summary={run.summary} durationMs={run.endedAt ? runDurationMs(run, now) : null} />}
        {!running && run.summary.warmup !== null && (
          // Folded until wanted (or once set), so the terminal keeps its room on the run's page.
          <details className="run-steps-details" data-testid="run-steps-details" open={run.steps !== null}>
            <summary>Set warm-up and left-out steps by hand</summary>
            <RunSteps key={`steps ${run.id}`} run={run} />
          </details>
        )}
        {(running || run.fingerprint) && <RunFingerprint run={run} />}
        <NoMetricsNotice run={run} reparse={reparse} />
        <RunGpuSettings run={run} />
        <RunKnobs run={run} />
        <RunTune key={`tune ${run.id}`} run={run} />
        <RunAnnotations key={run.id} run={run} />
      </header>
      <RunCharts runId={run.id} running={running} tokensPerStep={run.summary.tokensPerStep ?? run.unitsPerStep?.tokens ?? null} />
      <Suspense
        fallback={
          <p className="muted" data-testid="terminal-loading">
            Loading the terminal…
          </p>
        }
      >
        <Terminal key={run.id} runId={run.id} running={running} />
      </Suspense>
    </section>
  );
}

/**
 * Run again (the same workload and values, or the same command, directory and environment; a before/after side in a
 * worktree of the same code) or Edit and run again (New run filled in from this run, to change one thing). An imported
 * log has no command to run, and a run pulled back from MLflow ran on another machine.
 */
function RunAgain({ run }: { run: Run }) {
  const { api } = useBridge();
  const [, navigate] = useView();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (run.status === 'running' || run.command[0] === IMPORTED_COMMAND || run.origin !== null) return null;
  const again = async () => {
    setBusy(true);
    setError(null);
    try {
      const started = await api['runs.rerun']({ id: run.id });
      navigate({ kind: 'run', id: started.id });
    } catch (failure) {
      setError(errorMessage(failure));
      setBusy(false);
    }
  };
  return (
    <span className="run-again-row">
      {error && (
        <span className="inline-error" role="alert" data-testid="run-again-error" title={error}>
          {error}
        </span>
      )}
      <button
        type="button"
        className="button small"
        data-testid="run-again"
        disabled={busy}
        title={run.checkout ? 'Runs the command again in a worktree of the same code, with the same data linked' : 'Start the same command again, as it was'}
        onClick={() => void again()}
      >
        {busy ? 'Starting…' : 'Run again'}
      </button>
      <button
        type="button"
        className="button small"
        data-testid="edit-run-again"
        title="Open New run filled in from this run, to change what you want to try"
        onClick={() => navigate({ kind: 'new', from: run.id })}
      >
        Edit and run again
      </button>
    </span>
  );
}

/** A sweep's run links back to its sweep, and says which config and repeat it was. */
function RunSweepLink({ run }: { run: Run }) {
  const { sweeps } = useSweeps();
  if (run.sweepId === null) return null;
  const sweep = sweeps.find((s) => s.id === run.sweepId);
  return (
    <p className="run-sweep" data-testid="run-sweep">
      Part of{' '}
      <a href={sweepRouteHash({ kind: 'sweep', id: run.sweepId })}>
        sweep #{run.sweepId}
        {sweep ? ` (${sweep.name})` : ''}
      </a>
      : {sweepPlace(run, sweeps)}
    </p>
  );
}

/** A resumed sweep ran an interrupted run's place again: each of the two runs links to the other. */
function RunReplacement({ run }: { run: Run }) {
  if (run.replacedByRunId === null && run.replacesRunId === null) return null;
  return (
    <p className="run-replacement" data-testid="run-replacement">
      {run.replacedByRunId !== null && (
        <span data-testid="run-replaced-by">
          This run was interrupted before it finished; when the sweep resumed, it ran this place again as{' '}
          <a href={viewHash({ kind: 'run', id: run.replacedByRunId })}>run #{run.replacedByRunId}</a>, which its results use.
        </span>
      )}
      {run.replacesRunId !== null && (
        <span data-testid="run-replaces">
          Ran this place of the sweep again: it replaces <a href={viewHash({ kind: 'run', id: run.replacesRunId })}>run #{run.replacesRunId}</a>, which was
          interrupted.
        </span>
      )}
    </p>
  );
}
