// GPU telemetry against the fake nvidia-smi: samples that follow the synthetic load, a filled summary, in a summary; faults are in test/reliability.
import { afterEach, describe, expect, it } from 'vitest';
import { summarizeGpu } from '../../electron/core/telemetry/summary.js';
import type { TimedGpuSample } from '../../electron/core/telemetry/nvidiaSmiSampler.js';
import { coreWithFakeGpu, runSynthetic } from '../helpers/fakeGpu.js';
import { tempCore, type TempCore } from '../helpers/tempCore.js';

let harness: TempCore | null = null;
afterEach(async () => {
  await harness?.cleanup();
  harness = null;
});

describe('GPU telemetry on the fake nvidia-smi', () => {
  it('fills summary.gpu from samples that follow the training load', async () => {
    harness = coreWithFakeGpu();
    const { finished, samples } = await runSynthetic(harness, '400');
    expect(finished.status).toBe('succeeded');
    expect(samples.length).toBeGreaterThan(5);
    expect(Math.max(...samples.map((s) => s.utilGpu ?? 0))).toBeGreaterThan(30);
    expect(finished.summary.gpu).toMatchObject({
      utilMean: expect.any(Number),
      vramPeakMiB: expect.any(Number),
      powerMeanW: expect.any(Number),
      energyJ: expect.any(Number),
      throttledSeconds: expect.any(Number),
      energySource: 'integrated',
    });
    // The synthetic workload's simulated memory (500 + 8 * 180 MiB), all of it the run's own process.
    expect(finished.summary.gpu!.runVramPeakMiB).toBeGreaterThanOrEqual(500 + 8 * 180);
    expect(finished.summary.gpu!.vramPeakMiB).toBeGreaterThanOrEqual(500 + 8 * 180);
  });

  it('without nvidia-smi, records host telemetry only and says so', async () => {
    harness = tempCore({ env: { ...process.env, PATH: '/usr/bin:/bin', TUNING_BENCH_NVIDIA_SMI: '' } });
    const { finished, statuses } = await runSynthetic(harness, '60');
    expect(finished.summary.gpu).toBeNull();
    expect(finished.summary.host).not.toBeNull();
    expect(statuses).toContain('no nvidia-smi found (no NVIDIA GPU or driver): host telemetry only');
  });
});

describe('energy and throttling of a known trace', () => {
  const trace = (power: number[], throttle: number[] = []): TimedGpuSample[] =>
    power.map(
      (powerW, i) =>
        ({
          tMs: i * 250,
          powerW,
          throttleReasons: throttle[i] ?? 0,
          energyMJ: null,
          utilGpu: 90,
          memUsedMiB: 1000,
          smClockMHz: 2000,
          tempC: 60,
        }) as unknown as TimedGpuSample,
    );

  it('integrates power exactly (trapezoids)', () => {
    // 100 W for 1 s, then a ramp to 300 W over 1 s: 100 + 200 = 300 J.
    expect(summarizeGpu(trace([100, 100, 100, 100, 100, 150, 200, 250, 300]))).toMatchObject({ energyJ: 300, energySource: 'integrated' });
  });

  it('uses the energy counter when the driver has one', () => {
    const samples = trace([100, 100, 100]).map((s, i) => ({ ...s, energyMJ: 1_000_000 + i * 30_000 }));
    expect(summarizeGpu(samples)).toMatchObject({ energyJ: 60, energySource: 'counter' });
  });

  it('counts seconds throttled by reason, not idle', () => {
    // 0x4 power cap for two intervals, 0x1 idle for one (not throttling for timing).
    expect(summarizeGpu(trace([300, 300, 300, 50], [0, 0x4, 0x4, 0x1]))).toMatchObject({ throttledSeconds: 0.5, throttledByReason: { sw_power_cap: 0.5 } });
  });
});
