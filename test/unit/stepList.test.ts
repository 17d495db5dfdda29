// The CLI's step lists: `--exclude-steps 40,41,90-95`, refused clearly when not that.
import { describe, expect, it } from 'vitest';
import { parseStepList, stepChoicesFrom } from '../../electron/cli/commands/steps.js';

describe('step lists', () => {
  it('reads steps and ranges, each step once, in order', () => {
    expect(parseStepList('90-92, 40,41,40')).toEqual([40, 41, 90, 91, 92]);
    expect(parseStepList('')).toEqual([]);
  });

  it('refuses what is not a step or a range, a range that runs backwards, and too many steps', () => {
    expect(() => parseStepList('4o')).toThrow(/steps and ranges/u);
    expect(() => parseStepList('9-3')).toThrow(/backwards/u);
    expect(() => parseStepList('0-20000')).toThrow(/more than 10000/u);
  });

  it('takes "auto" as the automatic warm-up rule', () => {
    expect(stepChoicesFrom({ warmupSteps: 'auto' })).toEqual({ warmupSteps: null, excludeSteps: [] });
    expect(stepChoicesFrom({ warmupSteps: '12', excludeSteps: '3' })).toEqual({ warmupSteps: 12, excludeSteps: [3] });
    expect(stepChoicesFrom({})).toBeUndefined();
    expect(() => stepChoicesFrom({ warmupSteps: 'ten' })).toThrow(/whole number of steps, or auto/u);
  });
});
