// A run keeps the knobs it asked for and what each did, with the script's line it applied at.
import type { Migration } from './index.js';

export const runKnobs: Migration = {
  version: 16,
  name: 'run-knobs',
  sql: `
    -- JSON {requested, torch, cuda, knobs: [{name, value, state, outcomes: [{status, what, reason, file, line}]}], warmupUntilMs, notes}
    -- (shared/knobs.ts runKnobs). NULL for a run without knobs, and for runs stored before knobs existed.
    ALTER TABLE runs ADD COLUMN knobs_json TEXT;
  `,
};
