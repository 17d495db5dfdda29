// New run's registered workload: the choice, its description and command, and editing or removing one of your own.
import { useState } from 'react';
import type { Workload } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage, shellJoin } from '../shared/format.js';
import { WorkloadOptions } from '../shared/runForm/WorkloadOptions.js';

export interface WorkloadChoiceProps {
  workloads: readonly Workload[];
  workload: Workload | null;
  onChoose: (id: number) => void;
  onEdit: (workload: Workload) => void;
  /** Removed (its runs are kept): the form falls back to the default workload. */
  onRemoved: () => void;
}

export function WorkloadChoice({ workloads, workload, onChoose, onEdit, onRemoved }: WorkloadChoiceProps) {
  const { api } = useBridge();
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [workloadError, setWorkloadError] = useState<string | null>(null);

  const remove = async (target: Workload) => {
    setWorkloadError(null);
    try {
      await api['workloads.remove']({ id: target.id });
      onRemoved();
      setConfirmRemove(false);
    } catch (error) {
      setWorkloadError(errorMessage(error));
    }
  };

  return (
    <>
      <label className="field">
        <span className="label">Workload</span>
        <select
          data-testid="workload-select"
          value={workload?.id ?? ''}
          onChange={(event) => onChoose(Number(event.target.value))}
          disabled={workloads.length === 0}
        >
          <WorkloadOptions workloads={workloads} />
        </select>
        {workload?.description && <span className="hint">{workload.description}</span>}
      </label>
      {workload && !workload.builtin && (
        <div className="workload-actions">
          <button type="button" className="button small" data-testid="edit-workload" onClick={() => onEdit(workload)}>
            Edit workload
          </button>
          {!confirmRemove ? (
            <button type="button" className="button small" data-testid="remove-workload" onClick={() => setConfirmRemove(true)}>
              Remove…
            </button>
          ) : (
            <span className="confirm-inline" role="group" aria-label="Confirm removal">
              Remove {workload.name}? Its runs are kept.
              <button type="button" className="button small danger" data-testid="confirm-remove-workload" onClick={() => void remove(workload)}>
                Remove
              </button>
              <button type="button" className="button small" onClick={() => setConfirmRemove(false)}>
                Keep
              </button>
            </span>
          )}
        </div>
      )}
      {workloadError && (
        <p className="inline-error" role="alert">
          {workloadError}
        </p>
      )}

      {workload && (
        <div className="template">
          <span className="label">{workload.mode === 'shell' ? 'Script (run with sh -c)' : 'Template'}</span>
          {workload.mode === 'shell' ? <pre className="mono script">{workload.command[0]}</pre> : <code className="mono">{shellJoin(workload.command)}</code>}
        </div>
      )}
    </>
  );
}
