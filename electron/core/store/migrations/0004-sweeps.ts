// Sweeps: a plan of configs run as one controlled experiment; each run knows its sweep, config and repeat.
import type { Migration } from './index.js';

export const sweeps: Migration = {
  version: 4,
  name: 'sweeps',
  sql: `
    CREATE TABLE sweeps (
      id INTEGER PRIMARY KEY,
      created_at TEXT NOT NULL,
      name TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('sweep', 'batch-finder')),
      workload_id INTEGER REFERENCES workloads(id) ON DELETE SET NULL,
      workload_name TEXT NOT NULL,
      plan TEXT NOT NULL,
      -- The whole request (values, variables varied, repeats, limits, fair conditions, GPU settings) as given.
      request_json TEXT NOT NULL,
      -- The planned configs: name, values, changes against the baseline.
      configs_json TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'paused', 'succeeded', 'failed', 'cancelled', 'interrupted')),
      -- Schedule positions skipped by a person or because their config ran out of memory.
      skipped_json TEXT NOT NULL DEFAULT '[]',
      owner_pid INTEGER,
      ended_at TEXT,
      -- What a batch-size finder found.
      result_json TEXT,
      -- Why it could not go on (GPU settings refused, the workload gone), for a person to read.
      error TEXT
    );
    ALTER TABLE runs ADD COLUMN sweep_id INTEGER REFERENCES sweeps(id) ON DELETE SET NULL;
    ALTER TABLE runs ADD COLUMN config_index INTEGER;
    ALTER TABLE runs ADD COLUMN repeat_index INTEGER;
    -- How long the run waited for an idle, cool GPU before it started, and why it stopped waiting.
    ALTER TABLE runs ADD COLUMN wait_json TEXT;
    CREATE INDEX runs_by_sweep ON runs (sweep_id, config_index, repeat_index);
  `,
};
