// tqdm progress bars: `desc: 45%|███| 90/200 [00:01<00:01, 85.31it/s, loss=2.314]` and their variants.
import { parseNumber } from '../text/numbers.js';
import type { LineParser, MetricRecord } from './types.js';
import { addValues, hasValues, toEvalValues, toStep } from './values.js';

/** One bar state, as tqdm's `format_meter` prints it. */
export interface BarState {
  /** Text before the percentage or count, without its trailing colon ('' when none). */
  readonly description: string;
  /** Items done (the n of n/total). */
  readonly n: number;
  readonly total: number | null;
  /** The bar's item unit: `it` unless the script set `unit=`. */
  readonly unit: string;
  readonly elapsedS: number;
  readonly remainingS: number | null;
  /** Items per second (an `s/it` rate already inverted); null for `?it/s`. */
  readonly perSecond: number | null;
  /** The `k=v, k=v` text after the rate, as printed ('' when none). */
  readonly postfix: string;
  /** Index just past the closing `]`: text after it was printed onto the bar's line by someone else. */
  readonly end: number;
}

const SPACE = 0x20;
const PIPE = 0x7c;
const PERCENT = 0x25;
const COLON = 0x3a;
const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;
const isLetter = (code: number): boolean => (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
const isSpaceOrPipe = (code: number): boolean => code <= SPACE || code === PIPE;
const isCommaOrSpace = (code: number): boolean => code === 0x2c || code === SPACE;

/** The index after the last non-space character before `end`. */
function skipSpacesBack(line: string, end: number): number {
  let at = end;
  while (at > 0 && line.charCodeAt(at - 1) <= SPACE) at--;
  return at;
}

/**
 * The last line read and its bar. A line is read for glued output (detect.ts), then by `matches`,
 * then by `parse`; reading is the costliest step on a bar-heavy log, so it happens once. Like the
 * other caches in this module it holds a pure function of its key, so parsers and logs share it
 * safely; the bar returned is shared, hence read-only.
 */
let lastLine: string | null = null;
let lastBar: BarState | null = null;

/** The bar state printed on a line, or null when the line holds none. */
export function readBar(line: string): BarState | null {
  // Most lines of a dense log hold no bracket: answered before comparing the line with the last one, character by character.
  if (!line.includes('[')) return null;
  if (line === lastLine) return lastBar;
  const bar = readBarUncached(line);
  lastLine = line;
  lastBar = bar;
  return bar;
}

/**
 * Bars are most of a long log, so a bar is read by a scanner over the line's character codes, not
 * by patterns: about a microsecond less per line than the regexes it replaced. `scanAt` is where
 * the last `scan*` call stopped.
 */
let scanAt = 0;

/** A clock at `at` (`MM:SS` or `H:MM:SS`) in seconds, or -1. */
function scanClock(line: string, at: number): number {
  let seconds = 0;
  let fields = 0;
  let i = at;
  for (;;) {
    const fieldStart = i;
    let field = 0;
    while (i < line.length && isDigit(line.charCodeAt(i))) field = field * 10 + (line.charCodeAt(i++) - 0x30);
    const digits = i - fieldStart;
    if (digits === 0 || (fields > 0 && digits !== 2)) return -1;
    seconds = seconds * 60 + field;
    fields++;
    if (fields === 3 || line.charCodeAt(i) !== COLON || !isDigit(line.charCodeAt(i + 1))) break;
    i++;
  }
  if (fields < 2) return -1;
  scanAt = i;
  return seconds;
}

/** A count or rate at `at`: digits with an optional fraction and a k/M/G/T/P scale (tqdm's unit_scale), or -1. */
function scanAmount(line: string, at: number): number {
  let mantissa = 0;
  let digits = 0;
  let fractionDigits = 0;
  let point = false;
  let i = at;
  for (; i < line.length; i++) {
    const code = line.charCodeAt(i);
    if (isDigit(code)) {
      mantissa = mantissa * 10 + (code - 0x30);
      digits++;
      if (point) fractionDigits++;
    } else if (code === 0x2e && !point) {
      point = true;
    } else {
      break;
    }
  }
  // 15 digits keep the mantissa exact, so the division is the correctly rounded value.
  if (digits === 0 || digits > 15 || line.charCodeAt(i - 1) === 0x2e) return -1;
  let value = mantissa / 10 ** fractionDigits;
  const scale = unitScale(line.charCodeAt(i));
  if (scale !== 1) {
    value *= scale;
    i++;
  }
  scanAt = i;
  return value;
}

/** The end of a run of ASCII letters starting at `at`. */
function scanLetters(line: string, at: number): number {
  let i = at;
  while (i < line.length && isLetter(line.charCodeAt(i))) i++;
  return i;
}

/** tqdm's unit_scale suffixes (`12.3k`, `1.2M`) as factors; 1 for any other character. */
function unitScale(code: number): number {
  switch (code) {
    case 0x6b: // k
      return 1e3;
    case 0x4d: // M
      return 1e6;
    case 0x47: // G
      return 1e9;
    case 0x54: // T
      return 1e12;
    case 0x50: // P
      return 1e15;
    default:
      return 1;
  }
}

interface StatsScan {
  elapsedS: number;
  remainingS: number | null;
  /** The printed rate (items per second, or seconds per item when `secondsPer`); null for `?`. */
  rate: number | null;
  rateUnit: string;
  secondsPer: boolean;
  /** Where the rate ends: the postfix or the closing bracket follows. */
  end: number;
}

/** scanStats's result: one scratch record, copied out before the next line is read. */
const stats: StatsScan = { elapsedS: 0, remainingS: null, rate: null, rateUnit: '', secondsPer: false, end: 0 };

/** The stats bracket at `open` (`[elapsed<remaining, rate` or `[elapsed, rate`): fills `stats`, false when it is none. */
function scanStats(line: string, open: number): boolean {
  const elapsed = scanClock(line, open + 1);
  if (elapsed < 0) return false;
  let i = scanAt;
  let remaining: number | null = null;
  if (line.charCodeAt(i) === 0x3c) {
    // `<`, then `?` (no estimate yet) or a clock
    if (line.charCodeAt(i + 1) === 0x3f) {
      i += 2;
    } else {
      remaining = scanClock(line, i + 1);
      if (remaining < 0) return false;
      i = scanAt;
    }
  }
  if (line.charCodeAt(i) !== 0x2c) return false; // `,`
  i++;
  while (line.charCodeAt(i) === SPACE) i++;
  stats.elapsedS = elapsed;
  stats.remainingS = remaining;
  stats.rate = null;
  stats.rateUnit = '';
  stats.secondsPer = false;
  // The rate: `85.31it/s`, `7.03s/it`, `?it/s`, `5000.00 examples/s`.
  // A rate that does not end in `unit/unit` is no rate: the postfix starts where the rate would have.
  stats.end = i;
  let amount: number | null = null;
  let amountEnd: number;
  if (line.charCodeAt(i) === 0x3f) {
    amountEnd = i + 1; // `?`: tqdm has no rate yet
  } else {
    const scanned = scanAmount(line, i);
    if (scanned < 0) return true;
    amount = scanned;
    amountEnd = scanAt;
  }
  const unitStart = line.charCodeAt(amountEnd) === SPACE ? amountEnd + 1 : amountEnd;
  const unitEnd = scanLetters(line, unitStart);
  if (line.charCodeAt(unitEnd) !== 0x2f) return true; // `/`
  const perEnd = scanLetters(line, unitEnd + 1);
  if (perEnd === unitEnd + 1) return true;
  const before = unitText(line, unitStart, unitEnd);
  const after = unitText(line, unitEnd + 1, perEnd);
  stats.rate = amount;
  stats.secondsPer = before === 's' && after !== 's';
  stats.rateUnit = stats.secondsPer ? after : before;
  stats.end = perEnd;
  return true;
}

/** The unit between two indexes; tqdm's `it` and `s` come back as constants rather than new strings. */
function unitText(line: string, start: number, end: number): string {
  if (end - start === 1 && line.charCodeAt(start) === 0x73) return 's';
  if (end - start === 2 && line.charCodeAt(start) === 0x69 && line.charCodeAt(start + 1) === 0x74) return 'it';
  return line.slice(start, end);
}

function readBarUncached(line: string): BarState | null {
  let open = line.indexOf('[');
  while (open !== -1 && !scanStats(line, open)) open = line.indexOf('[', open + 1);
  if (open === -1) return null;

  // The count before the bracket: `90/200`, `0it`, `1.2k/2.00M`.
  const countEnd = skipSpacesBack(line, open);
  let countStart = countEnd;
  while (countStart > 0 && !isSpaceOrPipe(line.charCodeAt(countStart - 1))) countStart--;
  const n = scanAmount(line, countStart);
  if (n < 0) return null;
  let total: number | null = null;
  if (line.charCodeAt(scanAt) === 0x2f) {
    total = scanAmount(line, scanAt + 1);
    if (total < 0) return null;
  }
  const countUnitStart = scanAt;
  const countUnitEnd = scanLetters(line, countUnitStart);
  if (countUnitEnd !== countEnd) return null;
  const countUnit = countUnitEnd > countUnitStart ? unitText(line, countUnitStart, countUnitEnd) : 'it';

  // Back from the count: the bar between two `|`, the percentage, then the description and its colon.
  // The bar opens at the line's first `|` (tqdm puts none in front of it); finding that pipe with
  // indexOf skips the bar's glyphs, which are the widest part of the line.
  let prefixEnd = skipSpacesBack(line, countStart);
  if (prefixEnd > 0 && line.charCodeAt(prefixEnd - 1) === PIPE) {
    const barStart = line.indexOf('|');
    prefixEnd = barStart < prefixEnd - 1 ? skipSpacesBack(line, barStart) : 0;
  }
  if (prefixEnd > 0 && line.charCodeAt(prefixEnd - 1) === PERCENT) {
    prefixEnd--;
    while (prefixEnd > 0 && isDigit(line.charCodeAt(prefixEnd - 1))) prefixEnd--;
    prefixEnd = skipSpacesBack(line, prefixEnd);
  }
  if (prefixEnd > 0 && line.charCodeAt(prefixEnd - 1) === COLON) prefixEnd = skipSpacesBack(line, prefixEnd - 1);
  let prefixStart = 0;
  while (prefixStart < prefixEnd && line.charCodeAt(prefixStart) <= SPACE) prefixStart++;

  let perSecond: number | null = stats.rate;
  if (stats.rate !== null && stats.secondsPer) perSecond = stats.rate === 0 ? Number.POSITIVE_INFINITY : 1 / stats.rate;
  const close = closingBracket(line, stats.end);
  let postfixStart = stats.end;
  while (postfixStart < line.length && isCommaOrSpace(line.charCodeAt(postfixStart))) postfixStart++;
  const postfixEnd = close === -1 ? line.length : close;
  return {
    description: line.slice(prefixStart, prefixEnd),
    n,
    total,
    unit: stats.rateUnit === '' ? countUnit : stats.rateUnit,
    elapsedS: stats.elapsedS,
    remainingS: stats.remainingS,
    perSecond,
    postfix: postfixStart < postfixEnd ? line.slice(postfixStart, postfixEnd) : '',
    end: close === -1 ? line.length : close + 1,
  };
}

/** The `]` that closes the stats bracket; postfix values may hold brackets of their own (`lr=[0.1]`). */
function closingBracket(line: string, from: number): number {
  let depth = 0;
  for (let i = from; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 0x5b) depth++;
    else if (c === 0x5d) {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

function splitPostfix(text: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf(',', start);
    if (end === -1) end = text.length;
    const eq = text.indexOf('=', start);
    if (eq > start && eq < end) pairs.push([text.slice(start, eq).trim(), text.slice(eq + 1, end).trim()]);
    start = end + 1;
  }
  return pairs;
}

/** Postfix keys that are not metrics: Lightning's logger version number. */
const IGNORED_POSTFIX: ReadonlySet<string> = new Set(['v_num']);

/**
 * The last postfix read and its values: consecutive bar states mostly repeat their postfix (the
 * loss changes every few redraws, the rate every redraw), so it is parsed once per change.
 */
let lastPostfix = '';
let lastPostfixValues: Record<string, number> = {};

/** The numeric postfix pairs of a bar, under canonical names, added where `into` has no such name yet. */
export function postfixValues(bar: BarState, into: Record<string, number>): void {
  if (bar.postfix.length === 0) return;
  if (bar.postfix !== lastPostfix) {
    const pairs: Array<[string, number]> = [];
    for (const [key, raw] of splitPostfix(bar.postfix)) {
      if (IGNORED_POSTFIX.has(key)) continue;
      const value = parseNumber(raw);
      if (value !== null) pairs.push([key, value]);
    }
    const values: Record<string, number> = {};
    addValues(values, pairs);
    lastPostfix = bar.postfix;
    lastPostfixValues = values;
  }
  for (const name in lastPostfixValues) if (!(name in into)) into[name] = lastPostfixValues[name] ?? Number.NaN;
}

/** The throughput name for a bar's unit; null for units that are not training work (bytes are downloads). */
export function rateName(unit: string): string | null {
  if (unit === 'it') return 'steps_per_sec'; // tqdm's default, on nearly every bar
  const lower = unit.toLowerCase();
  if (STEP_UNITS.has(lower)) return 'steps_per_sec';
  if (TOKEN_UNITS.has(lower)) return 'tokens_per_sec';
  if (SAMPLE_UNITS.has(lower)) return 'samples_per_sec';
  return null;
}

const STEP_UNITS: ReadonlySet<string> = new Set(['it', 'its', 'step', 'steps', 'iter', 'iters', 'batch', 'batches']);
const TOKEN_UNITS: ReadonlySet<string> = new Set(['tok', 'toks', 'token', 'tokens']);
const SAMPLE_UNITS: ReadonlySet<string> = new Set(['sample', 'samples', 'img', 'imgs', 'image', 'images', 'seq', 'seqs', 'examples']);
/** Units of bars that move data, not training: downloads, uploads, checkpoint writes. */
const BYTE_UNITS: ReadonlySet<string> = new Set(['b', 'kb', 'mb', 'gb', 'tb', 'kib', 'mib', 'gib', 'tib']);

/** Bars that describe an evaluation loop (Lightning's `Validation DataLoader 0`, `Sanity Checking`, ...). */
const EVAL_DESCRIPTION = /valid|eval|test|sanity|predict/i;
/** Bars before or beside training that are not training: dataset preparation, downloads, loading. */
const NOT_TRAINING_DESCRIPTION = new RegExp(
  `^(?:${[
    'download',
    'map\\b',
    'filter',
    'generating',
    'loading',
    'tokeniz',
    'running tokenizer',
    'resolving',
    'fetching',
    'extract',
    'saving',
    'upload',
    'casting',
    'computing',
    'processing',
    'preprocess',
    'grouping',
    'concatenat',
    'shuffl',
    'writing',
    'reading',
    'converting',
    'creating',
    'building',
    'packing',
    'caching',
  ].join('|')})`,
  'i',
);
/** An epoch number in a description (`Epoch 3/10`, `epoch 3`). */
const EPOCH_IN_DESCRIPTION = /\bepoch\s*(\d+)/i;

/** What a bar's description says about it; a log has few distinct descriptions and prints each thousands of times. */
interface DescriptionClass {
  evaluation: boolean;
  notTraining: boolean;
  /** The epoch the description names (`Epoch 3/10`), or null. */
  epoch: number | null;
}
const DESCRIPTION_CACHE_LIMIT = 1024;
const descriptionClasses = new Map<string, DescriptionClass>();

function classify(description: string): DescriptionClass {
  let known = descriptionClasses.get(description);
  if (known === undefined) {
    if (descriptionClasses.size >= DESCRIPTION_CACHE_LIMIT) descriptionClasses.clear();
    const epoch = EPOCH_IN_DESCRIPTION.exec(description);
    known = {
      evaluation: EVAL_DESCRIPTION.test(description),
      notTraining: NOT_TRAINING_DESCRIPTION.test(description),
      epoch: epoch === null ? null : Number(epoch[1]),
    };
    descriptionClasses.set(description, known);
  }
  return known;
}

export function isEvalDescription(description: string): boolean {
  return classify(description).evaluation;
}

/** True for bars that report no training work: downloads, dataset maps, checkpoint loading. */
export function isNotTrainingBar(bar: BarState): boolean {
  return (bar.unit !== 'it' && BYTE_UNITS.has(bar.unit.toLowerCase())) || classify(bar.description).notTraining;
}

/** An evaluation bar's record: not a training step, and its rate kept apart from training throughput. */
export function evalBarRecord(bar: BarState): MetricRecord {
  const values: Record<string, number> = { batch: bar.n };
  if (bar.total !== null) values.batches = bar.total;
  if (bar.perSecond !== null) values.eval_steps_per_sec = bar.perSecond;
  const postfix: Record<string, number> = {};
  postfixValues(bar, postfix);
  Object.assign(values, toEvalValues(postfix));
  return { step: null, kind: 'eval', values };
}

/**
 * tqdm bars in general. The step is the bar's n. Which bar is training: the first bar with a total
 * that is not an evaluation bar by its description sets the training loop's length; a later bar
 * without a description and with another total is an inner loop — HF Trainer's evaluation bar runs
 * nested under the training bar that way — so its rate is not training throughput.
 */
export function createTqdmParser(): LineParser {
  let trainingTotal: number | null = null;
  let firstEpoch: number | null = null;
  return {
    name: 'tqdm',
    readsBars: true,
    matches: (line) => readBar(line) !== null, // cached: the line was just read for glued output
    parse(line) {
      const bar = readBar(line);
      if (bar === null || isNotTrainingBar(bar)) return null;
      const description = bar.description;
      const innerLoop = description === '' && trainingTotal !== null && bar.total !== null && bar.total !== trainingTotal;
      if (isEvalDescription(description) || innerLoop) return evalBarRecord(bar);
      if (trainingTotal === null && bar.total !== null) trainingTotal = bar.total;

      const values: Record<string, number> = {};
      let step = toStep(bar.n);
      const epoch = classify(description).epoch;
      if (epoch !== null) {
        // A bar per epoch restarts at 0: count on from the first epoch seen so steps keep growing.
        firstEpoch ??= epoch;
        values.epoch = epoch;
        if (bar.total !== null && step !== null) step += Math.max(0, epoch - firstEpoch) * Math.round(bar.total);
        values.batch = bar.n;
        if (bar.total !== null) values.batches = bar.total;
      } else if (bar.total !== null) {
        values.total_steps = bar.total;
      }
      const rate = rateName(bar.unit);
      if (rate !== null && bar.perSecond !== null) values[rate] = bar.perSecond;
      values.elapsed_s = bar.elapsedS;
      if (bar.remainingS !== null) values.remaining_s = bar.remainingS;
      postfixValues(bar, values);
      if (!hasValues(values)) return null;
      return { step, kind: 'progress', values };
    },
  };
}
