// Warnings for training processes that outlived a previous engine, each with a button that stops it.
import { useCallback, useEffect, useState } from 'react';
import type { Orphan } from '../../../electron/shared/api.js';
import { useBridge, useConnectionState } from '../bridge/context.js';
import { errorMessage, shellJoin } from '../shared/format.js';

/** The engine sends SIGTERM, then SIGKILL after 3 s (core/runner/orphans.ts); look again just after that. */
const REFRESH_AFTER_KILL_MS = 3_500;

export function OrphanBanners() {
  const { api } = useBridge();
  const connection = useConnectionState();
  const [orphans, setOrphans] = useState<readonly Orphan[]>([]);
  const [stopping, setStopping] = useState<ReadonlySet<number>>(() => new Set());
  const [error, setError] = useState<string | null>(null);

  /** The list, or null when it could not be had (a warning in the console: the banner is an extra, not the job). */
  const fetchOrphans = useCallback(
    () =>
      api['runs.orphans']({}).catch((failure: unknown) => {
        console.warn(`runs.orphans: ${errorMessage(failure)}`);
        return null;
      }),
    [api],
  );

  // On load, and after a reconnect: the server may have restarted and found some.
  useEffect(() => {
    if (connection !== 'open') return;
    let cancelled = false;
    void fetchOrphans().then((list) => {
      if (list && !cancelled) setOrphans(list);
    });
    return () => {
      cancelled = true;
    };
  }, [connection, fetchOrphans]);

  const stop = async (runId: number) => {
    setError(null);
    setStopping((prev) => new Set(prev).add(runId));
    try {
      await api['runs.killOrphan']({ runId });
      await new Promise((resolve) => setTimeout(resolve, REFRESH_AFTER_KILL_MS));
    } catch (failure) {
      setError(`Could not stop run #${runId}'s process: ${errorMessage(failure)}`);
    }
    const list = await fetchOrphans();
    if (list) setOrphans(list);
    setStopping((prev) => new Set([...prev].filter((id) => id !== runId)));
  };

  if (orphans.length === 0 && error === null) return null;
  return (
    <div className="orphan-banners">
      {orphans.map((orphan) => (
        <div className="orphan-banner" role="alert" data-testid="orphan-banner" key={orphan.runId}>
          <span className="orphan-text">
            <strong>
              Run #{orphan.runId} left a training process running when Tuning Bench stopped (pid {orphan.pid}
              {alsoRunning(orphan).length > 0 ? `; also ${alsoRunning(orphan).join(', ')}` : ''}):
            </strong>{' '}
            <code>{shellJoin(orphan.command)}</code>
          </span>
          <button
            type="button"
            className="button small danger"
            data-testid={`orphan-stop-${orphan.runId}`}
            disabled={stopping.has(orphan.runId)}
            onClick={() => void stop(orphan.runId)}
          >
            {stopping.has(orphan.runId) ? 'Stopping…' : 'Stop it'}
          </button>
        </div>
      ))}
      {error && (
        <div className="orphan-banner failed" role="alert">
          {error}
        </div>
      )}
    </div>
  );
}

/** The run's other processes still alive (those that left its group too): all of them are stopped with it. */
function alsoRunning(orphan: Orphan): number[] {
  return orphan.pids.filter((pid) => pid !== orphan.pid);
}
