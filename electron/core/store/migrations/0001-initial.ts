// First schema: workloads, runs, their output, metric and telemetry samples, and the GPU-settings journal.
import type { Migration } from './index.js';

export const initial: Migration = {
  version: 1,
  name: 'initial',
  sql: `
    CREATE TABLE workloads (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      description TEXT NOT NULL DEFAULT '',
      cwd TEXT NOT NULL,
      command_json TEXT NOT NULL,
      env_json TEXT NOT NULL DEFAULT '{}',
      variables_json TEXT NOT NULL DEFAULT '[]',
      builtin INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL
    );

    CREATE TABLE runs (
      id INTEGER PRIMARY KEY,
      workload_id INTEGER REFERENCES workloads(id) ON DELETE SET NULL,
      workload_name TEXT,
      status TEXT NOT NULL
        CHECK (status IN ('running', 'succeeded', 'failed', 'stopped', 'timed_out', 'interrupted')),
      exit_code INTEGER,
      signal TEXT,
      exit_class TEXT,
      exit_reason TEXT,
      started_at TEXT NOT NULL,
      ended_at TEXT,
      command_json TEXT NOT NULL,
      cwd TEXT NOT NULL,
      config_json TEXT NOT NULL DEFAULT '{}',
      env_json TEXT NOT NULL DEFAULT '{}',
      pid INTEGER,
      -- /proc/<pid>/stat start time, so a later start can tell the orphan from a reused pid.
      pid_start_ticks INTEGER,
      engine_pid INTEGER,
      output_bytes INTEGER NOT NULL DEFAULT 0,
      summary_json TEXT,
      gpu_settings_json TEXT
    );
    CREATE INDEX runs_by_start ON runs (started_at DESC);
    CREATE INDEX runs_by_status ON runs (status);

    -- Output as the program wrote it, in chunks merged over a few milliseconds. A rowid table:
    -- rows this large are slower WITHOUT ROWID (SQLite's own advice for rows over 1/20 of a page).
    CREATE TABLE run_output (
      run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      seq INTEGER NOT NULL,
      t_ms REAL NOT NULL,
      data BLOB NOT NULL
    );
    CREATE UNIQUE INDEX run_output_by_seq ON run_output (run_id, seq);

    -- One named value at a step; value NULL with a text of 'nan', 'inf' or '-inf' keeps what SQLite cannot store.
    CREATE TABLE metric_samples (
      run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      step INTEGER,
      t_ms REAL NOT NULL,
      name TEXT NOT NULL,
      value REAL,
      special TEXT CHECK (special IN ('nan', 'inf', '-inf')),
      -- text (parsed from the terminal), channel (TUNING_BENCH_METRICS), derived (computed by the engine)
      source TEXT NOT NULL,
      -- train, eval, progress (a progress bar's state) or summary (a framework's end-of-run totals)
      kind TEXT NOT NULL DEFAULT 'train'
    );
    CREATE INDEX metric_samples_by_run ON metric_samples (run_id, name, step);

    CREATE TABLE gpu_samples (
      run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      t_ms REAL NOT NULL,
      gpu_index INTEGER NOT NULL,
      util_gpu REAL,
      util_mem REAL,
      mem_used_mib REAL,
      mem_total_mib REAL,
      power_w REAL,
      temp_c REAL,
      sm_clock_mhz REAL,
      mem_clock_mhz REAL,
      throttle_reasons INTEGER,
      extra_json TEXT
    );
    CREATE INDEX gpu_samples_by_run ON gpu_samples (run_id, t_ms);

    CREATE TABLE host_samples (
      run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      t_ms REAL NOT NULL,
      cpu_total REAL,
      cpu_iowait REAL,
      mem_used_mib REAL,
      swap_used_mib REAL,
      proc_cpu REAL,
      proc_rss_mib REAL,
      extra_json TEXT
    );
    CREATE INDEX host_samples_by_run ON host_samples (run_id, t_ms);

    -- Every GPU setting change, written before it is applied, so a crash can be undone at next start.
    CREATE TABLE gpu_settings_journal (
      id INTEGER PRIMARY KEY,
      created_at TEXT NOT NULL,
      gpu TEXT NOT NULL,
      operation TEXT NOT NULL,
      prior_json TEXT NOT NULL,
      applied_json TEXT NOT NULL,
      scope TEXT NOT NULL CHECK (scope IN ('run', 'sweep', 'manual')),
      owner_pid INTEGER,
      run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
      state TEXT NOT NULL CHECK (state IN ('pending', 'applied', 'restored', 'failed')),
      restored_at TEXT,
      error TEXT
    );
  `,
};
