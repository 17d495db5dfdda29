// Sweep repeats are independent: each repeat gets its own seed unless the user pins it or varies the seed.
import { describe, expect, it } from 'vitest';
import { repeatValues } from '../../../electron/core/experiments/plan.js';
import { BUILTIN_WORKLOADS } from '../../../electron/core/workloads/builtin.js';
import { workloadVariable } from '../../../electron/shared/api.js';

const variables = [workloadVariable.parse({ name: 'batch', default: '8' }), workloadVariable.parse({ name: 'seed', default: '0', seed: true })];

describe('repeatValues', () => {
  it('gives each repeat its own seed, starting from the configured one', () => {
    const seeds = [0, 1, 2].map((r) => repeatValues(variables, { batch: '16', seed: '7' }, r, { pinned: false, varied: [] }).seed);
    expect(seeds).toEqual(['7', '8', '9']);
    expect(repeatValues(variables, { batch: '16' }, 2, { pinned: false, varied: [] })).toEqual({ batch: '16', seed: '2' });
  });

  it('keeps the seed when the user pins it or varies it, and without a declared seed variable', () => {
    expect(repeatValues(variables, { seed: '7' }, 2, { pinned: true, varied: [] }).seed).toBe('7');
    expect(repeatValues(variables, { seed: '7' }, 2, { pinned: false, varied: ['seed'] }).seed).toBe('7');
    expect(repeatValues([variables[0]!], { batch: '8' }, 2, { pinned: false, varied: [] })).toEqual({ batch: '8' });
  });

  it('knows the seed variable of the built-in workloads', () => {
    for (const workload of BUILTIN_WORKLOADS) expect(workload.variables.some((v) => v.name === 'seed' && v.seed)).toBe(true);
  });
});
