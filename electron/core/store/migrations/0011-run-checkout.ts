// A before/after side's run keeps where it ran (revision, commit, snapshot, links), so the side can be made again after its sweep.
import type { Migration } from './index.js';

export const runCheckout: Migration = {
  version: 11,
  name: 'run-checkout',
  sql: `
    -- The temporary git worktree the run ran in (a RunCheckout as JSON); null for a run in a directory of your own.
    ALTER TABLE runs ADD COLUMN checkout_json TEXT;
  `,
};
