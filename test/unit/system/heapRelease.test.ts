// releaseIdleHeap: a thread's idle young generation handed back between an import's or a run's phases.
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { releaseIdleHeap } from '../../../electron/core/system/heapRelease.js';

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
    expect(releaseIdleHeap(0)).toBe(true);
    expect(newSpaceBytes()).toBeLessThanOrEqual(4 * 1024 * 1024);
    // Again: the hook is kept, and the heap works on after it.
    expect(churn()).toBeGreaterThan(0);
    expect(releaseIdleHeap(0)).toBe(true);
  });

  /** What a fresh worker thread says of releaseIdleHeap, before and after a parse-like churn. */
  async function onWorker(): Promise<{ fresh: boolean; afterChurn: boolean; newSpace: number }> {
    // The worker imports the module by its file: TypeScript under tsx, as ingest's workers run in tests.
    const source = new URL('../../../electron/core/system/heapRelease.ts', import.meta.url).href;
    const tsx = import.meta.resolve('tsx/esm/api');
    const script = `
      const { parentPort } = await import('node:worker_threads');
      const v8 = await import('node:v8');
      (await import(${JSON.stringify(tsx)})).register();
      const { releaseIdleHeap } = await import(${JSON.stringify(source)});
      // Above any process's size: a small process is left alone.
      const fresh = releaseIdleHeap(Number.MAX_SAFE_INTEGER);
      ${churn.toString()}
      churn();
      const afterChurn = releaseIdleHeap(0);
      const newSpace = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size;
      parentPort.postMessage({ fresh, afterChurn, newSpace });
    `;
    const worker = new Worker(`import(${JSON.stringify('data:text/javascript,' + encodeURIComponent(script))})`, { eval: true });
    const answer = await new Promise<{ fresh: boolean; afterChurn: boolean; newSpace: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    return answer;
  }

  it('works on a worker thread, where the ingest threads call it, and leaves a small heap alone', async () => {
    const { fresh, afterChurn, newSpace } = await onWorker();
    // A process under the bound (a short run's) is not paused for the little it would hand back.
    expect(fresh).toBe(false);
    expect(afterChurn).toBe(true);
    expect(newSpace).toBeLessThanOrEqual(4 * 1024 * 1024);
  });
});
