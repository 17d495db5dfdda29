// nvidia-smi hanging, dying, printing garbage, losing the GPU, or without a driver: the run goes on,
// says what happened, and keeps the samples it had; a GPU change is refused with nvidia-smi's words.
import { afterEach, describe, expect, it } from 'vitest';
import { coreWithFakeGpu, runSynthetic } from '../helpers/fakeGpu.js';
import type { TempCore } from '../helpers/tempCore.js';

let harness: TempCore | null = null;
afterEach(async () => {
  await harness?.cleanup();
  harness = null;
});

describe('telemetry faults', () => {
  it.each([
    ['garbage=3', /not a sample/],
    ['die-after=4', /nvidia-smi stopped .*restarting/],
    ['hang-after=3', /sent nothing for \d+ s; restarting/],
    ['gpu-lost=5', /GPU is lost/i],
  ])(
    'survives the fault %s: the run goes on and says what happened',
    async (fault, said) => {
      harness = coreWithFakeGpu(fault);
      const { finished, statuses, samples } = await runSynthetic(harness, fault.startsWith('hang') ? '450' : '150');
      expect(finished).toMatchObject({ status: 'succeeded', exitClass: 'ok' });
      expect(statuses.join('\n')).toMatch(said);
      expect(samples.length).toBeGreaterThan(0);
      // The first notes stay with the run, so a view opened later can say why data is missing.
      expect(JSON.stringify(finished.telemetryNotes)).toMatch(said);
    },
    30_000,
  );

  it('waits for an nvidia-smi that needs seconds before its first line, instead of restarting it for ever', async () => {
    // 4 s before the first row, as a driver with persistence mode off initialising on a headless box.
    harness = coreWithFakeGpu('slow-start=4000');
    const { finished, statuses, samples } = await runSynthetic(harness, '700');
    expect(finished).toMatchObject({ status: 'succeeded', exitClass: 'ok' });
    expect(statuses.filter((message) => /restart/u.test(message))).toEqual([]);
    expect(statuses.join('\n')).toMatch(/no sample yet \d+ s after it started .*waiting up to 20 s/u);
    expect(samples.length).toBeGreaterThan(0);
  }, 60_000);

  it('says plainly when the driver is not loaded', async () => {
    harness = coreWithFakeGpu('no-driver');
    const { finished, statuses } = await runSynthetic(harness, '60');
    expect(finished.status).toBe('succeeded');
    expect(finished.summary.gpu).toBeNull();
    expect(statuses.join('\n')).toMatch(/couldn't communicate with the NVIDIA driver/);
  });
});

describe('GPU control faults', () => {
  it.each([
    ['no-driver', /couldn't communicate with the NVIDIA driver/],
    ['gpu-lost', /GPU is lost/],
  ])('refuses a change with nvidia-smi %s, in its words, and journals nothing applied', async (fault, said) => {
    harness = coreWithFakeGpu(fault, { FAKE_NVIDIA_SMI_ROOT: '1' });
    await expect(harness.core.gpu.apply({ kind: 'lockClocks', range: { minMHz: 2100, maxMHz: 2100 } }, { confirmOtherProcesses: false })).rejects.toThrow(said);
    const status = await harness.core.handlers['gpu.status']({}, { subscriberId: null });
    expect(status.available).toBe(false);
    expect(status.reason).toMatch(said);
    expect(harness.core.store.db.prepare("SELECT COUNT(*) AS n FROM gpu_settings_journal WHERE state = 'applied'").get()).toEqual({ n: 0 });
  });
});
