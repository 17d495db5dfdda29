// Whether the machine was fair to a run, from readings the test sets: others on the CPU, others on the GPU,
// throttling in the steady time, an SM clock under the lock the app set.
import { describe, expect, it } from 'vitest';
import { assessFairness, hostBusyCores } from '../../../electron/core/telemetry/fairness.js';
import type { TimedGpuSample } from '../../../electron/core/telemetry/nvidiaSmiSampler.js';

/** A GPU sample with only what the checks read; the rest of the fields are nulls, as a driver without them gives. */
function gpu(tMs: number, fields: Partial<TimedGpuSample>): TimedGpuSample {
  return { tMs, throttleReasons: 0, smClockMHz: 2400, otherComputeApps: 0, ...fields } as TimedGpuSample;
}

const quietHost = { cpuMean: 50, rssPeakMiB: 100, otherCpuCoresMean: 0.1, cores: 16 };

describe('assessFairness', () => {
  it('is fair on a quiet host and GPU', () => {
    const samples = Array.from({ length: 40 }, (_, i) => gpu(i * 250, {}));
    expect(assessFairness({ host: quietHost, gpu: samples, steadyFromMs: 0, clockLockMHz: 2400 })).toEqual({ ok: true, issues: [] });
  });

  it('calls the host busy from half a core of others, or a quarter of a one-core machine', () => {
    expect(hostBusyCores(16)).toBe(0.5);
    expect(hostBusyCores(1)).toBe(0.25);
    const busy = assessFairness({ host: { ...quietHost, otherCpuCoresMean: 0.6 }, gpu: [], steadyFromMs: null, clockLockMHz: null });
    expect(busy.ok).toBe(false);
    expect(busy.issues).toEqual([
      { kind: 'host-busy', message: expect.stringMatching(/other processes used 0\.60 CPU cores on average during the run \(of 16\)/u) },
    ]);
    expect(assessFairness({ host: { ...quietHost, otherCpuCoresMean: 0.3, cores: 1 }, gpu: [], steadyFromMs: null, clockLockMHz: null }).issues[0]?.kind).toBe(
      'host-busy',
    );
  });

  it('flags another process on the GPU, throttling, and a clock under the lock, in the steady time only', () => {
    const samples = [
      // Warm-up: throttled and shared, but before the steady steps: not counted.
      ...Array.from({ length: 20 }, (_, i) => gpu(i * 250, { throttleReasons: 0x20, otherComputeApps: 1, smClockMHz: 1000 })),
      ...Array.from({ length: 80 }, (_, i) =>
        gpu(5000 + i * 250, { throttleReasons: i % 10 === 0 ? 0x4 : 0, otherComputeApps: i < 8 ? 2 : 0, smClockMHz: 2000 }),
      ),
    ];
    const result = assessFairness({ host: quietHost, gpu: samples, steadyFromMs: 5000, clockLockMHz: 2400 });
    expect(result.issues.map((i) => i.kind)).toEqual(['gpu-busy', 'throttled', 'clock-below-lock']);
    expect(result.issues[0]!.message).toMatch(/2 other processes computed on the GPU during 10 % of the run's steady time/u);
    expect(result.issues[1]!.message).toMatch(/throttled \(sw_power_cap\) during 10 % of the steady time/u);
    expect(result.issues[2]!.message).toMatch(/2000 MHz \(median\), under 90 % of the 2400 MHz lock/u);
    // The same steady samples with a lock nobody set, another process 1 sample in 80 and no throttling: fair.
    const fair = samples.slice(20).map((s, i) => ({ ...s, throttleReasons: 0, otherComputeApps: i === 0 ? 1 : 0 }));
    expect(assessFairness({ host: quietHost, gpu: fair, steadyFromMs: 5000, clockLockMHz: null }).ok).toBe(true);
  });
});
