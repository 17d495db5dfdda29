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

/**
 * A key and a quantity as a [name, value] pair whose name carries the unit: seconds become
 * `_ms`, `%` becomes `_percent`, MiB becomes `_gib`. Rates with their own unit name themselves
 * (`12it/s` is steps_per_sec whatever the key). Null for units that mean nothing here.
 */
export function withUnit(key: string, quantity: Quantity): [string, number] | null {
  const { value } = quantity;
  switch (quantity.unit) {
    case '':
      return [key, value];
    case '%':
      return [/percent$|%$/.test(key) ? key : `${key}_percent`, value];
    case 'ms':
      return [`${key}_ms`, value];
    case 's':
    case 'sec':
      return [`${key}_ms`, value * 1000];
    case 'us':
    case 'µs':
      return [`${key}_ms`, value / 1000];
    case 'GiB':
    case 'GB':
      // PyTorch scripts print GiB as "GB" more often than not; the difference is 7%, below what a comparison of runs turns on.
      return [`${key}_gib`, value];
    case 'MiB':
    case 'MB':
      return [`${key}_gib`, value / 1024];
    case 'it/s':
    case 'steps/s':
      return ['steps_per_sec', value];
    case 's/it':
      return ['steps_per_sec', value === 0 ? Number.POSITIVE_INFINITY : 1 / value];
    case 'tok/s':
    case 'tokens/s':
      return ['tokens_per_sec', value];
    case 'samples/s':
    case 'img/s':
      return ['samples_per_sec', value];
    case 'ms/step':
    case 'ms/it':
      return ['step_time_ms', value];
    default:
      return null;
  }
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

/** Drops placeholder values from a parsed record's values (see LineParser.isPlaceholder). */
export function dropPlaceholders(values: Record<string, number>, isPlaceholder?: (name: string, value: number) => boolean): void {
  for (const [name, test] of SHARED_PLACEHOLDERS) {
    const value = values[name];
    if (value !== undefined && test(value)) delete values[name];
  }
  if (isPlaceholder === undefined) return;
  for (const name of Object.keys(values)) if (isPlaceholder(name, values[name]!)) delete values[name];
}
