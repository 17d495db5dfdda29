// How long a bulk writer leaves the file's write lock free: half its time while a run is recorded, a moment otherwise.
import { describe, expect, it } from 'vitest';
import { BULK_WRITE_GAP_MS, BULK_WRITE_GAP_NOTHING_RECORDING_MS, bulkWriteGapMs } from '../../../electron/core/ingest/writeTurns.js';

describe('bulk write gaps', () => {
  it('leave the lock free at least as long as the transaction took while a run is recorded, and never under the floor', () => {
    expect(bulkWriteGapMs(25)).toBe(25);
    expect(bulkWriteGapMs(25, true)).toBe(25);
    expect(bulkWriteGapMs(2, true)).toBe(BULK_WRITE_GAP_MS);
  });

  it('leave it free a moment only while no run is recorded (an import alone), however long the transaction took', () => {
    expect(bulkWriteGapMs(25, false)).toBe(BULK_WRITE_GAP_NOTHING_RECORDING_MS);
    expect(bulkWriteGapMs(2, false)).toBe(BULK_WRITE_GAP_NOTHING_RECORDING_MS);
    expect(BULK_WRITE_GAP_NOTHING_RECORDING_MS).toBeLessThan(BULK_WRITE_GAP_MS);
  });
});
