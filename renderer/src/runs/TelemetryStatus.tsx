// A run's telemetry news in the charts header: the newest message, and the rest newest first on request.
import type { TelemetryStatusEntry } from './telemetryStatus.js';
import './RunCharts.css';

const timeOfDay = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

export function TelemetryStatus({ entries }: { entries: readonly TelemetryStatusEntry[] }) {
  const newest = entries[0];
  if (!newest) return null;
  // The worst level seen colours the summary, so an earlier error is not hidden behind a later info line.
  const worst = entries.some((e) => e.level === 'error') ? 'error' : entries.some((e) => e.level === 'warning') ? 'warning' : 'info';
  return (
    <details className={`telemetry-status level-${worst}`} data-testid="telemetry-status">
      <summary title="Telemetry messages of this run">
        <span className={`status-dot level-${newest.level}`} aria-hidden="true" />
        <span className="status-text">{newest.message}</span>
        {entries.length > 1 && <span className="status-count">+{entries.length - 1}</span>}
      </summary>
      <ol className="telemetry-status-list" aria-label="Telemetry messages, newest first">
        {entries.map((entry) => (
          <li key={entry.id} className={`level-${entry.level}`} data-level={entry.level}>
            <time>{timeOfDay.format(entry.at)}</time>
            <span className="status-level">{entry.level}</span>
            <span>{entry.message}</span>
          </li>
        ))}
      </ol>
    </details>
  );
}
