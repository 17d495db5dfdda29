// Sweep plans, the interleaved schedule, the estimate, the batch-size search and the fair-conditions wait.
import { describe, expect, it } from 'vitest';
import { findLargestBatch } from '../../../electron/core/experiments/batchFinder.js';
import { waitForFairConditions, type GpuReading } from '../../../electron/core/experiments/fairConditions.js';
import { estimateSeconds, interleavedSchedule, planConfigs, schedulePlace } from '../../../electron/core/experiments/plan.js';
import { ManualClock } from '../../../electron/core/clock.js';
import type { Run } from '../../../electron/shared/api.js';

const SEED_PLAN = [
  { name: 'batch', values: ['8', '16'] },
  { name: 'workers', values: ['0', '4'] },
  { name: 'amp', values: ['off', 'on'] },
  { name: 'compile', values: ['off', 'on'] },
];

describe('planConfigs', () => {
  it('ladder: each step adds one change to the one before', () => {
    const configs = planConfigs(SEED_PLAN, 'ladder', { steps: '100' });
    expect(configs.map((c) => c.name)).toEqual(['baseline', '+batch=16', '+workers=4', '+amp=on', '+compile=on']);
    expect(configs[0]!.values).toEqual({ steps: '100', batch: '8', workers: '0', amp: 'off', compile: 'off' });
    expect(configs[4]!.values).toEqual({ steps: '100', batch: '16', workers: '4', amp: 'on', compile: 'on' });
    expect(configs[3]!.changes).toEqual(['batch=16', 'workers=4', 'amp=on']);
  });

  it('a ladder through several values of one variable replaces, not stacks, its change', () => {
    const configs = planConfigs([{ name: 'batch', values: ['8', '16', '32'] }], 'ladder', {});
    expect(configs.map((c) => c.changes)).toEqual([[], ['batch=16'], ['batch=32']]);
  });

  it('one at a time: each change alone against the baseline', () => {
    const configs = planConfigs(SEED_PLAN, 'one-at-a-time', {});
    expect(configs.map((c) => c.name)).toEqual(['baseline', 'batch=16', 'workers=4', 'amp=on', 'compile=on']);
    expect(configs[3]!.values).toMatchObject({ batch: '8', workers: '0', amp: 'on', compile: 'off' });
  });

  it('grid: every combination, baseline first, named by what differs', () => {
    const configs = planConfigs(SEED_PLAN.slice(0, 2), 'grid', {});
    expect(configs.map((c) => c.name)).toEqual(['baseline', 'workers=4', 'batch=16', 'batch=16 workers=4']);
    expect(configs.map((c) => c.index)).toEqual([0, 1, 2, 3]);
  });

  it('drops repeated configs and refuses a variable varied twice or a huge grid', () => {
    expect(planConfigs([{ name: 'batch', values: ['8', '8', '16'] }], 'one-at-a-time', {})).toHaveLength(2);
    expect(() => planConfigs([SEED_PLAN[0]!, SEED_PLAN[0]!], 'ladder', {})).toThrow(/varied twice/u);
    const big = Array.from({ length: 9 }, (_, i) => ({ name: `v${i}`, values: ['1', '2'] }));
    expect(() => planConfigs(big, 'grid', {})).toThrow(/512 configs; at most 256/u);
  });
});

describe('interleavedSchedule', () => {
  it('runs A B C C B A, not A A B B C C: each round the other way, so a steady drift falls on every config alike', () => {
    expect(interleavedSchedule(3, 2).map((p) => `${p.configIndex}.${p.repeatIndex}`)).toEqual(['0.0', '1.0', '2.0', '2.1', '1.1', '0.1']);
    // Over two rounds every config's mean place in the run order is the same: linear drift cancels.
    const places = interleavedSchedule(3, 4).map((p, slot) => ({ ...p, slot }));
    const meanPlace = (config: number) => places.filter((p) => p.configIndex === config).reduce((sum, p) => sum + p.slot, 0) / 4;
    expect(new Set([0, 1, 2].map(meanPlace)).size).toBe(1);
  });

  it('numbers each position by its place in that order, from 1: "run 5 of 6" is config 2, repeat 2', () => {
    for (const [configs, repeats] of [
      [3, 2],
      [1, 5],
      [4, 3],
      [7, 1],
    ] as const) {
      const schedule = interleavedSchedule(configs, repeats);
      expect(schedule.map((position) => schedulePlace(position, configs))).toEqual(schedule.map((_position, slot) => slot + 1));
    }
    expect(schedulePlace({ configIndex: 1, repeatIndex: 1 }, 3)).toBe(5);
  });
});

describe('estimateSeconds', () => {
  const run = (config: Record<string, string>, seconds: number, steps: number | null = null): Run =>
    ({
      exitClass: 'ok',
      config,
      summary: { steps },
      startedAt: '2026-01-01T00:00:00.000Z',
      endedAt: new Date(Date.parse('2026-01-01T00:00:00.000Z') + seconds * 1000).toISOString(),
    }) as Run;

  it('uses a config’s own earlier runs, else the workload’s median run', () => {
    const configs = planConfigs([{ name: 'batch', values: ['8', '16'] }], 'ladder', {});
    const estimate = estimateSeconds(configs, 3, [run({ batch: '8' }, 10), run({ batch: '8' }, 12), run({ batch: '32' }, 30)]);
    // batch 8: median 11 s from its own runs; batch 16: the workload median (12 s); three repeats each.
    expect(estimate.seconds).toBeCloseTo(3 * 11 + 3 * 12);
    expect(estimate.basis).toMatch(/1 of 2 configs/u);
  });

  it('scales earlier runs of another length by their steps (a 300-step run says little of a 100-step one)', () => {
    const configs = planConfigs([{ name: 'batch', values: ['8', '16'] }], 'ladder', { steps: '100' });
    const history = [run({ batch: '8', steps: '300' }, 30, 300), run({ batch: '16', steps: '300' }, 90, 300), run({ batch: '32', steps: '300' }, 300, 300)];
    const estimate = estimateSeconds(configs, 2, history);
    // Each config from its own 300-step run, scaled to 100 steps: 10 s and 30 s.
    expect(estimate.seconds).toBeCloseTo(2 * 10 + 2 * 30);
    expect(estimate.basis).toMatch(/2 of 2 configs.*scaled by their steps/u);
    // A step limit shorter than the runs' own steps wins.
    expect(estimateSeconds(configs, 1, history, {}, 30).seconds).toBeCloseTo(3 + 9);
  });

  it('says it cannot estimate without history', () => {
    expect(estimateSeconds(planConfigs([{ name: 'a', values: ['1'] }], 'ladder', {}), 3, [])).toEqual({
      seconds: null,
      basis: expect.stringMatching(/no earlier/u),
    });
  });
});

describe('findLargestBatch', () => {
  const limit = (max: number) => async (batch: number) => (batch <= max ? ('fits' as const) : ('oom' as const));

  it('doubles to the first failure, then bisects to the largest fit', async () => {
    const result = await findLargestBatch(1, limit(24));
    expect(result).toMatchObject({ largestFit: 24, firstFailure: 25 });
    expect(result!.probes.map((p) => p.batch)).toEqual([1, 2, 4, 8, 16, 32, 24, 28, 26, 25]);
  });

  it('handles a power of two, a first batch that fails, and a cancel', async () => {
    expect(await findLargestBatch(1, limit(16))).toMatchObject({ largestFit: 16, firstFailure: 17 });
    expect(await findLargestBatch(8, limit(4))).toMatchObject({ largestFit: 4, firstFailure: 5 });
    expect(await findLargestBatch(1, limit(0))).toMatchObject({ largestFit: null, firstFailure: 1 });
    expect(await findLargestBatch(1, async () => 'cancelled')).toBeNull();
  });

  it('stops at the largest batch it may try, the cap itself included, where memory never runs out', async () => {
    const capped = await findLargestBatch(4, limit(Number.MAX_SAFE_INTEGER), 50);
    expect(capped).toMatchObject({ largestFit: 50, firstFailure: null });
    expect(capped!.probes.map((p) => p.batch)).toEqual([4, 8, 16, 32, 50]);
    expect((await findLargestBatch(4, limit(Number.MAX_SAFE_INTEGER), 64))!.probes.map((p) => p.batch)).toEqual([4, 8, 16, 32, 64]);
    expect(await findLargestBatch(4, limit(20), 64)).toMatchObject({ largestFit: 20, firstFailure: 21 });
  });
});

describe('waitForFairConditions', () => {
  /** Readings in turn (the last one repeated), on a clock the test moves: each poll's wait passes at once. */
  function fakeGpu(readings: GpuReading[]) {
    let i = 0;
    return {
      read: async () => readings[Math.min(i++, readings.length - 1)]!,
      clock: new ManualClock(),
    };
  }

  /** Lets `ms` pass on the gpu's clock, then the wait's answer (it must have answered by then). */
  async function after<T>(gpu: { clock: ManualClock }, ms: number, waiting: Promise<T>): Promise<T> {
    await gpu.clock.advanceAsync(ms);
    return waiting;
  }

  it('waits while another process uses the GPU, then until it is cool', async () => {
    const gpu = fakeGpu([
      { utilPercent: 95, tempC: 70, computeProcesses: 1 },
      { utilPercent: 0, tempC: 60, computeProcesses: 0 },
      { utilPercent: 0, tempC: 45, computeProcesses: 0 },
      { utilPercent: 0, tempC: 37, computeProcesses: 0 },
    ]);
    const waiting: string[] = [];
    const wait = await after(
      gpu,
      60_000,
      waitForFairConditions({ ...gpu, idleTempC: 35, maxWaitMs: 60_000, cancelled: () => false, onWaiting: (w) => waiting.push(w) }),
    );
    expect(wait).toMatchObject({ reason: 'ready', seconds: 3, startTempC: 70, endTempC: 37, targetTempC: 38 });
    expect(waiting[0]).toMatch(/1 other compute process, 95 % busy/u);
    expect(waiting[1]).toMatch(/cool: 60 °C, target 38 °C/u);
  });

  it('stops at the bound, and accepts a temperature that has settled above the target', async () => {
    const hot = fakeGpu([{ utilPercent: 99, tempC: 80, computeProcesses: 2 }]);
    expect(
      await after(hot, 5000, waitForFairConditions({ ...hot, idleTempC: 35, maxWaitMs: 5000, cancelled: () => false, onWaiting: () => {} })),
    ).toMatchObject({
      reason: 'timeout',
      seconds: 5,
      busyProcesses: 2,
    });
    const warmRoom = fakeGpu([{ utilPercent: 0, tempC: 50, computeProcesses: 0 }]);
    expect(
      await after(warmRoom, 120_000, waitForFairConditions({ ...warmRoom, idleTempC: 35, maxWaitMs: 120_000, cancelled: () => false, onWaiting: () => {} })),
    ).toMatchObject({
      reason: 'ready',
      seconds: 30,
    });
  });

  it('does not wait without a GPU', async () => {
    expect(
      await waitForFairConditions({ read: async () => null, idleTempC: null, maxWaitMs: 1000, cancelled: () => false, onWaiting: () => {} }),
    ).toMatchObject({
      reason: 'no-gpu',
      seconds: 0,
    });
  });
});
