// The nvidia-smi sampler's watchdog and restart backoff on a clock the test moves: a hang is found without waiting 3 s.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../../electron/core/clock.js';
import { NvidiaSmiSampler, type TimedGpuSample } from '../../../electron/core/telemetry/nvidiaSmiSampler.js';
import { FAKE_NVIDIA_SMI } from '../../helpers/fakeGpu.js';
import { makeTempDir } from '../../helpers/tempCore.js';

/** The watchdog's limit at a 50 ms interval: WATCHDOG_MIN_MS, as 8 intervals is less. */
const HANG_LIMIT_MS = 3000;
/** The first restart waits BACKOFF_START_MS. */
const FIRST_BACKOFF_MS = 1000;

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A sampler on the fake nvidia-smi, which prints three rows (50 ms apart, in real time) and then hangs. */
function hangingSampler(clock: ManualClock, runStartedAtMs: number) {
  const dir = makeTempDir('tb-smi-sampler-');
  const samples: TimedGpuSample[] = [];
  const statuses: string[] = [];
  const sampler = new NvidiaSmiSampler({
    binary: FAKE_NVIDIA_SMI,
    gpu: '0',
    intervalMs: 50,
    env: { ...(process.env as Record<string, string>), FAKE_NVIDIA_SMI_STATE: path.join(dir, 'gpu-state.json'), FAKE_NVIDIA_SMI_FAULT: 'hang-after=3' },
    startedAtMs: runStartedAtMs,
    onSample: (sample) => samples.push(sample),
    onStatus: (_level, message) => statuses.push(message),
    clock,
  });
  cleanups.push(() => {
    sampler.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { samples, statuses };
}

describe('NvidiaSmiSampler on a manual clock', () => {
  it('stamps each sample with the wall clock less the run start', async () => {
    const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
    const { samples } = hangingSampler(clock, clock.wallMs() - 1234);
    await vi.waitFor(() => expect(samples).toHaveLength(3), { timeout: 10_000 });
    expect(samples.map((s) => s.tMs)).toEqual([1234, 1234, 1234]);
  });

  it('restarts a child that stops printing once the limit has passed on the monotonic clock, not before, nor on a wall step', async () => {
    const clock = new ManualClock();
    const { samples, statuses } = hangingSampler(clock, clock.wallMs());
    await vi.waitFor(() => expect(samples).toHaveLength(3), { timeout: 10_000 });
    // A wall-clock step of an hour is not an hour of silence.
    clock.setWall(new Date(clock.wallMs() + 3_600_000));
    clock.advance(HANG_LIMIT_MS - 1);
    expect(statuses).toEqual([]);
    clock.advance(1);
    expect(statuses).toEqual(['nvidia-smi sent nothing for 3 s; restarting it']);
    // The restart waits out its backoff on the same clock, then a fresh child prints its three rows.
    clock.advance(FIRST_BACKOFF_MS);
    await vi.waitFor(() => expect(samples).toHaveLength(6), { timeout: 10_000 });
  });
});

describe('an nvidia-smi slow to print its first line (persistence mode off: the driver initialises first)', () => {
  it('is given a start-up allowance instead of being restarted before it can speak, and the wait is said', async () => {
    const clock = new ManualClock();
    const dir = makeTempDir('tb-smi-slow-start-');
    const samples: TimedGpuSample[] = [];
    const statuses: string[] = [];
    const sampler = new NvidiaSmiSampler({
      binary: FAKE_NVIDIA_SMI,
      gpu: '0',
      intervalMs: 50,
      // Two real seconds before the first row: longer than the 3 s of silence allowed later, on the clock below.
      env: { ...(process.env as Record<string, string>), FAKE_NVIDIA_SMI_STATE: path.join(dir, 'gpu-state.json'), FAKE_NVIDIA_SMI_FAULT: 'slow-start=2000' },
      startedAtMs: clock.wallMs(),
      onSample: (sample) => samples.push(sample),
      onStatus: (_level, message) => statuses.push(message),
      clock,
    });
    cleanups.push(() => {
      sampler.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    // The sampler's clock runs three times faster than real time: the 2 s start-up is 6 s to it.
    for (let tick = 0; tick < 150 && samples.length === 0; tick++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      clock.advance(300);
    }
    expect(statuses.filter((message) => /restart/u.test(message))).toEqual([]);
    expect(samples.length).toBeGreaterThan(0);
    expect(statuses.some((message) => /no sample yet .* after it started/u.test(message))).toBe(true);
  }, 30_000);
});
