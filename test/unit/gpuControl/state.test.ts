// The control state read from real `nvidia-smi -q -x` captures, the checks a change must pass, and the profiles.
import { describe, expect, it } from 'vitest';
import { restoreOperation } from '../../../electron/core/gpu-control/gpuControl.js';
import { checkAgainstState, gpuProfiles, stateFromInfo } from '../../../electron/core/gpu-control/state.js';
import type { StoredJournalEntry } from '../../../electron/core/store/gpuJournalStore.js';
import { parseNvidiaSmiXml } from '../../../electron/core/telemetry/nvidiaSmi/index.js';
import { readCapturedFixture } from '../../helpers/fixtures.js';

function stateOf(capture: string, index = 0) {
  const parsed = parseNvidiaSmiXml(readCapturedFixture('nvidia-smi', capture));
  if (!parsed.ok) throw new Error(parsed.error);
  return stateFromInfo(parsed.card.gpus[index]!, String(index), { clocks: null, memoryClocks: null });
}

describe('the control state from real captures', () => {
  it('reads an RTX 4090: supported clocks, power range, persistence', () => {
    const state = stateOf('rtx-4090.535.86.05.q.xml');
    expect(state.supportedGraphicsMHz[0]).toBe(3120);
    expect(state.supportedMemoryMHz[0]).toBe(10501);
    expect(state.power.maxLimitW).not.toBeNull();
    expect(state.persistenceMode).not.toBeNull();
  });

  it('reads a T4 with its boost and default applications clocks', () => {
    const state = stateOf('tesla-t4.515.105.01.q.xml');
    expect(state.clocks.maxCustomerBoostMHz).toBe(1590);
    expect(state.clocks.defaultApplicationsGraphicsMHz).toBe(585);
  });

  it('copes with a driver that lists no supported clocks (GTX 1660 Ti, 418)', () => {
    const state = stateOf('gtx-1660-ti.418.43.q.xml');
    expect(state.supportedGraphicsMHz).toEqual([]);
    expect(state.clocks.maxGraphicsMHz).toBe(2145);
    // Checked against the maximum clock instead.
    expect(checkAgainstState({ kind: 'lockClocks', range: { minMHz: 3000, maxMHz: 3000 } }, state)).toMatch(/up to 2145 MHz/u);
    expect(checkAgainstState({ kind: 'lockClocks', range: { minMHz: 1500, maxMHz: 1500 } }, state)).toBeNull();
  });
});

describe('checkAgainstState', () => {
  const state = stateOf('rtx-4090.535.86.05.q.xml');

  it('accepts clocks inside the listed range, with 0 as "no floor"', () => {
    expect(checkAgainstState({ kind: 'lockClocks', range: { minMHz: 2100, maxMHz: 2100 } }, state)).toBeNull();
    expect(checkAgainstState({ kind: 'lockClocks', range: { minMHz: 0, maxMHz: 2520 } }, state)).toBeNull();
    expect(checkAgainstState({ kind: 'lockMemoryClocks', range: { minMHz: 10501, maxMHz: 10501 } }, state)).toBeNull();
  });

  it('refuses clocks above the highest or below the lowest listed one, saying the range', () => {
    expect(checkAgainstState({ kind: 'lockClocks', range: { minMHz: 3200, maxMHz: 3200 } }, state)).toMatch(/up to 3120 MHz/u);
    expect(checkAgainstState({ kind: 'lockClocks', range: { minMHz: 100, maxMHz: 2100 } }, state)).toMatch(/lowest supported graphics clock is 210 MHz/u);
    expect(checkAgainstState({ kind: 'lockMemoryClocks', range: { minMHz: 12000, maxMHz: 12000 } }, state)).toMatch(/memory clocks up to 10501/u);
  });

  it('refuses a power limit outside the board range', () => {
    const { minLimitW, maxLimitW } = state.power;
    expect(checkAgainstState({ kind: 'powerLimit', watts: maxLimitW! + 1 }, state)).toMatch(/takes/u);
    expect(checkAgainstState({ kind: 'powerLimit', watts: Math.max(1, minLimitW! - 1) }, state)).toMatch(/takes/u);
    expect(checkAgainstState({ kind: 'powerLimit', watts: maxLimitW! }, state)).toBeNull();
  });
});

describe('gpuProfiles', () => {
  it("uses the driver's own clocks where it reports them (T4)", () => {
    const [sustained, base] = gpuProfiles(stateOf('tesla-t4.515.105.01.q.xml'));
    expect(sustained!.settings.lockClocks).toEqual({ minMHz: 1590, maxMHz: 1590 });
    expect(base!.settings.lockClocks).toEqual({ minMHz: 585, maxMHz: 585 });
    expect(sustained!.basis).toMatch(/max customer boost/u);
    expect(sustained!.settings.persistence).toBe(true);
  });

  it('estimates on GeForce boards, on a supported step, and says so', () => {
    const state = stateOf('rtx-4090.535.86.05.q.xml');
    const [sustained, base] = gpuProfiles(state);
    const sustainedMHz = sustained!.settings.lockClocks!.minMHz;
    const baseMHz = base!.settings.lockClocks!.minMHz;
    expect(state.supportedGraphicsMHz).toContain(sustainedMHz);
    expect(state.supportedGraphicsMHz).toContain(baseMHz);
    expect(sustainedMHz).toBeGreaterThan(baseMHz);
    expect(sustained!.basis).toMatch(/estimated/u);
    for (const profile of [sustained!, base!]) {
      expect(checkAgainstState({ kind: 'lockClocks', range: profile.settings.lockClocks! }, state)).toBeNull();
    }
  });
});

describe('restoreOperation', () => {
  const entry = (operation: StoredJournalEntry['operation'], prior: Record<string, unknown>): StoredJournalEntry => ({
    id: 1,
    createdAt: '',
    gpu: '0',
    operation,
    prior,
    applied: {},
    scope: 'run',
    ownerPid: 1,
    ownerStartTicks: null,
    runId: 1,
    state: 'applied',
    restoredAt: null,
    error: null,
  });

  it('puts back what was there: unlocked clocks reset, a manual lock re-locked, the old power limit', () => {
    expect(restoreOperation(entry('lockClocks', { range: null }))).toEqual({ kind: 'resetClocks' });
    expect(restoreOperation(entry('lockClocks', { range: { minMHz: 1800, maxMHz: 1800 } }))).toEqual({
      kind: 'lockClocks',
      range: { minMHz: 1800, maxMHz: 1800 },
    });
    expect(restoreOperation(entry('lockMemoryClocks', { range: null }))).toEqual({ kind: 'resetMemoryClocks' });
    expect(restoreOperation(entry('powerLimit', { watts: 450 }))).toEqual({ kind: 'powerLimit', watts: 450 });
    expect(restoreOperation(entry('persistence', { enabled: false }))).toEqual({ kind: 'persistence', enabled: false });
    // An unknown prior (N/A) is left alone rather than guessed.
    expect(restoreOperation(entry('persistence', { enabled: null }))).toBeNull();
    expect(restoreOperation(entry('powerLimit', { watts: null }))).toBeNull();
  });
});
