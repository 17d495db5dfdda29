// A tune (the knobs' ladder on a command) is kept as it goes: a page that reloads finds it, and one whose engine
// stopped part way can be resumed from the step it reached.
import type { Migration } from './index.js';

export const tunes: Migration = {
  version: 17,
  name: 'tunes',
  sql: `
    CREATE TABLE tunes (
      id INTEGER PRIMARY KEY,
      created_at TEXT NOT NULL,
      ended_at TEXT,
      -- running, succeeded, failed, cancelled, interrupted (its engine stopped while it ran)
      status TEXT NOT NULL,
      -- The run whose page started it (Tune on a run), or NULL (the CLI, a typed command).
      source_run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
      -- shared/api/tune.ts tuneRequest, as parsed.
      request_json TEXT NOT NULL,
      -- shared/api/tune.ts tuneResult: the steps so far, written after each step.
      result_json TEXT NOT NULL,
      owner_pid INTEGER,
      owner_start_ticks INTEGER
    );
    CREATE INDEX tunes_by_source_run ON tunes (source_run_id, id);
  `,
};
