// A full disk or a busy file pauses writing: every live run's page (and the CLI) says so, and again when it resumes.
import type { EventHub } from '../events.js';
import type { RunManager } from '../runner/runManager.js';
import type { Recording } from '../ingest/recording.js';

export function sayWriteStatus(recording: Recording, runner: RunManager, events: EventHub): void {
  recording.onWriteStatus((status) => {
    const level = status.state === 'paused' ? 'warning' : 'info';
    const message = status.state === 'paused' ? status.message : 'Writing resumed: everything kept in memory meanwhile is stored.';
    for (const runId of runner.activeRunIds()) events.emit('runs.onTelemetryStatus', { runId, level, message });
  });
  recording.output.onDropping((runId, limitBytes) => {
    const message =
      `Writing is paused and the output held in memory reached ${Math.round(limitBytes / 1024 / 1024)} MiB: ` +
      'later output is still read for metrics but not kept until the disk has space again. The run page says how much was dropped.';
    events.emit('runs.onTelemetryStatus', { runId, level: 'warning', message });
  });
}
