// parseNumber / parseClockSeconds / parseDuration: the spellings logs use, and properties over printed floats.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseClockSeconds, parseDuration, parseNumber } from '../../../electron/core/metrics/text/numbers.js';

describe('parseNumber', () => {
  it.each([
    ['5,856', 5856],
    ['10,690,944', 10690944],
    ['12.3k', 12300],
    ['1.2M', 1.2e6],
    ['2G', 2e9],
    ['1.005022E+01', 10.05022],
    ['2.86e-06', 2.86e-6],
    ['16.59%', 16.59],
    ['-100.00%', -100],
    ['  0.5 ', 0.5],
    ['.5', 0.5],
    ['+3', 3],
    ['1.', 1],
  ])('%s is %d', (text, value) => {
    expect(parseNumber(text)).toBeCloseTo(value, 12);
  });

  it.each([
    ['nan', Number.NaN],
    ['-nan', Number.NaN],
    ['NaN', Number.NaN],
    ['inf', Number.POSITIVE_INFINITY],
    ['-inf', Number.NEGATIVE_INFINITY],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
  ])('%s is %d', (text, value) => {
    expect(parseNumber(text)).toBe(value);
  });

  it.each(['', '.', 'e5', '-', '%', '1,2', '12,34', 'abc', '1.2.3', '5 6', '0x10', '1e', 'nan%', '∞%', '12 tok'])('refuses %j', (text) => {
    expect(parseNumber(text)).toBeNull();
  });

  it('reads back any finite float printed by toString', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        expect(Object.is(parseNumber(String(x)), x) || (x === 0 && parseNumber(String(x)) === 0)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads back toFixed and toExponential within the printed rounding', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e20, max: 1e20 }), fc.integer({ min: 0, max: 20 }), (x, digits) => {
        const fixed = parseNumber(x.toFixed(digits));
        expect(fixed).not.toBeNull();
        expect(Math.abs(fixed! - x)).toBeLessThanOrEqual(0.5 * 10 ** -digits + Math.abs(x) * 1e-15);
        const exponential = parseNumber(x.toExponential(digits));
        expect(exponential).not.toBeNull();
        expect(Math.abs(exponential! - x)).toBeLessThanOrEqual(Math.abs(x) * (0.5 * 10 ** -digits + 1e-15));
      }),
      { numRuns: 2000 },
    );
  });

  it("reads back grouped thousands (toLocaleString('en-US')) within its three decimals", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 }), (x) => {
        const printed = x.toLocaleString('en-US');
        const value = parseNumber(printed);
        expect(value, printed).not.toBeNull();
        expect(Math.abs(value! - x)).toBeLessThanOrEqual(0.0005 + Math.abs(x) * 1e-15);
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on arbitrary strings, and returns a number or null', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        const value = parseNumber(text);
        expect(value === null || typeof value === 'number').toBe(true);
        expect(parseClockSeconds(text) === null || typeof parseClockSeconds(text) === 'number').toBe(true);
        expect(parseDuration(text) === null || typeof parseDuration(text) === 'number').toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('parseClockSeconds', () => {
  it.each([
    ['23:37', 23 * 60 + 37],
    ['15:44:25', 15 * 3600 + 44 * 60 + 25],
    ['0:00:10.48', 10.48],
    ['5:20:32', 5 * 3600 + 20 * 60 + 32],
    ['1 day, 2:03:04', 26 * 3600 + 3 * 60 + 4],
  ])('%s is %d s', (text, seconds) => {
    expect(parseClockSeconds(text)).toBeCloseTo(seconds, 9);
  });

  it.each(['', '12', '1:2:3:4', 'ab:cd', '?'])('refuses %j', (text) => {
    expect(parseClockSeconds(text)).toBeNull();
  });
});

describe('parseDuration', () => {
  it.each([
    ['893.15ms', 893.15],
    ['2.3s', 2300],
    ['0.5 s/it', 500],
    ['29ms/step', 29],
    ['200us/sample', 0.2],
    ['1.5 min', 90_000],
    ['1:02:03', 3_723_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBeCloseTo(ms, 9);
  });

  it.each(['', '12', 'ms', '5%s', 'fast'])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});
