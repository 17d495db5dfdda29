// A metric block's BLOB in a table of its own, and its first, last, lowest and highest samples beside its index row
// (see store/sampleBlocks.ts): listing a long run's blocks read every block with it, and its charts decoded them all.
import { addBlockPoints, SPLIT_BLOCK_DATA_SQL } from '../sampleBlocks.js';
import type { Migration } from './index.js';

export const blockDataApart: Migration = {
  version: 19,
  name: 'block-data-apart',
  sql: SPLIT_BLOCK_DATA_SQL,
  convert: addBlockPoints,
  slowConvert: 'its metric samples are moved',
};
