// Work per step stated by the user, each run's earlier summaries (kept when parsed again), and the code each run ran (git).
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
    -- {"root", "commit", "branch", "dirty", "diffSha256", "diffBytes"} of the run's directory, NULL outside git.
    ALTER TABLE runs ADD COLUMN git_json TEXT;
    -- Uncommitted diffs by their hash: ten runs of one working tree store it once.
    CREATE TABLE code_diffs (
      sha256 TEXT PRIMARY KEY,
      diff BLOB NOT NULL
    );
  `,
};
