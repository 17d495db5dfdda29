// App-wide warning for GPU settings a run or sweep left in force when its engine died, with a button that puts
// them back: the desktop asks first rather than restoring on its own (the CLI restores at start and says so).
import { useEffect, useState } from 'react';
import type { MethodOutput } from '../../../electron/shared/api.js';
import { useBridge, useConnectionState } from '../bridge/context.js';
import { errorMessage } from '../shared/format.js';
import { useGpuStatus } from '../shared/gpuSettings/gpuStatus.js';

type RestoreResult = MethodOutput<'gpu.restoreAbandoned'>;
type Outcome = { ok: true; result: RestoreResult } | { ok: false; error: string };

function entriesText(entries: RestoreResult['restored']): string {
  return entries.map((entry) => entry.description).join('; ');
}

export function AbandonedGpuBanner() {
  const { api } = useBridge();
  const connection = useConnectionState();
  const { status, refresh } = useGpuStatus();
  const [restoring, setRestoring] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  // On load, and after a reconnect: a restarted server may find a dead engine's changes.
  useEffect(() => {
    if (connection === 'open') void refresh();
  }, [connection, refresh]);

  const restore = async () => {
    setRestoring(true);
    setOutcome(null);
    try {
      setOutcome({ ok: true, result: await api['gpu.restoreAbandoned']({}) });
    } catch (failure) {
      setOutcome({ ok: false, error: errorMessage(failure) });
    }
    await refresh();
    setRestoring(false);
  };

  const abandoned = status?.abandoned ?? [];
  if (abandoned.length === 0 && outcome === null) return null;
  return (
    <div className="orphan-banners" data-testid="gpu-abandoned-banners">
      {abandoned.length > 0 && (
        <div className="orphan-banner" role="alert" data-testid="gpu-abandoned-banner">
          <span className="orphan-text">
            <strong>GPU settings left by a run that did not finish are still in force:</strong> {entriesText(abandoned)}
          </span>
          <button type="button" className="button small" data-testid="gpu-restore-abandoned" disabled={restoring} onClick={() => void restore()}>
            {restoring ? 'Restoring…' : 'Restore now'}
          </button>
        </div>
      )}
      {outcome && (
        <div className={`orphan-banner ${outcome.ok && outcome.result.failed.length === 0 ? 'done' : 'failed'}`} role="status" data-testid="gpu-restore-result">
          <span className="orphan-text">
            {!outcome.ok && `Could not restore the GPU settings: ${outcome.error}`}
            {outcome.ok && outcome.result.restored.length > 0 && `Restored: ${entriesText(outcome.result.restored)}. `}
            {outcome.ok &&
              outcome.result.failed.length > 0 &&
              `Not restored: ${outcome.result.failed.map((e) => `${e.description}${e.error ? ` (${e.error})` : ''}`).join('; ')}`}
            {outcome.ok && outcome.result.restored.length === 0 && outcome.result.failed.length === 0 && 'Nothing was left to restore.'}
          </span>
          <button type="button" className="button small" data-testid="gpu-restore-dismiss" onClick={() => setOutcome(null)}>
            Dismiss
          </button>
        </div>
      )}
    </div>
  );
}
