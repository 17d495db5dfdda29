// Parsing a run again writes its new samples beside the old ones, invisible until one small update makes them the run's: no long write holds the file.
import type { Migration } from './index.js';

export const textGenerations: Migration = {
  version: 13,
  name: 'text-generations',
  sql: `
    -- Which parse of the run's terminal output a text sample belongs to (0: the first, as the run was recorded).
    ALTER TABLE metric_samples ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
    -- The parse whose text samples are the run's; the others are on their way in or out (see MetricStore).
    ALTER TABLE runs ADD COLUMN text_generation INTEGER NOT NULL DEFAULT 0;
  `,
};
