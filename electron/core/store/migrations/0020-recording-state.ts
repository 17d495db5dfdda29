// What happened while a run was recorded gets columns of its own, out of the environment fingerprint
// (store/recordingState.ts): notes as JSON arrays of text, the survivors' pids as a JSON array, the orphan mark a flag.
import type { Db } from '../open.js';
import { carriesRecordingState, splitLegacyFingerprint } from '../recordingState.js';
import type { Migration } from './index.js';

function moveOutOfFingerprints(db: Db): void {
  const rows = db.prepare<[], { id: number; fingerprint_json: string }>('SELECT id, fingerprint_json FROM runs WHERE fingerprint_json IS NOT NULL').all();
  const update = db.prepare(
    `UPDATE runs SET fingerprint_json = @fingerprint, telemetry_notes_json = @telemetry, parsing_notes_json = @parsing,
       survivor_pids_json = @survivors, orphaned = @orphaned WHERE id = @id`,
  );
  for (const row of rows) {
    let stored: unknown;
    try {
      stored = JSON.parse(row.fingerprint_json);
    } catch {
      continue;
    }
    if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) continue;
    const record = stored as Record<string, unknown>;
    if (!carriesRecordingState(record)) continue;
    const { fingerprint, state } = splitLegacyFingerprint(record);
    update.run({
      id: row.id,
      fingerprint: JSON.stringify(fingerprint),
      telemetry: state.telemetryNotes.length > 0 ? JSON.stringify(state.telemetryNotes) : null,
      parsing: state.parsingNotes.length > 0 ? JSON.stringify(state.parsingNotes) : null,
      survivors: state.survivorPids.length > 0 ? JSON.stringify(state.survivorPids) : null,
      orphaned: state.orphaned ? 1 : 0,
    });
  }
}

export const recordingState: Migration = {
  version: 20,
  name: 'recording-state',
  sql: `
    -- JSON arrays of text, NULL for none: why GPU telemetry is missing or failed, and why parsing was switched off.
    ALTER TABLE runs ADD COLUMN telemetry_notes_json TEXT;
    ALTER TABLE runs ADD COLUMN parsing_notes_json TEXT;
    -- JSON array of pids still alive after the run ended or was stopped; NULL for none.
    ALTER TABLE runs ADD COLUMN survivor_pids_json TEXT;
    -- 1: an interrupted run whose processes outlived its dead engine, listed by every face until they are stopped.
    ALTER TABLE runs ADD COLUMN orphaned INTEGER NOT NULL DEFAULT 0;
  `,
  convert: moveOutOfFingerprints,
};
