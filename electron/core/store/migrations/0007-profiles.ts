// Step profiles: one per profiled run (its summary as JSON, its Chrome trace as a file beside the database).
import type { Migration } from './index.js';

export const profiles: Migration = {
  version: 7,
  name: 'profiles',
  sql: `
    CREATE TABLE run_profiles (
      run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
      -- The run whose command was run again to make it; NULL when the run profiled itself.
      source_run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
      tool TEXT,
      profile_json TEXT NOT NULL,
      trace_path TEXT,
      created_at TEXT NOT NULL
    );
    CREATE INDEX run_profiles_by_source ON run_profiles (source_run_id);
  `,
};
