// New run's limits (renderer/src/runs/runLimitFields.ts): a time limit in minutes, a step limit and the work per step, as runs.start takes them.
import { describe, expect, it } from 'vitest';
import { parseRunLimits } from '../../renderer/src/runs/runLimitFields.js';

const empty = { timeLimit: '', stepLimit: '', perStep: '', perStepUnit: 'tokens' as const };

describe("New run's limits", () => {
  it('gives nothing for empty fields, and each limit as the contract takes it', () => {
    expect(parseRunLimits(empty)).toEqual({ ok: true, value: { timeoutSeconds: undefined, maxSteps: undefined } });
    expect(parseRunLimits({ timeLimit: '1,5', stepLimit: '1,000', perStep: '8_192', perStepUnit: 'tokens' })).toEqual({
      ok: true,
      value: { timeoutSeconds: 90, maxSteps: 1000, unitsPerStep: { tokens: 8192, samples: null } },
    });
    expect(parseRunLimits({ ...empty, perStep: '32', perStepUnit: 'samples' })).toMatchObject({
      ok: true,
      value: { unitsPerStep: { tokens: null, samples: 32 } },
    });
  });

  it('says the first field that does not read', () => {
    expect(parseRunLimits({ ...empty, timeLimit: 'soon' })).toEqual({ ok: false, error: 'Time limit: give minutes, a number above 0' });
    expect(parseRunLimits({ ...empty, perStep: '-3' })).toEqual({ ok: false, error: 'work per step is a positive number of tokens, e.g. 8192' });
  });
});
