// Output a run printed while writing was paused (full disk) past the memory set aside to hold it: counted, never silent.
import type { Migration } from './index.js';

export const outputDropped: Migration = {
  version: 8,
  name: 'output-dropped',
  sql: `
    -- Bytes of output parsed for metrics but not stored: the disk was full and the held-back output reached its memory limit.
    ALTER TABLE runs ADD COLUMN output_dropped_bytes INTEGER NOT NULL DEFAULT 0;
  `,
};
