// Publishing to an MLflow tracking server: this database's identity, what was published where, the setting, and runs pulled back from another box.
import type { Migration } from './index.js';

export const mlflow: Migration = {
  version: 12,
  name: 'mlflow',
  sql: `
    -- One row: a random id for this database. Every MLflow run it publishes carries it (with the run's id), so
    -- publishing again finds that run instead of making another, and a run pulled back is known as another database's.
    CREATE TABLE database_identity (
      singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
      uuid TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    INSERT INTO database_identity (singleton, uuid, created_at)
      VALUES (1, lower(hex(randomblob(16))), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));

    -- What was published where: one row per run, sweep or comparison and tracking server and experiment. The URI is
    -- kept without credentials (those come from MLflow's own environment variables and are never stored).
    CREATE TABLE mlflow_publications (
      id INTEGER PRIMARY KEY,
      tracking_uri TEXT NOT NULL,
      experiment_name TEXT NOT NULL,
      experiment_id TEXT,
      run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE,
      sweep_id INTEGER REFERENCES sweeps(id) ON DELETE CASCADE,
      -- A comparison: a digest of what it compares (runs, sweeps, baseline, gate), and the request itself.
      comparison_key TEXT,
      comparison_json TEXT,
      mlflow_run_id TEXT,
      -- pending: asked for while the run or sweep was still running, published by the engine recording it when it ends.
      state TEXT NOT NULL CHECK (state IN ('pending', 'published', 'failed')),
      -- sha256 of everything sent: publishing the same again sends nothing.
      digest TEXT,
      requested_at TEXT NOT NULL,
      published_at TEXT,
      error TEXT,
      CHECK ((run_id IS NOT NULL) + (sweep_id IS NOT NULL) + (comparison_key IS NOT NULL) = 1)
    );
    CREATE UNIQUE INDEX mlflow_publications_of_run ON mlflow_publications (run_id, tracking_uri, experiment_name) WHERE run_id IS NOT NULL;
    CREATE UNIQUE INDEX mlflow_publications_of_sweep ON mlflow_publications (sweep_id, tracking_uri, experiment_name) WHERE sweep_id IS NOT NULL;
    CREATE UNIQUE INDEX mlflow_publications_of_comparison ON mlflow_publications (comparison_key, tracking_uri, experiment_name) WHERE comparison_key IS NOT NULL;

    -- One row: where to publish from the UI, and whether every finished run and sweep is published on its own.
    CREATE TABLE mlflow_settings (
      singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
      tracking_uri TEXT,
      experiment_name TEXT,
      auto_publish INTEGER NOT NULL DEFAULT 0
    );

    -- A run pulled back from MLflow (published by another box): where it came from and the machine it ran on. Such a
    -- run is read-only here; NULL for every run this database recorded itself.
    ALTER TABLE runs ADD COLUMN origin_json TEXT;
  `,
};
