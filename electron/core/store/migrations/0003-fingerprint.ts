// Runs record the environment they ran in (GPU, driver, CPU, kernel, Python and PyTorch), to warn when comparisons differ.
import type { Migration } from './index.js';

export const fingerprint: Migration = {
  version: 3,
  name: 'fingerprint',
  sql: `ALTER TABLE runs ADD COLUMN fingerprint_json TEXT;`,
};
