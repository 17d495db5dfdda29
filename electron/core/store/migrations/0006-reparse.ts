// Work per step stated by the user (tokens or samples), and each run's earlier summaries, kept when a run is parsed again.
import type { Migration } from './index.js';

export const reparse: Migration = {
  version: 6,
  name: 'reparse',
  sql: `
    -- {"tokens": N|null, "samples": N|null} as given with the run (--tokens-per-step, --samples-per-step).
    ALTER TABLE runs ADD COLUMN units_per_step_json TEXT;
    CREATE TABLE run_summary_history (
      id INTEGER PRIMARY KEY,
      run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      replaced_at TEXT NOT NULL,
      reason TEXT NOT NULL,
      summary_json TEXT NOT NULL
    );
    CREATE INDEX run_summary_history_by_run ON run_summary_history (run_id, id);
  `,
};
