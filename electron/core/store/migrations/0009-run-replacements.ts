// A sweep's run that was interrupted (its engine crashed or quit) is run again when the sweep resumes: the new run names the one it replaces.
import type { Migration } from './index.js';

export const runReplacements: Migration = {
  version: 9,
  name: 'run-replacements',
  sql: `
    -- The interrupted run of the same sweep, config and repeat that this run was started to replace.
    ALTER TABLE runs ADD COLUMN replaces_run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL;
    CREATE INDEX runs_by_replaced ON runs (replaces_run_id);
  `,
};
