// A sweep's runs are told apart in lists by their config and repeat, not only by the workload's name.
import { describe, expect, it } from 'vitest';
import type { Run } from '../../electron/shared/api.js';
import { runLabel, sweepPlace } from '../../renderer/src/runs/runLabel.js';

const sweep = {
  id: 4,
  configs: [
    { index: 0, name: 'baseline', values: {}, changes: [] },
    { index: 1, name: '+batch=16', values: {}, changes: ['batch=16'] },
  ],
};
const run = (fields: Partial<Run>) => ({ workloadName: 'synthetic', sweepId: null, configIndex: null, repeatIndex: null, ...fields }) as Run;

describe('runLabel', () => {
  it('names a sweep run by its config and repeat', () => {
    expect(runLabel(run({ sweepId: 4, configIndex: 1, repeatIndex: 1 }), [sweep])).toBe('synthetic · +batch=16 · rep 2');
  });
  it('says which config by number when the sweep is not loaded', () => {
    expect(sweepPlace(run({ sweepId: 9, configIndex: 2, repeatIndex: 0 }), [sweep])).toBe('config 3 · rep 1');
  });
  it('leaves a run outside a sweep as its workload, or ad-hoc', () => {
    expect(runLabel(run({}), [sweep])).toBe('synthetic');
    expect(runLabel(run({ workloadName: null }), [])).toBe('ad-hoc');
  });
});
