// The GPU lease has one holder: two runs asking at once cannot both lock the clocks, and a late release frees only its own lease.
import { afterEach, describe, expect, it } from 'vitest';
import { coreWithFakeGpu } from '../helpers/fakeGpu.js';
import type { TempCore } from '../helpers/tempCore.js';

let harness: TempCore | null = null;
afterEach(async () => {
  await harness?.cleanup();
  harness = null;
});

describe('the GPU lease', () => {
  it('lets only one of two simultaneous requests hold the GPU, and a second release of the first frees nothing of the next', async () => {
    harness = coreWithFakeGpu(undefined, { FAKE_NVIDIA_SMI_ROOT: '1', TUNING_BENCH_GPU_ELEVATION: 'auto' });
    const gpu = harness.core.gpu;
    const ask = (label: string, mhz: number) => gpu.acquire({ lockClocks: { minMHz: mhz, maxMHz: mhz } }, { scope: 'run', confirmOtherProcesses: true, label });
    // Asked together: exactly one holds the GPU, and the reservation made while the first is being applied is freed after.
    const outcomes = await Promise.allSettled([ask('run A', 2250), ask('run B', 2400)]);
    const granted = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(granted).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(String((refused[0] as PromiseRejectedResult).reason)).toMatch(/held by run [AB]/u);

    const first = (granted[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof ask>>>).value;
    await first.release();
    const next = await ask('run C', 2100);
    // The first lease released again (a run's end and the app's quit both ask): run C must still hold the GPU.
    await first.release();
    await expect(ask('run D', 2000)).rejects.toThrow(/held by run C/u);
    await next.release();
  }, 30_000);
});
