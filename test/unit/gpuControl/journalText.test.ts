// How a GPU settings journal entry is named in the abandoned-settings banner: the owner says whose change it was.
import { describe, expect, it } from 'vitest';
import { describeEntry } from '../../../electron/core/gpu-control/gpuControl.js';
import type { StoredJournalEntry } from '../../../electron/core/store/gpuJournalStore.js';

const LOCK: StoredJournalEntry = {
  id: 1,
  createdAt: '2026-11-28T10:00:00.000Z',
  gpu: 'GPU-fa4e0000-0000-4000-8000-000000000001',
  operation: 'lockClocks',
  prior: { gpuClockLock: null },
  applied: { minMHz: 2100, maxMHz: 2100 },
  scope: 'run',
  ownerPid: 4242,
  ownerStartTicks: 1,
  runId: 7,
  state: 'applied',
  restoredAt: null,
  error: null,
};

describe('describeEntry', () => {
  it("names the owning run, a manual change, a sweep's, and a run stopped before it was recorded", () => {
    expect(describeEntry(LOCK).description).toMatch(/ \(run 7\)$/u);
    expect(describeEntry({ ...LOCK, scope: 'manual', runId: null }).description).toMatch(/ \(manual\)$/u);
    expect(describeEntry({ ...LOCK, scope: 'sweep', runId: null }).description).toMatch(/ \(sweep\)$/u);
    expect(describeEntry({ ...LOCK, runId: null }).description).toMatch(/ \(a run stopped before it was recorded\)$/u);
    expect(describeEntry(LOCK).description).not.toContain('(run)');
  });
});
