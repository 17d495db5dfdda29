// A sweep's progress as the engine tells it (sweeps.onDidChange), in the shared progress bar: runs done of the
// schedule, the run under way (which of how many, its config and repeat, how long it has waited or run), the time in
// all and left, and the latest run that failed.
import type { Sweep } from '../../../electron/shared/api.js';
import { useNow } from '../shared/useNow.js';
import { ProgressBar } from '../shared/ProgressBar.js';
import { viewHash } from '../route.js';
import { failureLine, formatElapsed, formatEta, isActive, nowLine } from './sweepText.js';

const TONES: Record<Sweep['status'], 'running' | 'succeeded' | 'failed' | 'stopped' | 'interrupted'> = {
  queued: 'running',
  running: 'running',
  paused: 'stopped',
  succeeded: 'succeeded',
  failed: 'failed',
  cancelled: 'stopped',
  interrupted: 'interrupted',
};

/** What the bar is of, as its label reads: "Before/after: 3 of 6 runs (50 %)". */
function what(sweep: Sweep): string {
  if (sweep.kind === 'batch-finder') return 'Batch finder';
  return sweep.git && sweep.git.revisions.length === 2 && sweep.configs.length === 2 ? 'Before/after' : 'Sweep';
}

export function SweepProgress({ sweep }: { sweep: Sweep }) {
  const live = isActive(sweep);
  // Ticks only while it runs: the elapsed times count from the engine's own start times.
  const nowMs = useNow(live);
  const { done, total, now, etaSeconds } = sweep.progress;
  const finder = sweep.kind === 'batch-finder';
  // A batch finder does not know how many probes it takes: under way, its bar only says that it is.
  const amount = finder && live ? {} : { value: done, max: total, unit: finder ? { one: 'probe', many: 'probes' } : { one: 'run', many: 'runs' } };
  const eta = live ? formatEta(etaSeconds) : null;
  const times = live ? [`${formatElapsed(nowMs - Date.parse(sweep.createdAt))} in all`, ...(eta ? [`about ${eta} left`] : [])].join(' · ') : null;
  const line = nowLine(sweep, nowMs);
  const failure = finder ? null : failureLine(sweep);
  return (
    <ProgressBar label={what(sweep)} testId="sweep-progress" tone={TONES[sweep.status]} detail={times} {...amount}>
      {line && (
        <span className="sweep-progress-now" data-testid="sweep-current">
          {line}
          {now?.runId != null && (
            <>
              {' · '}
              <a href={viewHash({ kind: 'run', id: now.runId })}>run #{now.runId}</a>
            </>
          )}
        </span>
      )}
      {failure && sweep.progress.lastFailure && (
        <span className="sweep-progress-failure" role="status" data-testid="sweep-progress-failure">
          ⚠ {failure} · <a href={viewHash({ kind: 'run', id: sweep.progress.lastFailure.runId })}>run #{sweep.progress.lastFailure.runId}</a>
        </span>
      )}
    </ProgressBar>
  );
}
