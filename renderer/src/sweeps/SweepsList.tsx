// The sweeps, newest first: the full list (#/sweeps) and the sidebar's short one, each with status and progress, and
// sweeps an engine left interrupted offered for resumption.
import { useState } from 'react';
import type { Sweep } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage, formatStartTime } from '../shared/format.js';
import { useView, viewHash } from '../route.js';
import { useSweeps, useSweepStore } from '../shared/sweepStore.js';
import { formatEta, isActive, planLabel } from './sweepText.js';
import { SweepProgressBar, SweepStatusBadge } from './SweepStatus.js';
import './sweeps.css';

/** The sidebar shows this many; the rest are one click away on the full list. */
const SIDEBAR_SWEEPS = 4;

/** Resumes a sweep whose engine died: what is left runs, the finished runs are kept. */
export function ResumeSweepButton({ sweep, small = false }: { sweep: Sweep; small?: boolean }) {
  const { api } = useBridge();
  const store = useSweepStore();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const resume = async () => {
    setBusy(true);
    setError(null);
    try {
      store.put(await api['sweeps.control']({ id: sweep.id, action: 'resume' }));
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="resume-sweep">
      <button
        type="button"
        className={`button primary ${small ? 'small' : ''}`}
        data-testid={`resume-sweep-${sweep.id}`}
        disabled={busy}
        title="The engine stopped during this sweep; run what is left"
        onClick={() => void resume()}
      >
        {busy ? 'Resuming…' : 'Resume'}
      </button>
      {error && (
        <span className="field-error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}

/** Live and interrupted sweeps first (they want attention), then the newest. */
function byAttention(sweeps: readonly Sweep[]): Sweep[] {
  const rank = (sweep: Sweep) => (isActive(sweep) ? 0 : sweep.status === 'interrupted' ? 1 : 2);
  return [...sweeps].sort((a, b) => rank(a) - rank(b) || b.id - a.id);
}

export function SweepsSidebar({ selectedId }: { selectedId: number | null }) {
  const { sweeps } = useSweeps();
  const [view, navigate] = useView();
  const shown = byAttention(sweeps).slice(0, SIDEBAR_SWEEPS);
  return (
    <section className="sweeps-sidebar" aria-label="Sweeps" data-testid="sweeps-sidebar">
      <div className="sidebar-header">
        <h2>Sweeps</h2>
        <span className="spacer" />
        <button
          type="button"
          className="button small"
          data-testid="all-sweeps-button"
          aria-current={view.kind === 'sweeps' ? 'page' : undefined}
          onClick={() => navigate({ kind: 'sweeps' })}
        >
          All{sweeps.length > 0 ? ` (${sweeps.length})` : ''}
        </button>
        <button
          type="button"
          className="button primary small"
          data-testid="new-sweep-button"
          aria-current={view.kind === 'new-sweep' ? 'page' : undefined}
          onClick={() => navigate({ kind: 'new-sweep' })}
        >
          + New sweep
        </button>
      </div>
      {shown.length === 0 ? (
        <div className="runs-empty sweeps-empty">No sweeps yet: “New sweep” runs configs against a baseline.</div>
      ) : (
        <ul className="runs-list sweeps-list" data-testid="sweeps-list">
          {shown.map((sweep) => (
            <li key={sweep.id} className="sweep-row-item">
              <button
                type="button"
                className="run-row sweep-row"
                data-testid={`sweep-row-${sweep.id}`}
                aria-current={sweep.id === selectedId ? 'true' : undefined}
                onClick={() => navigate({ kind: 'sweep', id: sweep.id })}
              >
                <span className="run-row-line">
                  <span className="run-id">#{sweep.id}</span>
                  <span className="run-name" title={sweep.name}>
                    {sweep.name}
                  </span>
                  <SweepStatusBadge status={sweep.status} endedNote={sweep.endedNote} testId="sweep-row-status" />
                </span>
                <span className="run-row-line run-row-meta">
                  <SweepProgressBar sweep={sweep} compact />
                </span>
              </button>
              {sweep.status === 'interrupted' && <ResumeSweepButton sweep={sweep} small />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function SweepsList() {
  const { sweeps, loaded, error } = useSweeps();
  const [, navigate] = useView();
  const interrupted = sweeps.filter((s) => s.status === 'interrupted');
  return (
    <section className="sweeps-page" aria-label="Sweeps">
      <header className="view-header">
        <h2>Sweeps</h2>
        <span className="spacer" />
        <button type="button" className="button primary" onClick={() => navigate({ kind: 'new-sweep' })}>
          + New sweep
        </button>
      </header>
      {error && (
        <p className="inline-error sweeps-page-note" role="alert">
          Could not list the sweeps: {error}
        </p>
      )}
      {interrupted.length > 0 && (
        <p className="sweep-interrupted sweeps-page-note" data-testid="interrupted-note">
          {interrupted.length === 1 ? 'One sweep was' : `${interrupted.length} sweeps were`} interrupted when the engine stopped; resume to run what is left.
        </p>
      )}
      {loaded && sweeps.length === 0 && <p className="placeholder">No sweeps yet.</p>}
      {sweeps.length > 0 && (
        <div className="table-scroll sweeps-page-table">
          <table className="sweep-table" data-testid="sweeps-table">
            <thead>
              <tr>
                <th>#</th>
                <th>Name</th>
                <th>Plan</th>
                <th>Status</th>
                <th>Progress</th>
                <th>Created</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {sweeps.map((sweep) => {
                const eta = isActive(sweep) ? formatEta(sweep.progress.etaSeconds) : null;
                return (
                  <tr key={sweep.id} data-testid={`sweeps-table-row-${sweep.id}`}>
                    <td className="num">{sweep.id}</td>
                    <td>
                      <a href={viewHash({ kind: 'sweep', id: sweep.id })}>{sweep.name}</a>
                    </td>
                    <td>{planLabel(sweep)}</td>
                    <td>
                      <SweepStatusBadge status={sweep.status} endedNote={sweep.endedNote} testId="sweeps-table-status" />
                    </td>
                    <td>
                      <SweepProgressBar sweep={sweep} />
                      {eta && <span className="hint">about {eta} left</span>}
                    </td>
                    <td>
                      <time dateTime={sweep.createdAt}>{formatStartTime(sweep.createdAt)}</time>
                    </td>
                    <td>{sweep.status === 'interrupted' && <ResumeSweepButton sweep={sweep} small />}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
