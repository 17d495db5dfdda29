// Processes are known by pid and start time: owners (engines of runs and sweeps, GPU changes) and every process a run started.
import type { Migration } from './index.js';

export const processIdentity: Migration = {
  version: 14,
  name: 'process-identity',
  sql: `
    -- /proc start times (clock ticks since boot) beside each owner pid: a pid the kernel reused is never taken for the owner.
    ALTER TABLE runs ADD COLUMN engine_start_ticks INTEGER;
    ALTER TABLE sweeps ADD COLUMN owner_start_ticks INTEGER;
    ALTER TABLE gpu_settings_journal ADD COLUMN owner_start_ticks INTEGER;
    -- A random token in every process of the run's environment: finds its processes that left its tree (double-forked daemons).
    ALTER TABLE runs ADD COLUMN process_marker TEXT;
    -- Every process a run started, as found while it ran: what recovery and Stop look for after the engine died.
    CREATE TABLE run_processes (
      run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      pid INTEGER NOT NULL,
      start_ticks INTEGER NOT NULL,
      PRIMARY KEY (run_id, pid, start_ticks)
    ) WITHOUT ROWID;
  `,
};
