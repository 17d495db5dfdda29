// freeBuffer: a buffer's memory dropped when its owner is done with it, and never one another view still reads.
import { describe, expect, it } from 'vitest';
import { freeBuffer } from '../../../electron/core/store/freeBuffer.js';
import { SampleColumns } from '../../../electron/core/store/sampleColumns.js';

describe('freeBuffer', () => {
  it('frees a buffer of its own at once: its view reads as empty after', () => {
    const chunk = Buffer.allocUnsafeSlow(256 * 1024).fill(7);
    freeBuffer(chunk);
    expect(chunk.buffer.detached).toBe(true);
    expect(chunk.byteLength).toBe(0);
    // Twice is harmless (a chunk stored, then its run ended).
    freeBuffer(chunk);
  });

  it('leaves a view that shares its buffer alone: a slice, a small pooled Buffer, a shared buffer', () => {
    const whole = new Uint8Array(1024).fill(1);
    const slice = whole.subarray(0, 512);
    freeBuffer(slice);
    expect(whole.buffer.detached).toBe(false);
    expect(whole[1000]).toBe(1);
    const pooled = Buffer.from('step 1: loss 2.5');
    freeBuffer(pooled);
    expect(pooled.toString()).toBe('step 1: loss 2.5');
    const shared = new Uint8Array(new SharedArrayBuffer(64)).fill(3);
    freeBuffer(shared);
    expect(shared[0]).toBe(3);
  });

  it("frees columns cut for another thread, and the receiver's columns hold every sample", () => {
    const columns = new SampleColumns(4096);
    for (let i = 0; i < 3000; i++) columns.push(i, 1000 + i, i % 2 === 0 ? 'loss' : 'lr', i / 10, 'text', 'train');
    const kept = columns.step;
    const { packed } = columns.pack();
    expect((kept.buffer as ArrayBuffer).detached).toBe(true);
    const received = SampleColumns.unpack(packed);
    expect(received.length).toBe(3000);
    expect(received.sample(2999)).toEqual(expect.objectContaining({ step: 2999, tMs: 3999, name: 'lr', value: 299.9 }));
    received.release();
    expect(received.length).toBe(0);
    expect((packed.value.buffer as ArrayBuffer).detached).toBe(true);
  });

  it('frees the smaller columns a growing SampleColumns leaves behind, keeping every sample', () => {
    const columns = new SampleColumns(1024);
    const first = columns.value;
    for (let i = 0; i < 5000; i++) columns.push(i, i, 'loss', i * 2, 'text', 'train');
    expect((first.buffer as ArrayBuffer).detached).toBe(true);
    expect(columns.value[4999]).toBe(9998);
    expect(columns.value[0]).toBe(0);
  });
});
