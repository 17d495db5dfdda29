// Durations in the app's forms (renderer/src/shared/duration.ts): minutes everywhere, read into the engine's seconds.
import { describe, expect, it } from 'vitest';
import { describeMinutes, parseMinutes } from '../../renderer/src/shared/duration.js';

const limit = { what: 'Time limit', maxSeconds: 7 * 24 * 3600 };

describe('a duration typed in minutes', () => {
  it('reads minutes, parts of one and a decimal comma into whole seconds; blank is none', () => {
    expect(parseMinutes('15', limit)).toEqual({ ok: true, seconds: 900 });
    expect(parseMinutes(' 1,5 ', limit)).toEqual({ ok: true, seconds: 90 });
    expect(parseMinutes('0.333', limit)).toEqual({ ok: true, seconds: 20 });
    expect(parseMinutes('', limit)).toEqual({ ok: true, seconds: undefined });
  });

  it('refuses what is not a duration, saying the field and the unit', () => {
    expect(parseMinutes('ten', limit)).toEqual({ ok: false, error: 'Time limit: give minutes, a number above 0' });
    expect(parseMinutes('0', limit)).toEqual({ ok: false, error: 'Time limit: give minutes, a number above 0' });
    expect(parseMinutes('0.001', limit)).toEqual({ ok: false, error: 'Time limit: at least a second (0.02 minutes)' });
    expect(parseMinutes('10081', limit)).toEqual({ ok: false, error: 'Time limit: at most a week (10080 minutes)' });
    expect(parseMinutes('0', { what: 'Wait at most', maxSeconds: 3600, allowZero: true })).toEqual({ ok: true, seconds: 0 });
  });

  it('says seconds back in minutes', () => {
    expect(describeMinutes(60)).toBe('1 minute');
    expect(describeMinutes(90)).toBe('1.5 minutes');
    expect(describeMinutes(3600)).toBe('60 minutes');
    expect(describeMinutes(7 * 24 * 3600)).toBe('a week (10080 minutes)');
  });
});
