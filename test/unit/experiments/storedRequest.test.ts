import { describe, expect, it } from 'vitest';
import { readFindBatchRequest, readSweepRequest } from '../../../electron/core/experiments/storedRequest.js';
import { sweepRequest } from '../../../electron/shared/api.js';

describe('a stored sweep request read back', () => {
  it('gives back what the contract parsed on the way in, GPU settings as numbers', () => {
    const parsed = sweepRequest.parse({
      workloadId: 3,
      vary: [{ name: 'batch', values: ['8', '16'] }],
      gpuSettings: { lockClocks: '2100,2400', powerLimitW: '300' },
    });
    // The store keeps it as JSON.
    const stored: unknown = JSON.parse(JSON.stringify(parsed));
    expect(readSweepRequest(7, stored)).toEqual(parsed);
    expect(readSweepRequest(7, stored).gpuSettings).toEqual({ lockClocks: { minMHz: 2100, maxMHz: 2400 }, powerLimitW: 300 });
  });

  it('fills what an older version did not store with its default', () => {
    const read = readSweepRequest(7, { workloadId: 3, vary: [{ name: 'batch', values: ['8', '16'] }], plan: 'grid', repeats: 2 });
    expect(read).toMatchObject({ pinSeed: false, links: [], keepWorktrees: false, waitForIdle: true });
  });

  it('refuses a request that lost a field it needs, saying which and what to do', () => {
    expect(() => readSweepRequest(7, { workloadId: 3, plan: 'grid' })).toThrow(/sweep 7's stored request cannot be read \(vary: .*\); start the sweep again/u);
    expect(() => readFindBatchRequest(9, { values: {} })).toThrow(/batch-size finder 9's stored request cannot be read \(workloadId: /u);
  });
});
