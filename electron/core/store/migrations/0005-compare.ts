// Notes and tags on runs, and each run's charts decimated once when it ends (compare views open fast).
import type { Migration } from './index.js';

export const compare: Migration = {
  version: 5,
  name: 'compare',
  sql: `
    ALTER TABLE runs ADD COLUMN notes TEXT NOT NULL DEFAULT '';
    ALTER TABLE runs ADD COLUMN tags_json TEXT NOT NULL DEFAULT '[]';
    -- At most ~1000 points per series: throughput and loss by step, telemetry by time.
    CREATE TABLE run_series (
      run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
      series_json TEXT NOT NULL
    );
    CREATE INDEX runs_by_workload ON runs (workload_id, id);
  `,
};
