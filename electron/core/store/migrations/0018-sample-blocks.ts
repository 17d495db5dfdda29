// A run's metric samples in blocks of a few thousand per metric instead of a row each (see store/sampleBlocks.ts).
import { CREATE_BLOCKS_SQL, moveRowsIntoBlocks } from '../sampleBlocks.js';
import type { Migration } from './index.js';

export const sampleBlocks: Migration = {
  version: 18,
  name: 'sample-blocks',
  sql: CREATE_BLOCKS_SQL,
  convert: moveRowsIntoBlocks,
  slowConvert: 'its metric samples are moved',
};
