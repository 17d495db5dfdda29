import { describe, expect, it } from 'vitest';
import { TimeSlice } from '../../electron/core/system/timeSlice.js';
import { addWaitingInputReader, readWaitingInput } from '../../electron/core/system/waitingInput.js';

const busyWait = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('reading waiting input between pieces of long work', () => {
  it('reads every source at each pause of a time slice, not more often than every quarter millisecond', async () => {
    let reads = 0;
    const remove = addWaitingInputReader(() => {
      reads += 1;
      return true;
    });
    const slice = new TimeSlice(1_000);
    for (let piece = 0; piece < 5; piece++) {
      busyWait(0.5);
      await slice.pause();
    }
    const afterSpacedPieces = reads;
    const from = performance.now();
    for (let piece = 0; piece < 1_000; piece++) await slice.pause();
    const elapsedMs = performance.now() - from;
    remove();
    expect(afterSpacedPieces).toBe(5);
    // A thousand pauses back to back: one read per quarter millisecond they took at most, not one a pause.
    expect(reads - afterSpacedPieces).toBeLessThanOrEqual(Math.ceil(elapsedMs / 0.25) + 1);
    expect(reads - afterSpacedPieces).toBeLessThan(1_000);
  });

  it('drops a source once it says it is gone, and one removed is never read again', () => {
    let gone = 0;
    let removed = 0;
    addWaitingInputReader(() => {
      gone += 1;
      return false;
    });
    const remove = addWaitingInputReader(() => {
      removed += 1;
      return true;
    });
    remove();
    for (let round = 0; round < 3; round++) {
      busyWait(0.3);
      readWaitingInput();
    }
    expect(gone).toBe(1);
    expect(removed).toBe(0);
  });
});
