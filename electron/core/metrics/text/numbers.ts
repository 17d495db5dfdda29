// Numbers as training logs print them: grouped thousands, k/M/G suffixes, nan/inf, clocks and time units.

/**
 * Sign, integer part (plain digits, or 1-3 digits then `,ddd` groups as `toLocaleString('en-US')`
 * prints them), fraction, exponent, then an optional scale suffix or `%`. At least one digit is
 * checked for separately, so `.` and `e5` are refused.
 */
const NUMBER_PATTERN = /^([+-]?)(\d{1,3}(?:,\d{3})+|\d*)(\.\d*)?([eE][+-]?\d+)?[ \t]*([kKMGT%]?)$/;

/** Scale suffixes as tqdm's `unit_scale` and throughput printers use them (`12.3k`, `1.2M` tok/s). */
const SCALE: Readonly<Record<string, number>> = { '': 1, '%': 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12 };

/** What Python, C's printf and JS print for non-finite values, lower-cased. */
const NON_FINITE: ReadonlyMap<string, number> = new Map([
  ['nan', Number.NaN],
  ['-nan', Number.NaN],
  ['+nan', Number.NaN],
  ['inf', Number.POSITIVE_INFINITY],
  ['+inf', Number.POSITIVE_INFINITY],
  ['-inf', Number.NEGATIVE_INFINITY],
  ['infinity', Number.POSITIVE_INFINITY],
  ['+infinity', Number.POSITIVE_INFINITY],
  ['-infinity', Number.NEGATIVE_INFINITY],
  ['∞', Number.POSITIVE_INFINITY],
  ['-∞', Number.NEGATIVE_INFINITY],
]);

/** The longest spelling in NON_FINITE (`-infinity`). */
const MAX_NON_FINITE_CHARS = 9;

/** A digit, sign or point, or the first letter of nan / inf / infinity / ∞ in either case. */
function mayStartNumber(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2b ||
    code === 0x2d ||
    code === 0x2e ||
    code === 0x6e || // n
    code === 0x4e || // N
    code === 0x69 || // i
    code === 0x49 || // I
    code === 0x221e // ∞
  );
}

/** Longer strings are not numbers a log prints; bounding them keeps the regex cheap on junk. */
const MAX_NUMBER_CHARS = 400;

/**
 * A printed number as a value, or null when the text is not one. `16.59%` is 16.59 (the caller
 * knows the unit), `12.3k` is 12300, `5,856` is 5856, `nan` is NaN. Never throws.
 */
export function parseNumber(text: string): number | null {
  if (text.length > MAX_NUMBER_CHARS) return null;
  const trimmed = hasOuterSpace(text) ? text.trim() : text;
  if (trimmed.length === 0) return null;
  const simple = simpleDecimal(trimmed);
  if (simple !== null) return simple;
  if (isPlainDecimal(trimmed)) {
    // Plain decimals with exponents or many digits: Number() accepts exactly what NUMBER_PATTERN does.
    const plain = Number(trimmed);
    return Number.isNaN(plain) ? null : plain;
  }
  if (!mayStartNumber(trimmed.charCodeAt(0))) return null; // most non-numbers (words) end here, cheaply
  if (trimmed.length <= MAX_NON_FINITE_CHARS) {
    const nonFinite = NON_FINITE.get(trimmed.toLowerCase());
    if (nonFinite !== undefined) return nonFinite;
  }
  const match = NUMBER_PATTERN.exec(trimmed);
  if (match === null) return null;
  const [, sign = '', integer = '', fraction = '', exponent = '', suffix = ''] = match;
  if (integer.length === 0 && fraction.length < 2) return null; // no digit at all
  const digits = integer.includes(',') ? integer.replaceAll(',', '') : integer;
  const value = Number(`${sign}${digits === '' ? '0' : digits}${fraction}${exponent}`);
  if (Number.isNaN(value)) return null;
  return value * (SCALE[suffix] ?? 1);
}

/** Whether trimming would change the text; most values come without surrounding spaces, and trim() copies. */
function hasOuterSpace(text: string): boolean {
  return text.length === 0 || text.charCodeAt(0) <= 0x20 || text.charCodeAt(text.length - 1) <= 0x20;
}

/** Exact powers of ten: every one up to 1e22 is a double without rounding. */
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, i) => 10 ** i);
/** Below 2^53 every integer is exact, so mantissa / 10^k is the correctly rounded decimal (Clinger's fast path). */
const MAX_FAST_DIGITS = 15;

/**
 * `-12.345`-shaped text (sign, at most 15 digits, one point, no exponent) as a number, or null for
 * anything else. Number() takes about 130 ns on such strings in V8; this takes a tenth of that,
 * and logs are mostly numbers like these.
 */
function simpleDecimal(text: string): number | null {
  return decimalIn(text, 0, text.length);
}

/** simpleDecimal of `text` from `start` to `end`, read in place (no slice): line templates read their numbers so. */
export function decimalIn(text: string, start: number, end: number): number | null {
  let i = start;
  const first = text.charCodeAt(start);
  const negative = first === 0x2d;
  if (negative || first === 0x2b) i++;
  let mantissa = 0;
  let digits = 0;
  let fractionDigits = 0;
  let point = false;
  for (; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x30 && code <= 0x39) {
      if (++digits > MAX_FAST_DIGITS) return null;
      mantissa = mantissa * 10 + (code - 0x30);
      if (point) fractionDigits++;
    } else if (code === 0x2e && !point) {
      point = true;
    } else {
      return null;
    }
  }
  if (digits === 0) return null;
  const value = mantissa / (POWERS_OF_TEN[fractionDigits] ?? 1);
  return negative ? -value : value;
}

/** Only digits, `.`, `e`/`E` and signs: the common case, checked without a regex. */
function isPlainDecimal(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const digit = code >= 0x30 && code <= 0x39;
    if (!digit && code !== 0x2e && code !== 0x65 && code !== 0x45 && code !== 0x2b && code !== 0x2d) return false;
  }
  return true;
}

/**
 * `H:MM:SS.ss`, `MM:SS`, `D day(s), H:MM:SS` (Python's timedelta). The patterns in this module
 * have no `u` flag: V8 runs ASCII patterns faster without it.
 */
const CLOCK_PATTERN = /^(?:(\d+) days?, )?(\d+):(\d{1,2})(?::(\d{1,2}(?:\.\d*)?))?$/;

/** A clock-style duration (tqdm's elapsed, Keras's ETA, HF's runtime) in seconds; null when not one. */
export function parseClockSeconds(text: string): number | null {
  if (text.length > MAX_NUMBER_CHARS) return null;
  const match = CLOCK_PATTERN.exec(hasOuterSpace(text) ? text.trim() : text);
  if (match === null) return null;
  const [, days, first = '0', second = '0', third] = match;
  const dayHours = days === undefined ? 0 : Number(days) * 24;
  // Two fields are MM:SS (tqdm below an hour); three are H:MM:SS.
  if (third === undefined) return dayHours * 3600 + smallNumber(first) * 60 + smallNumber(second);
  return (dayHours + smallNumber(first)) * 3600 + smallNumber(second) * 60 + smallNumber(third);
}

/** A clock field: digits with an optional fraction, which simpleDecimal reads exactly. */
function smallNumber(text: string): number {
  return simpleDecimal(text) ?? Number(text);
}

/** A number and a time unit, optionally per something (`0.5 s/it`, `29ms/step`). */
const DURATION_PATTERN = /^(.+?)\s*(ns|us|µs|μs|ms|s|sec|secs|seconds|min|mins|minutes|h|hr|hrs|hours)(?:\s*\/\s*[A-Za-z]+)?$/;

const MS_PER_UNIT: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  seconds: 1000,
  min: 60_000,
  mins: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hours: 3_600_000,
};

/**
 * A duration in milliseconds: `893.15ms`, `2.3s`, `0.5 s/it` (per iteration), `1:02:03`. A bare
 * number has no unit and gives null, as does anything else that is not a duration.
 */
export function parseDuration(text: string): number | null {
  if (text.length > MAX_NUMBER_CHARS) return null;
  const trimmed = text.trim();
  const clock = parseClockSeconds(trimmed);
  if (clock !== null) return clock * 1000;
  const match = DURATION_PATTERN.exec(trimmed);
  if (match === null) return null;
  const [, amount = '', unit = ''] = match;
  if (amount.endsWith('%')) return null;
  const value = parseNumber(amount);
  const scale = MS_PER_UNIT[unit];
  if (value === null || scale === undefined) return null;
  return value * scale;
}
