// A sweep's status badge and its progress bar (runs done of the schedule), as the list and the view show them.
import type { Sweep } from '../../../electron/shared/api.js';
import type { SweepConfigState } from './sweepText.js';
import './sweeps.css';

/** The raw status as the text, as the CLI prints it; running pulses like a running run. */
/** A sweep's status; one its tune ended (`endedNote`) reads "ended early", the note on hover, not "cancelled" as by a person. */
export function SweepStatusBadge({
  status,
  endedNote = null,
  testId = 'sweep-status',
}: {
  status: Sweep['status'];
  endedNote?: string | null;
  testId?: string;
}) {
  const early = status === 'cancelled' && endedNote !== null;
  return (
    <span className={`badge status status-${status}`} data-testid={testId} title={early ? endedNote : undefined}>
      {status === 'running' && <span className="pulse" aria-hidden="true" />}
      {early ? 'ended early' : status}
    </span>
  );
}

const CONFIG_STATUS_TITLES: Record<SweepConfigState['status'], string> = {
  pending: 'not run yet, or not all its repeats',
  running: 'one of its runs is running now',
  done: 'every repeat ran; the figures pool the runs that ended ok',
  oom: 'out of memory: its other repeats were skipped',
  failed: 'no run of it ended ok',
  skipped: 'skipped',
};

/** OOM reads as a word of its own, not as one more "failed". */
export function ConfigStatusBadge({ status }: { status: SweepConfigState['status'] }) {
  return (
    <span className={`badge config-status config-${status}`} data-testid="config-status" title={CONFIG_STATUS_TITLES[status]}>
      {status === 'running' && <span className="pulse" aria-hidden="true" />}
      {status === 'oom' ? 'OOM' : status}
    </span>
  );
}

export function SweepProgressBar({ sweep, compact = false }: { sweep: Sweep; compact?: boolean }) {
  const { done, total } = sweep.progress;
  const percent = total > 0 ? Math.round((done / total) * 100) : 0;
  const unit = sweep.kind === 'batch-finder' ? 'probes' : 'runs';
  return (
    <div className={`sweep-progress ${compact ? 'compact' : ''} status-${sweep.status}`}>
      <div
        className="sweep-progress-track"
        role="progressbar"
        aria-label={`${sweep.name}: ${done} of ${total} ${unit}`}
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={done}
        data-testid={compact ? 'sweep-row-progress' : 'sweep-progress'}
      >
        <div className="sweep-progress-fill" style={{ width: `${percent}%` }} />
      </div>
      <span className="sweep-progress-text" data-testid={compact ? 'sweep-row-progress-text' : 'sweep-progress-text'}>
        {done}/{total}
        {!compact && ` ${unit}`}
      </span>
    </div>
  );
}
