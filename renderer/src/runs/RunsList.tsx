// The sidebar's list of runs, newest first, each with its status, start time, duration and output size.
import type { Run } from '../../../electron/shared/api.js';
import { formatBytes, formatDuration, formatStartTime, runDurationMs } from '../shared/format.js';
import { useNow } from '../shared/useNow.js';
import { runLabel } from './runLabel.js';
import { useSweeps } from '../shared/sweepStore.js';
import { ExitClassBadge, StatusBadge } from '../shared/StatusBadge.js';

interface RunsListProps {
  runs: readonly Run[];
  selectedId: number | null;
  onSelect: (id: number) => void;
}

export function RunsList({ runs, selectedId, onSelect }: RunsListProps) {
  const now = useNow(runs.some((run) => run.status === 'running'));
  const { sweeps } = useSweeps();
  if (runs.length === 0) {
    return (
      <div className="runs-empty" data-testid="runs-list">
        No runs yet. Start one from “New run”.
      </div>
    );
  }
  return (
    <ul className="runs-list" data-testid="runs-list">
      {runs.map((run) => (
        <li key={run.id}>
          <button
            type="button"
            className="run-row"
            data-testid={`run-row-${run.id}`}
            aria-current={run.id === selectedId ? 'true' : undefined}
            onClick={() => onSelect(run.id)}
          >
            <span className="run-row-line">
              <span className="run-id">#{run.id}</span>
              <span className="run-name" title={runLabel(run, sweeps)}>
                {runLabel(run, sweeps)}
              </span>
              <StatusBadge status={run.status} />
            </span>
            <span className="run-row-line run-row-meta">
              <time dateTime={run.startedAt}>{formatStartTime(run.startedAt)}</time>
              <span>{formatDuration(runDurationMs(run, now))}</span>
              {run.origin ? (
                <span className="run-origin" data-testid={`run-origin-${run.id}`} title={`Pulled back from MLflow: recorded on ${run.origin.machine.label}`}>
                  from {run.origin.machine.label.split(' ')[0]}
                </span>
              ) : (
                <span>{formatBytes(run.outputBytes)}</span>
              )}
              <ExitClassBadge exitClass={run.exitClass} />
            </span>
          </button>
        </li>
      ))}
    </ul>
  );
}
