// A long log prints the same few line shapes millions of times: each shape is parsed once, then its lines are read by their numbers alone.
import { decimalIn } from '../text/numbers.js';
import { readBar } from './tqdm.js';
import type { LineParser, MetricRecord, MetricRecordKind } from './types.js';
import { dropPlaceholders, hasValues, mayDropPlaceholders } from './values.js';

/*
 * WHY THIS IS EXACT. A line's shape is the line with each digit of a number read as one mark (so `step 12:
 * loss 3.25` and `step 47: loss 1.08` share one, and `step 100` does not; the digits of a name, `top5_acc`, stay). A template is made for a shape on its second
 * line, only where all of these hold:
 *   - every parser that was asked (its `parse` called) declares that call keeps its state, or shows it did
 *     (types.ts), so skipping it on later lines skips nothing they would remember; the fresh parsers below,
 *     which start from nothing remembered, must keep theirs on every line tried too;
 *   - fresh parsers, given what the run's own show they remember (a header's epoch), read the line as the run's
 *     own do, so the record depends on nothing else that came before;
 *   - each value (and the step) follows one number of the line through one of a few exact operations
 *     (OPERATIONS, those the parsers apply: units of time and size, ×1000 suffixes), found by changing one
 *     number at a time, or stays the same whatever the numbers are;
 *   - the template reproduces, value for value and name for name, fresh parses of lines with every number changed.
 * Any parse of a line that changes a parser's state (an epoch header, an open dict) clears every template:
 * they were made under the old state. A value a placeholder rule drops is dropped again (the rules see the
 * value); a record left with no value goes the whole way through the parsers, as it would have.
 */

/** A value's source: a number of the line (its index) through an operation, or a constant. */
interface ValueSource {
  slot: number;
  operation: (x: number) => number;
  constant: number;
}

interface Template {
  shape: string;
  /** sameShape(line, shape) as a regular expression: V8 runs it as machine code, four times as fast as the loop on a dense log. */
  matcher: RegExp;
  /** The numbers' places in the shape: start and end of each, in pairs. */
  slots: Int32Array;
  /** Null: the shape's lines make no record. */
  record: {
    kind: MetricRecordKind;
    step: ValueSource | null;
    names: string[];
    values: ValueSource[];
    parser: LineParser;
    /** A placeholder rule could drop a value (mayDropPlaceholders): without one, the rules are not run on each line. */
    mayDrop: boolean;
  } | null;
}

/** What the parsers do to a printed number (see values.ts and numbers.ts): tried in this order. */
const OPERATIONS: ReadonlyArray<(x: number) => number> = [
  (x) => x,
  (x) => -x,
  (x) => x * 1000,
  (x) => x * 0.001,
  (x) => x / 1024,
  (x) => x * 1e3,
  (x) => x * 1e6,
  (x) => x * 1e9,
  (x) => x * 1e12,
  (x) => Math.round(x),
];

/** Shapes seen once and waiting for a second line before a template is made: bounded, cleared when full. */
const MAX_SHAPES_SEEN = 4096;
const MAX_TEMPLATES = 256;
/** Longer lines are parsed in full: a metric line is short, and a shape is made of the whole line. */
const MAX_LINE_CHARS = 1024;
/** Lines in a window that judges whether templates pay: under the share of hits, they are switched off for a while. */
const WINDOW_LINES = 8192;
const MIN_HIT_SHARE = 0.5;
const WINDOWS_OFF = 16;
/** Lines made with every number changed, each checked against the template before it is used. */
const CHECK_SHIFTS: readonly number[] = [5, 3, 7];

export interface ParsedLine {
  record: MetricRecord | null;
  /** Every `parse` call the line made keeps its parser's state (see keepsStateOnNull). */
  keptState: boolean;
  /** The parser whose record it is. */
  parser: LineParser | null;
}

/**
 * The record of the first parser that reads the line (parseLine's rule), and whether reading it changed any parser's
 * state; written into `into` when given (every line goes through here: no object made per line).
 */
export function parseLineTracked(line: string, parsers: readonly LineParser[], into: ParsedLine = { record: null, keptState: true, parser: null }): ParsedLine {
  const isBar = readBar(line) !== null;
  let keptState = true;
  for (const parser of parsers) {
    if (isBar && parser.readsBars !== true) continue;
    if (!parser.matches(line)) continue;
    const before = parser.stateOf === undefined ? undefined : parser.stateOf();
    const record = parser.parse(line);
    if (keptState) {
      const declared = record === null ? parser.keepsStateOnNull === true : parser.keepsStateOnRecord === true;
      keptState = declared || (parser.stateOf !== undefined && Object.is(before, parser.stateOf()));
    }
    if (record === null) continue;
    dropPlaceholders(record.values, parser.isPlaceholder);
    if (hasValues(record.values)) {
      into.record = record;
      into.keptState = keptState;
      into.parser = parser;
      return into;
    }
  }
  into.record = null;
  into.keptState = keptState;
  into.parser = null;
  return into;
}

export class LineTemplates {
  private readonly templates = new Map<number, Template>();
  /** Shapes (by hash) that make no template: their lines are parsed in full without trying again. */
  private readonly untemplated = new Map<number, string>();
  /** Hashes of shapes seen once (a collision only makes a template be tried early: it is checked on the line it is made from). */
  private readonly seenOnce = new Set<number>();
  private lastHit: Template | null = null;
  /** Lines read by a template (tests and benchmarks read it). */
  linesTemplated = 0;
  private windowLines = 0;
  private windowHits = 0;
  private windowsOff = 0;

  /**
   * `parsers`: the run's own, asked on every line no template reads. `fresh`: new instances of the same
   * parsers, in the same order (null: none can be made, and no template is).
   */
  constructor(
    private readonly parsers: readonly LineParser[],
    private readonly fresh: () => LineParser[] | null,
  ) {}

  /** The line's record, as parseLine(line, parsers) gives it. */
  read(line: string): MetricRecord | null {
    if (++this.windowLines >= WINDOW_LINES) this.judgeWindow();
    if (this.windowsOff > 0 || line.length > MAX_LINE_CHARS) return this.parseFully(line);
    // A log's lines mostly repeat the shape before them: that template is tried before any hash is made.
    const last = this.lastHit;
    if (last !== null && last.matcher.test(line)) {
      const record = apply(last, line);
      if (record !== undefined) {
        this.windowHits++;
        this.linesTemplated++;
        return record;
      }
      return this.parseFully(line);
    }
    const hash = shapeHash(line);
    const template = this.templates.get(hash);
    if (template !== undefined && template.matcher.test(line)) {
      this.lastHit = template;
      const record = apply(template, line);
      if (record !== undefined) {
        this.windowHits++;
        this.linesTemplated++;
        return record;
      }
    } else if (this.untemplated.get(hash) === undefined || !sameShape(line, this.untemplated.get(hash)!)) {
      return this.learn(line, hash);
    }
    return this.parseFully(line);
  }

  /** Fresh parsers in the state the run's own show (a header's epoch): a template made under that state is cleared when it changes. */
  private freshInRunState(): LineParser[] | null {
    const parsers = this.fresh();
    if (parsers === null) return null;
    parsers.forEach((parser, i) => {
      const own = this.parsers[i];
      if (own?.stateOf !== undefined && parser.adoptState !== undefined) parser.adoptState(own.stateOf());
    });
    return parsers;
  }

  private judgeWindow(): void {
    if (this.windowsOff > 0) {
      if (--this.windowsOff === 0) this.clear();
    } else if (this.windowHits < this.windowLines * MIN_HIT_SHARE) {
      this.windowsOff = WINDOWS_OFF;
    }
    this.windowLines = 0;
    this.windowHits = 0;
  }

  private clear(): void {
    // A bar-heavy log changes a parser's state on most lines: nothing to clear is the common case.
    if (this.lastHit === null && this.templates.size === 0 && this.untemplated.size === 0 && this.seenOnce.size === 0) return;
    this.lastHit = null;
    this.templates.clear();
    this.untemplated.clear();
    this.seenOnce.clear();
  }

  private readonly scratch: ParsedLine = { record: null, keptState: true, parser: null };

  private parseFully(line: string): MetricRecord | null {
    const parsed = parseLineTracked(line, this.parsers, this.scratch);
    if (!parsed.keptState) this.clear();
    return parsed.record;
  }

  /** A line of a shape no template reads yet: parsed in full; on the shape's second line, a template is tried. */
  private learn(line: string, hash: number): MetricRecord | null {
    const parsed = parseLineTracked(line, this.parsers, this.scratch);
    if (!parsed.keptState) {
      this.clear();
      return parsed.record;
    }
    if (!this.seenOnce.has(hash)) {
      if (this.seenOnce.size >= MAX_SHAPES_SEEN) this.seenOnce.clear();
      this.seenOnce.add(hash);
      return parsed.record;
    }
    this.seenOnce.delete(hash);
    const template = this.templates.size < MAX_TEMPLATES ? makeTemplate(line, parsed, () => this.freshInRunState()) : null;
    if (template !== null) this.templates.set(hash, template);
    else if (this.untemplated.size < MAX_SHAPES_SEEN) this.untemplated.set(hash, shapeOf(line));
    return parsed.record;
  }
}

const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;
/** Letters and `_`: a digit after them (and after digits after them) is part of a name (`top5_acc`, `bf16`), not a number. */
const isWordCode = (code: number): boolean => (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f;
/** What a number's digit reads as in a shape: a lone surrogate, which no decoded text holds. */
const NUMBER_DIGIT = 0xdfff;

/** The line's shape, hashed as it is read (shapeOf's text, without making it). */
function shapeHash(line: string): number {
  let hash = 0x811c9dc5 ^ line.length;
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    let code = line.charCodeAt(i);
    if (isDigit(code)) {
      if (!inWord) code = NUMBER_DIGIT;
    } else {
      inWord = isWordCode(code);
    }
    hash = Math.imul(hash ^ code, 0x01000193);
  }
  return hash;
}

export function shapeOf(line: string): string {
  const codes: number[] = [];
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    if (isDigit(code)) codes.push(inWord ? code : NUMBER_DIGIT);
    else {
      inWord = isWordCode(code);
      codes.push(code);
    }
  }
  return String.fromCharCode(...codes);
}

/** Whether the line has this shape: the text before each position matches, so a digit there is a number's exactly when the shape says so. */
export function sameShape(line: string, shape: string): boolean {
  if (line.length !== shape.length) return false;
  for (let i = 0; i < line.length; i++) {
    const expected = shape.charCodeAt(i);
    const code = line.charCodeAt(i);
    if (expected === NUMBER_DIGIT ? !isDigit(code) : code !== expected) return false;
  }
  return true;
}

/** Matches exactly the lines sameShape(line, shape) accepts: each number's digit any digit, everything else itself. */
export function shapeMatcher(shape: string): RegExp {
  let source = '^';
  for (let i = 0; i < shape.length;) {
    const code = shape.charCodeAt(i);
    if (code === NUMBER_DIGIT) {
      let end = i;
      while (end < shape.length && shape.charCodeAt(end) === NUMBER_DIGIT) end++;
      source += `[0-9]{${end - i}}`;
      i = end;
      continue;
    }
    // Letters and digits as they are; every other code unit escaped (a lone surrogate too: no `u` flag, so it is one unit).
    source += isDigit(code) || isWordCode(code) ? shape[i] : `\\u${code.toString(16).padStart(4, '0')}`;
    i++;
  }
  return new RegExp(`${source}$`);
}

/** The shape's numbers: runs of digits, with one `.` and more digits inside (`3.25`); a sign is text. */
function slotsOf(shape: string): Int32Array {
  const bounds: number[] = [];
  for (let i = 0; i < shape.length;) {
    if (shape.charCodeAt(i) !== NUMBER_DIGIT) {
      i++;
      continue;
    }
    let end = i;
    while (end < shape.length && shape.charCodeAt(end) === NUMBER_DIGIT) end++;
    if (shape.charCodeAt(end) === 0x2e && shape.charCodeAt(end + 1) === NUMBER_DIGIT) {
      end++;
      while (end < shape.length && shape.charCodeAt(end) === NUMBER_DIGIT) end++;
    }
    end = exponentEnd(shape, end);
    bounds.push(i, end);
    i = end;
  }
  return Int32Array.from(bounds);
}

/**
 * Where an exponent after a number ends (`3e-4`, `1.5E+06`: a learning rate as it is usually printed), or `at` when
 * none follows: a value read from both its parts is one number. Digits right after the `e` are the name-like kind
 * (the shape keeps them), those after a sign are a number's: both belong to it.
 */
function exponentEnd(shape: string, at: number): number {
  const e = shape.charCodeAt(at);
  if (e !== 0x65 && e !== 0x45) return at;
  let next = at + 1;
  if (shape.charCodeAt(next) === 0x2b || shape.charCodeAt(next) === 0x2d) next++;
  const isExponentDigit = (code: number): boolean => code === NUMBER_DIGIT || isDigit(code);
  if (!isExponentDigit(shape.charCodeAt(next))) return at;
  while (next < shape.length && isExponentDigit(shape.charCodeAt(next))) next++;
  // `3e5x`: a word goes on after it; not a number.
  return isWordCode(shape.charCodeAt(next)) ? at : next;
}

function slotValue(line: string, slots: Int32Array, slot: number): number {
  const start = slots[2 * slot]!;
  const end = slots[2 * slot + 1]!;
  return decimalIn(line, start, end) ?? Number(line.slice(start, end));
}

/** The line with the digits of the chosen numbers (all: -1) moved on by `shift` (9 + 5 = 4). */
function shifted(line: string, slots: Int32Array, only: number, shift: number): string {
  const codes: number[] = [];
  for (let i = 0; i < line.length; i++) codes.push(line.charCodeAt(i));
  for (let slot = 0; slot < slots.length / 2; slot++) {
    if (only !== -1 && slot !== only) continue;
    for (let i = slots[2 * slot]!; i < slots[2 * slot + 1]!; i++) if (isDigit(codes[i]!)) codes[i] = 0x30 + ((codes[i]! - 0x30 + shift) % 10);
  }
  return String.fromCharCode(...codes);
}

/** undefined: the template cannot say (a placeholder left the record empty), and the line is parsed in full. */
function apply(template: Template, line: string): MetricRecord | null | undefined {
  const made = template.record;
  if (made === null) return null;
  const values: Record<string, number> = {};
  for (let i = 0; i < made.names.length; i++) values[made.names[i]!] = valueOf(made.values[i]!, line, template.slots);
  if (made.mayDrop) {
    dropPlaceholders(values, made.parser.isPlaceholder);
    if (!hasValues(values)) return undefined;
  }
  return { step: made.step === null ? null : valueOf(made.step, line, template.slots), kind: made.kind, values };
}

function valueOf(source: ValueSource, line: string, slots: Int32Array): number {
  return source.slot === -1 ? source.constant : source.operation(slotValue(line, slots, source.slot));
}

function makeTemplate(line: string, parsed: ParsedLine, fresh: () => LineParser[] | null): Template | null {
  const parsers = fresh();
  if (parsers === null) return null;
  const read = (text: string): ParsedLine | null => {
    const result = parseLineTracked(text, parsers);
    return result.keptState ? result : null;
  };
  const again = read(line);
  if (again === null || !sameRecord(again.record, parsed.record)) return null;
  const shape = shapeOf(line);
  const slots = slotsOf(shape);
  const template: Template = { shape, matcher: shapeMatcher(shape), slots, record: null };
  const original = parsed.record;
  if (original !== null) {
    const probes: Array<MetricRecord | null> = [];
    for (let slot = 0; slot < slots.length / 2; slot++) {
      const probe = read(shifted(line, slots, slot, 1));
      if (probe === null) return null;
      probes.push(probe.record);
    }
    const names = Object.keys(original.values);
    for (const probe of probes) {
      if (probe === null || probe.kind !== original.kind || (probe.step === null) !== (original.step === null)) return null;
      if (!sameNames(Object.keys(probe.values), names)) return null;
    }
    const step =
      original.step === null
        ? null
        : sourceOf(
            line,
            slots,
            original.step,
            probes.map((probe) => probe!.step!),
          );
    if (original.step !== null && step === null) return null;
    const values: ValueSource[] = [];
    for (const name of names) {
      const source = sourceOf(
        line,
        slots,
        original.values[name]!,
        probes.map((probe) => probe!.values[name]!),
      );
      if (source === null) return null;
      values.push(source);
    }
    const parser = parsed.parser!;
    template.record = { kind: original.kind, step, names, values, parser, mayDrop: mayDropPlaceholders(names, parser.isPlaceholder) };
  }
  for (const shift of CHECK_SHIFTS) {
    const check = shifted(line, slots, -1, shift);
    const expected = read(check);
    if (expected === null) return null;
    const made = apply(template, check);
    if (made === undefined || !sameRecord(made, expected.record)) return null;
  }
  return template;
}

/** Where a value comes from, judged by the probes (one per number, that number changed); null when no one number and operation explain it. */
function sourceOf(line: string, slots: Int32Array, value: number, probeValues: readonly number[]): ValueSource | null {
  const moved = probeValues.flatMap((probed, slot) => (Object.is(probed, value) ? [] : [slot]));
  if (moved.length === 0) return { slot: -1, operation: OPERATIONS[0]!, constant: value };
  if (moved.length > 1) return null;
  const slot = moved[0]!;
  const probeLine = shifted(line, slots, slot, 1);
  const printed = slotValue(line, slots, slot);
  const probePrinted = slotValue(probeLine, slots, slot);
  const operation = OPERATIONS.find((candidate) => Object.is(candidate(printed), value) && Object.is(candidate(probePrinted), probeValues[slot]));
  return operation === undefined ? null : { slot, operation, constant: 0 };
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}

function sameRecord(a: MetricRecord | null, b: MetricRecord | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.kind !== b.kind || !Object.is(a.step, b.step)) return false;
  const names = Object.keys(a.values);
  if (!sameNames(names, Object.keys(b.values))) return false;
  return names.every((name) => Object.is(a.values[name], b.values[name]));
}
