import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { freeBuffer, releaseIdleHeap } from '../../../electron/core/system/heapRelease.js';
import { SampleColumns } from '../../../electron/core/store/sampleColumns.js';

const newSpaceBytes = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_size;

/** Short-lived objects with some kept a while, as a dense log's parse makes them: V8 grows the young generation for it. */
function churn(): number {
  let kept: Array<{ step: number; values: number[] }> = [];
  let count = 0;
  for (let i = 0; i < 4_000_000; i++) {
    const sample = { step: i, values: [i, i / 2] };
    if (i % 50 === 0) kept.push(sample);
    if (kept.length > 50_000) {
      count += kept.length;
      kept = [];
    }
  }
  return count + kept.length;
}

describe('releaseIdleHeap', () => {
  it('shrinks a young generation grown by a parse back to a few MiB on this thread', () => {
    churn();
    const grown = newSpaceBytes();
    expect(grown).toBeGreaterThan(8 * 1024 * 1024);
    expect(releaseIdleHeap()).toBe(true);
    expect(newSpaceBytes()).toBeLessThanOrEqual(4 * 1024 * 1024);
    // Again: the hook is kept, and the heap works on after it.
    expect(releaseIdleHeap()).toBe(true);
    expect(churn()).toBeGreaterThan(0);
  });

  it('works on a worker thread, where the ingest threads call it', async () => {
    // The worker imports the module by its file: TypeScript under tsx, as ingest's workers run in tests.
    const source = new URL('../../../electron/core/system/heapRelease.ts', import.meta.url).href;
    const tsx = import.meta.resolve('tsx/esm/api');
    const script = `
      const { parentPort } = await import('node:worker_threads');
      (await import(${JSON.stringify(tsx)})).register();
      const { releaseIdleHeap } = await import(${JSON.stringify(source)});
      parentPort.postMessage(releaseIdleHeap());
    `;
    const worker = new Worker(`import(${JSON.stringify('data:text/javascript,' + encodeURIComponent(script))})`, { eval: true });
    const released = await new Promise<unknown>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(released).toBe(true);
  });
});

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
