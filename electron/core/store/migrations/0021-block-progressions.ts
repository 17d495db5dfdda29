// Sample blocks may from now on store a column that is an exact arithmetic progression as two numbers
// (store/blockEncoding.ts). Nothing is converted: blocks written before read as they were. The version moves so that
// an older Tuning Bench, which reads every block as four whole columns, refuses the file as made by a newer version
// instead of failing on each block it reads.
import type { Migration } from './index.js';

export const blockProgressions: Migration = {
  version: 21,
  name: 'block-progressions',
  sql: '',
};
