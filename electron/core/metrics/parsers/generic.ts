// The fallback for scripts of no known framework: `key: value` / `key=value` lines, and `name value | name value` tables.
import type { LineParser, MetricRecordKind } from './types.js';
import { STEP_KEYS, STEP_NUMBER_KEYS, canonicalName, isMeasuredName } from './names.js';
import { looksLikePlainStepLine, readPlainStepLine } from './plain.js';
import { KNOWN_SPACED_UNITS, addValues, hasValues, readQuantity, toEvalValues, toStep, withUnit, type Quantity } from './values.js';

/*
 * WHICH LINES ARE METRICS. Training scripts print their configuration before they train, in the
 * same `key: value` / `key=value` shapes as their metrics (`n_layer = 12`, `Namespace(lr=0.001,
 * ...)`, YAML, llm.c's parameter table). A line becomes a record only if
 *   1. it carries a measured key (loss, accuracy, grad norm, tok/s, samples/s, it/s, step time,
 *      MFU, perplexity, TFLOPs, or any `*_loss` / `*_acc*`) — `lr` alone is a setting, not a
 *      measurement — or
 *   2. it carries two or more numeric pairs, one of them step-like (step, iter, iteration,
 *      global_step, update, num_updates, epoch);
 * and it is not shaped like a configuration dump:
 *   - an argparse `Namespace(` or any `key=True|False|None|'text'` (a Python repr of settings),
 *   - `key = value` with spaces around `=` (nanoGPT's and HF's config printouts),
 *   - an indented line holding a single pair (a nested YAML / config entry).
 * llm.c's `| name | value |` table has no `:` or `=` and no field holding both a name and a value,
 * so it yields no pairs at all.
 */
/** `key=True`, `key=None`, `key='text'`: a Python repr of settings. */
const PYTHON_SETTING = /=\s*(?:True|False|None|'[^']*')(?=[\s,)\]}]|$)/;
/** `key = value`: a config file or its printout. */
const SPACED_ASSIGNMENT = /\w\s+=\s+[^=\s]/;

/** Units accepted after a value and one space (`24.8 ms`, `12 GiB`, `991 tok/sec`): every unit a value is read with. */
const SPACED_UNITS: ReadonlySet<string> = new Set(KNOWN_SPACED_UNITS);
/** A number with grouped thousands at a position: `5,856`, `10,690,944.5`. */
const GROUPED_NUMBER = /[+-]?\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?/y;
/** Keys hold at most this many words (`number of skipped iterations` is four). */
const MAX_KEY_WORDS = 4;

interface RawPair {
  key: string;
  value: string;
}

/** `(`, `)`, `%`, `#`: allowed inside a key word, never as its first character. */
const LEADING_SYMBOL: ReadonlySet<number> = new Set([0x28, 0x29, 0x25, 0x23]);
const isLetter = (code: number): boolean => (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
const isSpace = (code: number): boolean => code === 0x20 || code === 0x09;
/** Ends a value token: whitespace and `,;|]})`. */
const endsValue = (code: number): boolean =>
  code === 0x20 || code === 0x09 || code === 0x2c || code === 0x3b || code === 0x7c || code === 0x5d || code === 0x7d || code === 0x29;
/** Characters a key word may hold (after its first, which must be a letter): `[\w.@/%#()-]`. */
function isKeyChar(text: string, index: number): boolean {
  if (index < 0) return false;
  const code = text.charCodeAt(index);
  return (
    isLetter(code) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x5f || // _
    code === 0x2e || // .
    code === 0x40 || // @
    code === 0x2f || // /
    code === 0x25 || // %
    code === 0x23 || // #
    code === 0x28 || // (
    code === 0x29 || // )
    code === 0x2d // -
  );
}

/**
 * The start of the key that ends at `end` (exclusive): up to MAX_KEY_WORDS words, each starting
 * with a letter, joined by single spaces, not reaching back before `floor` (the previous pair's
 * value), and not glued to a word character before it (so `file.py:123` positions and the tail
 * of a longer token never read as keys). -1 when there is no key.
 */
function keyStart(text: string, end: number, floor: number): number {
  let start = -1;
  let wordEnd = end;
  for (let words = 0; words < MAX_KEY_WORDS; words++) {
    let wordStart = wordEnd;
    while (wordStart > floor && isKeyChar(text, wordStart - 1)) wordStart--;
    // Brackets and signs may open the run (`(loss`, `#0`); the word itself starts at a letter after them.
    while (wordStart < wordEnd && LEADING_SYMBOL.has(text.charCodeAt(wordStart))) wordStart++;
    if (wordStart === wordEnd || !isLetter(text.charCodeAt(wordStart))) break;
    const before = wordStart - 1;
    start = wordStart;
    // One more word only across exactly one space.
    if (before < floor || text.charCodeAt(before) !== 0x20 || before - 1 < floor || !isKeyChar(text, before - 1)) break;
    wordEnd = before;
  }
  return start;
}

/**
 * The `key: value` / `key=value` pairs of a line, left to right. Driven by the separators, not by
 * a pattern tried at every position: this parser sees every line no other parser claimed. A key
 * may end in a quote (JSON) and one space before the separator; a value runs to whitespace or
 * `,;|]})`, except that a comma between groups of three digits is a thousands separator; a unit
 * after one space is part of the value unless it is the next pair's key (`lr=3e-4 tok/s=12,345`).
 */
function scanPairs(text: string): RawPair[] {
  const pairs: RawPair[] = [];
  let floor = 0;
  let nextColon = text.indexOf(':');
  let nextEquals = text.indexOf('=');
  while (nextColon !== -1 || nextEquals !== -1) {
    const separator = nextEquals === -1 || (nextColon !== -1 && nextColon < nextEquals) ? nextColon : nextEquals;
    if (separator === nextColon) nextColon = text.indexOf(':', separator + 1);
    else nextEquals = text.indexOf('=', separator + 1);
    if (separator < floor) continue;

    let keyEnd = separator;
    if (keyEnd > floor && text.charCodeAt(keyEnd - 1) === 0x20) keyEnd--;
    const quote = text.charCodeAt(keyEnd - 1);
    if (keyEnd > floor && (quote === 0x22 || quote === 0x27)) keyEnd--;
    const start = keyStart(text, keyEnd, floor);
    if (start === -1) continue;

    let valueStart = separator + 1;
    while (valueStart < text.length && isSpace(text.charCodeAt(valueStart))) valueStart++;
    let valueEnd = valueStart;
    GROUPED_NUMBER.lastIndex = valueStart;
    if (GROUPED_NUMBER.test(text)) valueEnd = GROUPED_NUMBER.lastIndex;
    else while (valueEnd < text.length && !endsValue(text.charCodeAt(valueEnd))) valueEnd++;
    if (valueEnd === valueStart) continue;

    let value = text.slice(valueStart, valueEnd);
    if (isSpace(text.charCodeAt(valueEnd))) {
      let unitEnd = valueEnd + 1;
      while (unitEnd < text.length && !endsValue(text.charCodeAt(unitEnd)) && text[unitEnd] !== ':' && text[unitEnd] !== '=') unitEnd++;
      const unit = text.slice(valueEnd + 1, unitEnd);
      const next = text[unitEnd];
      if (SPACED_UNITS.has(unit) && next !== ':' && next !== '=') {
        value += unit;
        valueEnd = unitEnd;
      }
    }
    pairs.push({ key: text.slice(start, keyEnd), value });
    floor = valueEnd;
  }
  return pairs;
}

/** A field of a pipe table: `loss 2.31`, `lr 1e-4`, `tok/s 41250`. */
const PIPE_FIELD = /^\s*([A-Za-z][\w ./@%()-]*?)\s+(\S+)\s*$/;
/** `N/M` as a value (`step: 10/100`, `Epoch: 1/10`). */
const FRACTION = /^(\d+)\/(\d+)$/;
/** `Epoch 3/10` or `Epoch 3` alone on a line: the epoch of the lines after it. */
const EPOCH_HEADER = /^\s*Epoch:?\s+(\d+)(?:\s*\/\s*\d+)?\s*:?\s*$/i;
/** A leading phase word, as PyTorch's transfer-learning tutorial prints: `val Loss: 0.31 Acc: 0.89`. */
const PHASE_PREFIX = /^\s*(train|training|val|valid|validation|eval|evaluation|test)\s+(?=[A-Za-z])/i;
const EVAL_PHASES: ReadonlySet<string> = new Set(['val', 'valid', 'validation', 'eval', 'evaluation', 'test']);
/** A longer line is a dump of something, not a metric line; bounding it bounds the scanner's work. */
const MAX_GENERIC_LINE_CHARS = 4096;

type Pair = [string, number];

function pairsOf(key: string, quantity: Quantity): Pair[] {
  const named = withUnit(key, quantity);
  return named === null ? [] : [named];
}

/** `key: value` / `key=value` pairs with numeric values; other pairs are left out. */
function colonPairs(text: string): Pair[] {
  const pairs: Pair[] = [];
  for (const { key, value } of scanPairs(text)) {
    const fraction = FRACTION.exec(value);
    if (fraction !== null) {
      pairs.push([key, Number(fraction[1])]);
      const name = canonicalName(key);
      if (STEP_NUMBER_KEYS.has(name)) pairs.push(['total_steps', Number(fraction[2])]);
      else if (name === 'epoch') pairs.push(['total_epochs', Number(fraction[2])]);
      continue;
    }
    const quantity = readQuantity(value);
    if (quantity !== null) pairs.push(...pairsOf(key, quantity));
  }
  return pairs;
}

function pipePairs(line: string): Pair[] {
  const pairs: Pair[] = [];
  for (const field of line.split('|')) {
    const match = PIPE_FIELD.exec(field);
    if (match === null) continue;
    const quantity = readQuantity(match[2] ?? '');
    if (quantity !== null) pairs.push(...pairsOf(match[1] ?? '', quantity));
  }
  return pairs;
}

function hasTwoPipes(line: string): boolean {
  const first = line.indexOf('|');
  return first !== -1 && line.indexOf('|', first + 1) !== -1;
}

/**
 * A position in brackets with no words, epoch then batch within it: PyTorch's classifier tutorial `[2,  2000] loss:
 * 2.186`, pytorch/examples' `[0/25][20/782] ...`. Never a timestamp (`[2026-11-29 ...`), a list of three, or a rank.
 */
const NUMERIC_POSITION = /^\s*\[\s*(\d+)(?:\s*\/\s*(\d+))?\s*(?:,\s*|\]\s*\[\s*)(\d+)(?:\s*\/\s*(\d+))?\s*\]\s*/;

/** The line with its bracketed position said in words (`epoch 2 batch 2000 loss: 2.186`), as a plain step line; null without one. */
function positionInWords(line: string): string | null {
  const position = NUMERIC_POSITION.exec(line);
  if (position === null) return null;
  const [whole, epoch, epochs, batch, batches] = position;
  return `epoch ${epoch}${epochs === undefined ? '' : `/${epochs}`} batch ${batch}${batches === undefined ? '' : `/${batches}`} ${line.slice(whole.length)}`;
}

export function createGenericParser(): LineParser {
  let headerEpoch: number | null = null;
  return {
    name: 'generic',
    // Its one state, the epoch of a header line, is set only on that line, which makes no record.
    keepsStateOnRecord: true,
    stateOf: () => headerEpoch,
    adoptState: (state) => {
      headerEpoch = typeof state === 'number' ? state : null;
    },
    matches: (line) =>
      line.length <= MAX_GENERIC_LINE_CHARS &&
      (line.includes(':') || line.includes('=') || line.includes('|') || line.includes('poch') || looksLikePlainStepLine(line)),
    parse(text) {
      const line = positionInWords(text) ?? text;
      if (looksLikePlainStepLine(line)) {
        const plain = readPlainStepLine(line);
        if (plain !== null) {
          if (plain.values.epoch === undefined && headerEpoch !== null) plain.values.epoch = headerEpoch;
          const measured = Object.keys(plain.values).filter(isMeasuredName);
          const kind: MetricRecordKind = measured.every((name) => name.startsWith('eval_')) ? 'eval' : 'train';
          return { step: plain.step, kind, values: plain.values };
        }
      }
      const header = line.includes('poch') ? EPOCH_HEADER.exec(line) : null;
      if (header !== null) {
        headerEpoch = Number(header[1]);
        return null;
      }
      if (line.includes('Namespace(')) return null;
      if (line.includes('=') && (PYTHON_SETTING.test(line) || SPACED_ASSIGNMENT.test(line))) return null;

      const phase = PHASE_PREFIX.exec(line);
      const body = phase === null ? line : line.slice(phase[0].length);
      const evalPhase = phase !== null && EVAL_PHASES.has((phase[1] ?? '').toLowerCase());
      // `eval step 500: loss 0.14, acc 0.52`: a plain step line behind its phase word.
      if (phase !== null && looksLikePlainStepLine(body)) {
        const plain = readPlainStepLine(body);
        if (plain !== null) {
          if (plain.values.epoch === undefined && headerEpoch !== null) plain.values.epoch = headerEpoch;
          const measured = Object.keys(plain.values).filter(isMeasuredName);
          const kind: MetricRecordKind = evalPhase || measured.every((name) => name.startsWith('eval_')) ? 'eval' : 'train';
          return { step: plain.step, kind, values: evalPhase ? toEvalValues(plain.values) : plain.values };
        }
      }
      let pairs = colonPairs(body);
      if (pairs.length === 0 && hasTwoPipes(line)) pairs = pipePairs(body);
      if (pairs.length === 0) return null;
      if (pairs.length === 1 && /^\s/.test(line)) return null;

      const values: Record<string, number> = {};
      addValues(values, pairs);
      const names = Object.keys(values);
      const measured = names.some(isMeasuredName);
      const stepLike = names.some((name) => STEP_KEYS.has(name));
      if (!measured && !(names.length >= 2 && stepLike)) return null;

      let step: number | null = null;
      for (const name of names) {
        if (!STEP_NUMBER_KEYS.has(name)) continue;
        step = toStep(values[name]);
        delete values[name];
        break;
      }
      if (values.epoch === undefined && headerEpoch !== null) values.epoch = headerEpoch;
      if (!hasValues(values)) return null;

      const measuredNames = Object.keys(values).filter(isMeasuredName);
      const allEval = measuredNames.length > 0 && measuredNames.every((name) => name.startsWith('eval_'));
      const kind: MetricRecordKind = evalPhase || allEval ? 'eval' : 'train';
      return { step, kind, values: evalPhase ? toEvalValues(values) : values };
    },
  };
}
