// tqdm progress bars: `desc: 45%|███| 90/200 [00:01<00:01, 85.31it/s, loss=2.314]` and their variants.
import { parseClockSeconds, parseNumber } from '../text/numbers.js';
import type { LineParser, MetricRecord } from './types.js';
import { addValues, hasValues, toEvalValues, toStep } from './values.js';

/** One bar state, as tqdm's `format_meter` prints it. */
export interface BarState {
  /** Text before the percentage or count, without its trailing colon ('' when none). */
  description: string;
  /** Items done (the n of n/total). */
  n: number;
  total: number | null;
  /** The bar's item unit: `it` unless the script set `unit=`. */
  unit: string;
  elapsedS: number | null;
  remainingS: number | null;
  /** Items per second (an `s/it` rate already inverted); null for `?it/s`. */
  perSecond: number | null;
  /** `k=v` pairs after the rate, as printed. */
  postfix: Array<[string, string]>;
  /** Index just past the closing `]`: text after it was printed onto the bar's line by someone else. */
  end: number;
}

// The hot patterns here are ASCII and carry no `u` flag: V8 runs non-unicode regexes about twice as fast.

/** The stats bracket, tried at each `[`: `[elapsed<remaining, ` or `[elapsed, ` (no total). Clocks are MM:SS or H:MM:SS. */
const STATS_OPEN = /\[(\d+:\d{2}(?::\d{2})?)(?:<(\?|\d+:\d{2}(?::\d{2})?))?, */y;
/** The count token before the bracket: `90/200`, `0it`, `1.2k/2.00M` (unit_scale). */
const COUNT = /^(\d+(?:\.\d+)?[kMGTP]?)(?:\/(\d+(?:\.\d+)?[kMGTP]?))?([A-Za-z]*)$/;
/** `85.31it/s`, `7.03s/it`, `?it/s`, `5000.00 examples/s`. */
const RATE = /^(\?|\d+(?:\.\d+)?[kMGTP]?)\s?([A-Za-z]*)\/([A-Za-z]+)/;

/** Cheap pre-check: every tqdm stats bracket opens with `[`, then elapsed time with a `:`, then a rate with a `/`. */
export function looksLikeBar(line: string): boolean {
  const open = line.indexOf('[');
  if (open === -1) return false;
  return line.includes('/s', open) || line.includes('s/', open);
}

/**
 * The last line read and its bar: a line is read for glued output (detect.ts) and then again by
 * the bar parsers, and a bar's regexes are the costliest part of a tqdm-heavy log.
 */
let lastLine: string | null = null;
let lastBar: BarState | null = null;

/** The bar state printed on a line, or null when the line holds none. */
export function readBar(line: string): BarState | null {
  if (line === lastLine) return lastBar;
  const bar = readBarUncached(line);
  lastLine = line;
  lastBar = bar;
  return bar;
}

function readBarUncached(line: string): BarState | null {
  // Bars are most of a long log and their lines are wide: the parts are found by scanning indexes
  // on the line itself, since slicing, trimming and end-anchored patterns cost more on such lines.
  let stats: RegExpExecArray | null = null;
  for (let open = line.indexOf('['); open !== -1 && stats === null; open = line.indexOf('[', open + 1)) {
    STATS_OPEN.lastIndex = open;
    stats = STATS_OPEN.exec(line);
  }
  if (stats === null) return null;
  const countEnd = skipSpacesBack(line, stats.index);
  let countStart = countEnd;
  while (countStart > 0 && !isSpaceOrPipe(line.charCodeAt(countStart - 1))) countStart--;
  const count = COUNT.exec(line.slice(countStart, countEnd));
  if (count === null) return null;
  const n = parseNumber(count[1] ?? '');
  if (n === null) return null;
  const total = count[2] === undefined ? null : parseNumber(count[2]);
  const unit = count[3] === undefined || count[3] === '' ? 'it' : count[3];

  // Back from the count: the bar between two `|`, the percentage, then the description and its colon.
  let prefixEnd = skipSpacesBack(line, countStart);
  if (prefixEnd > 0 && line.charCodeAt(prefixEnd - 1) === PIPE) {
    let barStart = prefixEnd - 1;
    while (barStart > 0 && line.charCodeAt(barStart - 1) !== PIPE) barStart--;
    prefixEnd = barStart === 0 ? 0 : skipSpacesBack(line, barStart - 1);
  }
  if (prefixEnd > 0 && line.charCodeAt(prefixEnd - 1) === PERCENT) {
    prefixEnd--;
    while (prefixEnd > 0 && isDigit(line.charCodeAt(prefixEnd - 1))) prefixEnd--;
    prefixEnd = skipSpacesBack(line, prefixEnd);
  }
  if (prefixEnd > 0 && line.charCodeAt(prefixEnd - 1) === COLON) prefixEnd = skipSpacesBack(line, prefixEnd - 1);
  let prefixStart = 0;
  while (prefixStart < prefixEnd && line.charCodeAt(prefixStart) <= SPACE) prefixStart++;
  const description = line.slice(prefixStart, prefixEnd);

  const afterOpen = stats.index + stats[0].length;
  const rest = line.slice(afterOpen);
  const rate = RATE.exec(rest);
  let perSecond: number | null = null;
  let rateUnit = unit;
  let cursor = afterOpen;
  if (rate !== null) {
    cursor += rate[0].length;
    const value = rate[1] === '?' ? null : parseNumber(rate[1] ?? '');
    const secondsPer = rate[2] === 's' && rate[3] !== 's';
    rateUnit = secondsPer ? (rate[3] ?? unit) : rate[2] || unit;
    if (value !== null) perSecond = secondsPer ? (value === 0 ? Number.POSITIVE_INFINITY : 1 / value) : value;
  }
  const end = closingBracket(line, cursor);
  const postfixText = line.slice(cursor, end === -1 ? line.length : end).replace(/^,\s*/u, '');
  return {
    description,
    n,
    total,
    unit: rateUnit,
    elapsedS: parseClockSeconds(stats[1] ?? ''),
    remainingS: stats[2] === undefined || stats[2] === '?' ? null : parseClockSeconds(stats[2]),
    perSecond,
    postfix: splitPostfix(postfixText),
    end: end === -1 ? line.length : end + 1,
  };
}

const SPACE = 0x20;
const PIPE = 0x7c;
const PERCENT = 0x25;
const COLON = 0x3a;
const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;
const isSpaceOrPipe = (code: number): boolean => code <= SPACE || code === PIPE;

/** The index after the last non-space character before `end`. */
function skipSpacesBack(line: string, end: number): number {
  let at = end;
  while (at > 0 && line.charCodeAt(at - 1) <= SPACE) at--;
  return at;
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

/** The numeric postfix pairs of a bar, under canonical names. */
export function postfixValues(bar: BarState, into: Record<string, number>): void {
  const pairs: Array<[string, number]> = [];
  for (const [key, raw] of bar.postfix) {
    if (IGNORED_POSTFIX.has(key)) continue;
    const value = parseNumber(raw);
    if (value !== null) pairs.push([key, value]);
  }
  addValues(into, pairs);
}

/** The throughput name for a bar's unit; null for units that are not training work (bytes are downloads). */
export function rateName(unit: string): string | null {
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
const EVAL_DESCRIPTION = /valid|eval|test|sanity|predict/iu;
/** Bars before or beside training that are not training: dataset preparation, downloads, loading. */
const NOT_TRAINING_DESCRIPTION =
  /^(?:download|map\b|filter|generating|loading|tokeniz|running tokenizer|resolving|fetching|extract|saving|upload|casting|computing|processing|preprocess|grouping|concatenat|shuffl|writing|reading|converting|creating|building|packing|caching)/iu;
/** An epoch number in a description (`Epoch 3/10`, `epoch 3`). */
const EPOCH_IN_DESCRIPTION = /\bepoch\s*(\d+)/iu;

/** What a bar's description says about it; a log has few distinct descriptions and prints each thousands of times. */
interface DescriptionClass {
  evaluation: boolean;
  notTraining: boolean;
}
const DESCRIPTION_CACHE_LIMIT = 1024;
const descriptionClasses = new Map<string, DescriptionClass>();

function classify(description: string): DescriptionClass {
  let known = descriptionClasses.get(description);
  if (known === undefined) {
    if (descriptionClasses.size >= DESCRIPTION_CACHE_LIMIT) descriptionClasses.clear();
    known = { evaluation: EVAL_DESCRIPTION.test(description), notTraining: NOT_TRAINING_DESCRIPTION.test(description) };
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
export function evalBarRecord(bar: BarState): MetricRecord | null {
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
    matches: looksLikeBar,
    parse(line) {
      const bar = readBar(line);
      if (bar === null || isNotTrainingBar(bar)) return null;
      const description = bar.description;
      const innerLoop = description === '' && trainingTotal !== null && bar.total !== null && bar.total !== trainingTotal;
      if (isEvalDescription(description) || innerLoop) return evalBarRecord(bar);
      if (trainingTotal === null && bar.total !== null) trainingTotal = bar.total;

      const values: Record<string, number> = {};
      let step = toStep(bar.n);
      const epochMatch = EPOCH_IN_DESCRIPTION.exec(description);
      if (epochMatch !== null) {
        // A bar per epoch restarts at 0: count on from the first epoch seen so steps keep growing.
        const epoch = Number(epochMatch[1]);
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
      if (bar.elapsedS !== null) values.elapsed_s = bar.elapsedS;
      if (bar.remainingS !== null) values.remaining_s = bar.remainingS;
      postfixValues(bar, values);
      if (!hasValues(values)) return null;
      return { step, kind: 'progress', values };
    },
  };
}
