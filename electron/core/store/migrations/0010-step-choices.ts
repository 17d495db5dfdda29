// Warm-up and left-out steps a person sets by hand, for one run or for every run of a workload.
import type { Migration } from './index.js';

export const stepChoices: Migration = {
  version: 10,
  name: 'step-choices',
  sql: `
    -- {"warmupSteps": N | null, "excludeSteps": [...], "setBy": "run" | "sweep"}: what the summary uses over its own rules.
    ALTER TABLE runs ADD COLUMN step_choices_json TEXT;
    -- {"warmupSteps": N | null, "excludeSteps": [...]}: the same for every run of the workload, under a run's own.
    ALTER TABLE workloads ADD COLUMN step_choices_json TEXT;
  `,
};
