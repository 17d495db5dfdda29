import { describe, expect, it } from 'vitest';
import { ExternalChurn } from '../../../electron/core/store/externalChurn.js';

/** Reads like a long block read: a new Buffer outside V8's heap each time, dropped at once, almost nothing else made. */
function churnThrough(buffers: number, bytes: number, churn: ExternalChurn | null): number {
  let highest = 0;
  let checksum = 0;
  for (let i = 0; i < buffers; i++) {
    const data = Buffer.allocUnsafeSlow(bytes);
    data[0] = i & 0xff;
    checksum += data[0]!;
    churn?.note(data.byteLength);
    highest = Math.max(highest, process.memoryUsage().arrayBuffers);
  }
  expect(checksum).toBeGreaterThan(0);
  return highest;
}

describe('ExternalChurn', () => {
  it('keeps buffers read and dropped from piling up: outside memory stays within a few collections of them', () => {
    const before = process.memoryUsage().arrayBuffers;
    // 256 MiB read a block (128 KiB) at a time, a collection every 4 MiB.
    const highest = churnThrough(2048, 128 * 1024, new ExternalChurn(4 * 1024 * 1024));
    expect((highest - before) / 1024 / 1024).toBeLessThan(16);
  });
});
