// Helpers the parsers share: quantities with units, collision-free naming, eval renaming.
import { parseNumber } from '../text/numbers.js';
import { canonicalName, evalName, toSnakeCase } from './names.js';

export interface Quantity {
  value: number;
  /** The unit printed after the number (`ms`, `GiB`, `%`, `tok/s`), '' when none. */
  unit: string;
}

/** A number and what follows it, for values like `893.15ms`, `49.66GiB`, `16.59%`, `1.2it/s`. */
const QUANTITY = /^([+-]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s?([A-Za-zµ%/]+)$/;

/** A printed value with an optional unit; null when it is not a number. */
export function readQuantity(text: string): Quantity | null {
  const trimmed = text.trim();
  const whole = parseNumber(trimmed);
  if (whole !== null) return { value: whole, unit: trimmed.endsWith('%') ? '%' : '' };
  const match = QUANTITY.exec(trimmed);
  if (match === null) return null;
  const value = parseNumber(match[1] ?? '');
  if (value === null) return null;
  return { value, unit: match[2] ?? '' };
}

/** Units of time, as milliseconds per unit: what a printed duration is multiplied by. */
const DURATION_UNITS_MS: Readonly<Record<string, number>> = {
  ms: 1,
  msec: 1,
  msecs: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  seconds: 1000,
  us: 0.001,
  µs: 0.001,
};

/** A time per step, as milliseconds per unit (`ms/step`, `0.25 s/step`, `sec/iter`); `s/it` is tqdm's, read as a rate below. */
const STEP_TIME_UNITS_MS: Readonly<Record<string, number>> = {
  'ms/step': 1,
  'ms/it': 1,
  'ms/iter': 1,
  'ms/batch': 1,
  's/step': 1000,
  's/iter': 1000,
  's/batch': 1000,
  'sec/step': 1000,
  'sec/iter': 1000,
  'sec/batch': 1000,
};

/** Rates that name themselves whatever the key: `12it/s` is steps per second, `991 tok/sec` tokens per second. */
const RATE_UNITS: Readonly<Record<string, string>> = {
  'it/s': 'steps_per_sec',
  'it/sec': 'steps_per_sec',
  'steps/s': 'steps_per_sec',
  'steps/sec': 'steps_per_sec',
  'iters/s': 'steps_per_sec',
  'iters/sec': 'steps_per_sec',
  'tok/s': 'tokens_per_sec',
  'tok/sec': 'tokens_per_sec',
  'toks/s': 'tokens_per_sec',
  'tokens/s': 'tokens_per_sec',
  'tokens/sec': 'tokens_per_sec',
  'samples/s': 'samples_per_sec',
  'samples/sec': 'samples_per_sec',
  'img/s': 'samples_per_sec',
  'img/sec': 'samples_per_sec',
  'images/s': 'samples_per_sec',
  'images/sec': 'samples_per_sec',
  'seq/s': 'samples_per_sec',
  'seq/sec': 'samples_per_sec',
  'examples/s': 'samples_per_sec',
  'examples/sec': 'samples_per_sec',
};

/** Every unit `withUnit` reads after a number and one space (the parsers' spaced-unit lists draw on it). */
export const KNOWN_SPACED_UNITS: readonly string[] = [
  ...Object.keys(DURATION_UNITS_MS),
  ...Object.keys(STEP_TIME_UNITS_MS),
  ...Object.keys(RATE_UNITS),
  's/it',
  'sec/it',
  '%',
  'GiB',
  'MiB',
  'GB',
  'MB',
];

/**
 * A key and a quantity as a [name, value] pair whose name carries the unit: seconds become
 * `_ms`, `%` becomes `_percent`, MiB becomes `_gib`. Rates with their own unit name themselves
 * (`12it/s` is steps_per_sec whatever the key), and so does a time per step (`0.25 s/step`).
 * Null for units that mean nothing here.
 */
export function withUnit(key: string, quantity: Quantity): [string, number] | null {
  const { value, unit } = quantity;
  const duration = DURATION_UNITS_MS[unit];
  if (duration !== undefined) return [`${key}_ms`, value * duration];
  const perStep = STEP_TIME_UNITS_MS[unit];
  if (perStep !== undefined) return ['step_time_ms', value * perStep];
  const rate = RATE_UNITS[unit];
  if (rate !== undefined) return [rate, value];
  switch (unit) {
    case '':
      return [key, value];
    case '%':
      return [/percent$|%$/.test(key) ? key : `${key}_percent`, value];
    case 'GiB':
    case 'GB':
      // PyTorch scripts print GiB as "GB" more often than not; the difference is 7%, below what a comparison of runs turns on.
      return [`${key}_gib`, value];
    case 'MiB':
    case 'MB':
      return [`${key}_gib`, value / 1024];
    case 's/it':
    case 'sec/it':
      return ['steps_per_sec', value === 0 ? Number.POSITIVE_INFINITY : 1 / value];
    default:
      return null;
  }
}

/**
 * A quantity printed with no key on a step line: a rate or a time per step names itself, and a bare
 * duration (`step 1: loss 3.1, 45 ms`) is the step's time, the one duration a step line states
 * without saying what it is. Null for anything else (a bare count means nothing alone).
 */
export function bareQuantity(quantity: Quantity): [string, number] | null {
  const duration = DURATION_UNITS_MS[quantity.unit];
  if (duration !== undefined) return ['step_time_ms', quantity.value * duration];
  const named = withUnit('', quantity);
  return named !== null && named[0] !== '' && !named[0].startsWith('_') ? named : null;
}

/**
 * Adds printed [key, value] pairs under canonical names. Keys that are already canonical go first,
 * so an alias never takes the place of the real thing: Lightning's bar prints `loss` (its running
 * mean) beside `train_loss` (the logged value); `loss` keeps its name and `train_loss` stays
 * `train_loss` instead of overwriting it.
 */
export function addValues(values: Record<string, number>, pairs: ReadonlyArray<readonly [string, number]>): void {
  let aliasedSeen = false;
  for (const [key, value] of pairs) {
    const { snake, canonical } = nameOf(key);
    if (snake.length === 0) continue;
    if (canonical !== snake) aliasedSeen = true;
    else if (!(snake in values)) values[snake] = value;
  }
  if (!aliasedSeen) return;
  for (const [key, value] of pairs) {
    const { snake, canonical } = nameOf(key);
    if (canonical === snake) continue;
    if (!(canonical in values)) values[canonical] = value;
    else if (!(snake in values)) values[snake] = value;
  }
}

interface PrintedName {
  snake: string;
  canonical: string;
}
/** Printed keys to their names, one lookup per pair; bounded like the caches in names.ts. */
const printedNames = new Map<string, PrintedName>();
const PRINTED_NAME_CACHE_LIMIT = 4096;

function nameOf(key: string): PrintedName {
  let known = printedNames.get(key);
  if (known === undefined) {
    if (printedNames.size >= PRINTED_NAME_CACHE_LIMIT) printedNames.clear();
    const snake = toSnakeCase(key);
    known = { snake, canonical: canonicalName(snake) };
    printedNames.set(key, known);
  }
  return known;
}

/** Names that stay as they are in an evaluation record: they describe position or the machine, not the evaluation. */
const PHASE_NEUTRAL: ReadonlySet<string> = new Set(['epoch', 'batch', 'batches', 'lr', 'eta_s', 'elapsed_s', 'remaining_s', 'memory_gib', 'total_steps']);

/** A name as it reads in an evaluation record: phase-neutral names stay, the rest get eval names. */
export function evalValueName(name: string): string {
  return PHASE_NEUTRAL.has(name) ? name : evalName(name);
}

/** The same values with eval names (`loss` → `eval_loss`; `avg_loss` → `avg_eval_loss`). */
export function toEvalValues(values: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name in values) out[evalValueName(name)] = values[name] ?? Number.NaN;
  return out;
}

/** True when the object has at least one key; records without values are not worth emitting. */
export function hasValues(values: Record<string, number>): boolean {
  for (const _ in values) return true;
  return false;
}

/** An integer step from a printed number, or null (steps are counts; anything else is not one). */
export function toStep(value: number | null | undefined): number | null {
  if (value === null || value === undefined || !Number.isFinite(value) || value < 0) return null;
  return Math.round(value);
}

/**
 * Values that no format prints as a measurement, whichever parser read them. MFU: nanoGPT prints
 * `mfu -100.00%` until its running estimate has five iterations and `0.00%` where it cannot know
 * the device's peak (CPU, MPS), and llm.c prints -100% likewise; a real MFU is above zero.
 */
const SHARED_PLACEHOLDERS: ReadonlyArray<readonly [string, (value: number) => boolean]> = [['mfu_percent', (value) => value <= 0]];

/** Whether dropPlaceholders could drop any of these values: false lets a line template skip it (and the check for values left). */
export function mayDropPlaceholders(names: readonly string[], isPlaceholder?: (name: string, value: number) => boolean): boolean {
  return isPlaceholder !== undefined || SHARED_PLACEHOLDERS.some(([name]) => names.includes(name));
}

/** Drops placeholder values from a parsed record's values (see LineParser.isPlaceholder). */
export function dropPlaceholders(values: Record<string, number>, isPlaceholder?: (name: string, value: number) => boolean): void {
  for (const [name, test] of SHARED_PLACEHOLDERS) {
    const value = values[name];
    if (value !== undefined && test(value)) delete values[name];
  }
  if (isPlaceholder === undefined) return;
  for (const name of Object.keys(values)) if (isPlaceholder(name, values[name]!)) delete values[name];
}
