// Coloured badges for a run's status and, when it was not ok, its exit class.
import type { ExitClass, RunStatus } from '../../../electron/shared/api.js';

/** The text is the raw status, so tests and people read the same word the CLI prints. */
export function StatusBadge({ status, testId = 'status-badge' }: { status: RunStatus; testId?: string }) {
  return (
    <span className={`badge status status-${status}`} data-testid={testId}>
      {status === 'running' && <span className="pulse" aria-hidden="true" />}
      {status}
    </span>
  );
}

export function ExitClassBadge({ exitClass, testId = 'exit-class-badge' }: { exitClass: ExitClass | null; testId?: string }) {
  if (exitClass === null || exitClass === 'ok') return null;
  return (
    <span className={`badge exit-class exit-${exitClass}`} data-testid={testId} title="How the run ended, as classified by the engine">
      {exitClass}
    </span>
  );
}
