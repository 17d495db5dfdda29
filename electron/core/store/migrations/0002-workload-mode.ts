// Workloads gain a command mode (argv template or shell script), a tokens-per-step expression and a metric regex.
import type { Migration } from './index.js';

export const workloadMode: Migration = {
  version: 2,
  name: 'workload-mode',
  sql: `
    ALTER TABLE workloads ADD COLUMN mode TEXT NOT NULL DEFAULT 'argv' CHECK (mode IN ('argv', 'shell'));
    ALTER TABLE workloads ADD COLUMN tokens_per_step TEXT NOT NULL DEFAULT '';
    ALTER TABLE workloads ADD COLUMN metric_regex TEXT NOT NULL DEFAULT '';
  `,
};
