// Workloads gain a command mode: an argv template (the default) or a shell script.
import type { Migration } from './index.js';

export const workloadMode: Migration = {
  version: 2,
  name: 'workload-mode',
  sql: `ALTER TABLE workloads ADD COLUMN mode TEXT NOT NULL DEFAULT 'argv' CHECK (mode IN ('argv', 'shell'));`,
};
