// Pause, Resume, Skip the current run and Cancel (stop) a sweep: on its page and on the before/after under way.
import { useState } from 'react';
import type { Sweep } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage } from '../shared/format.js';
import { useSweepStore } from '../shared/sweepStore.js';
import { isActive } from './sweepText.js';

type Action = 'pause' | 'resume' | 'skip' | 'cancel';

const ACTION_TITLES: Record<Action, string> = {
  pause: 'Pause after the run under way ends',
  resume: 'Go on with the next run',
  skip: 'Stop the run under way (or its wait) and go on with the next; its place counts as skipped',
  cancel: 'Stop the run under way and the rest of the sweep; the runs that ended are kept',
};

export function SweepControls({ sweep }: { sweep: Sweep }) {
  const { api } = useBridge();
  const store = useSweepStore();
  const [busy, setBusy] = useState<Action | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** Pause takes effect between runs: until then the sweep still reads running. */
  const [pauseAsked, setPauseAsked] = useState(false);
  const { status } = sweep;
  // Once it has paused (or ended, or been resumed elsewhere) the request is answered.
  const [seenStatus, setSeenStatus] = useState(status);
  if (status !== seenStatus) {
    setSeenStatus(status);
    if (status !== 'running') setPauseAsked(false);
  }
  const pausing = pauseAsked && status === 'running';

  const act = async (action: Action) => {
    setBusy(action);
    setError(null);
    try {
      store.put(await api['sweeps.control']({ id: sweep.id, action }));
      setPauseAsked(action === 'pause');
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(null);
    }
  };

  const live = isActive(sweep);
  const canPause = (status === 'running' || status === 'queued') && !pausing;
  const canResume = status === 'paused' || status === 'interrupted' || pausing;
  const canSkip = status === 'running' && (sweep.progress.currentRunId !== null || sweep.progress.waiting !== null);
  const button = (action: Action, label: string, enabled: boolean, className = 'button') => (
    <button
      type="button"
      className={className}
      data-testid={`sweep-${action}`}
      title={ACTION_TITLES[action]}
      disabled={!enabled || busy !== null}
      onClick={() => void act(action)}
    >
      {busy === action ? `${label}…` : label}
    </button>
  );

  return (
    <div className="sweep-controls">
      {pausing && (
        <span className="stopping-note" role="status" data-testid="sweep-pausing">
          Pausing after the current run…
        </span>
      )}
      {(live || status === 'interrupted') && (
        <>
          {status !== 'interrupted' && button('pause', 'Pause', canPause)}
          {button('resume', 'Resume', canResume, status === 'interrupted' ? 'button primary' : 'button')}
          {status !== 'interrupted' && button('skip', 'Skip current', canSkip)}
          {status !== 'interrupted' && button('cancel', 'Cancel', live, 'button danger')}
        </>
      )}
      {error && (
        <p className="inline-error" role="alert" data-testid="sweep-control-error">
          {error}
        </p>
      )}
    </div>
  );
}
