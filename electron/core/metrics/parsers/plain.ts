// Plain step lines of scripts of no known framework: `step 10: loss 3.1, 991 tok/s`, `Step 1 | Loss: 2.3`, `iter 5/100 lm loss 3.2 (12.0 ms/step)`.
import { STEP_NUMBER_KEYS, canonicalName, isMeasuredName } from './names.js';
import { KNOWN_SPACED_UNITS, addValues, bareQuantity, readQuantity, toStep, withUnit } from './values.js';

/*
 * A hand-written training loop prints its step and a few numbers in whatever shape came to mind:
 * `key value`, `key: value`, `key=value`, separated by spaces, commas or pipes, with units glued on
 * (`1099.34ms`) or after a space (`12.0 ms/step`), sometimes a rate with no key at all (`991 tok/s`).
 * Such a line is read word by word: words before a number are its key (up to MAX_KEY_WORDS, so
 * `lm loss 3.2` is the loss), a unit after the number goes with it, and a rate unit is its own key.
 * Only lines that state a step (a step word and a number, `N` or `N/M`) or an epoch, and at least
 * one measured quantity, are records: prose and settings rarely have both.
 */

/** Keys hold at most this many words (`lm loss`, `train loss`, `elapsed time per iteration`). */
const MAX_KEY_WORDS = 3;
/** A line longer than this is a dump of something, not a step line (the generic parser's bound too). */
const MAX_PLAIN_LINE_CHARS = 4096;

/** Units that may follow a number after a space: every unit a value is read with. */
const SPACED_UNITS: ReadonlySet<string> = new Set(KNOWN_SPACED_UNITS);

/** Words that state the step when a number follows them (`step 10`, `Iter 5/100`, `it 3`). */
const STEP_WORDS: ReadonlySet<string> = new Set(['step', 'iter', 'iteration', 'it', 'global_step', 'global step', 'train_step', 'update', 'updates']);
/**
 * Words that state the position within an epoch (`batch 20/100`, `Batch 30`): the line's step where it
 * states no other, counted through the run once the collector sees the counter restart with the epoch.
 */
const BATCH_WORDS: ReadonlySet<string> = new Set(['batch', 'minibatch']);

/** Values printed for a diverged loss: kept, a NaN loss is a fact worth recording. */
const NON_FINITE: ReadonlySet<string> = new Set(['nan', '-nan', 'inf', '-inf', '+inf', 'infinity', '-infinity']);
const NON_FINITE_MAX_CHARS = 9;

/** A token that spells a non-finite value (`nan`, `-Inf`): lower-cased only when it could be one, since this runs on every word. */
function isNonFinite(token: string): boolean {
  if (token.length > NON_FINITE_MAX_CHARS) return false;
  const first = token.charCodeAt(0) | 0x20;
  if (first !== 0x6e /* n */ && first !== 0x69 /* i */ && first !== 0x2d /* - */ && first !== 0x2b /* + */) return false;
  return NON_FINITE.has(token.toLowerCase());
}

/** Ends a token: whitespace and `,;|()[]{}`. */
function endsToken(code: number): boolean {
  return (
    code === 0x20 ||
    code === 0x09 ||
    code === 0x2c ||
    code === 0x3b ||
    code === 0x7c ||
    code === 0x28 ||
    code === 0x29 ||
    code === 0x5b ||
    code === 0x5d ||
    code === 0x7b ||
    code === 0x7d
  );
}
/** Punctuation that ends a key (a value's end, a field separator). */
function breaksKey(code: number): boolean {
  return code === 0x2c || code === 0x3b || code === 0x7c || code === 0x28 || code === 0x29 || code === 0x5b || code === 0x5d || code === 0x7b || code === 0x7d;
}
const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;
const isLetter = (code: number): boolean => (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
/** A number's first character: a digit, a sign or a point before a digit. */
function startsNumber(token: string): boolean {
  const first = token.charCodeAt(0);
  if (isDigit(first)) return true;
  return (first === 0x2d || first === 0x2b || first === 0x2e) && token.length > 1 && (isDigit(token.charCodeAt(1)) || token.charCodeAt(1) === 0x2e);
}

/** Whether the line's text starts with a step word and a number: the cheap test before `readPlainStepLine`. */
export function looksLikePlainStepLine(line: string): boolean {
  let at = 0;
  // Spaces, and the bracket a script puts its position in (`[epoch 1 | batch 20/100] ...`).
  while (at < line.length && (line.charCodeAt(at) === 0x20 || line.charCodeAt(at) === 0x09 || line.charCodeAt(at) === 0x5b || line.charCodeAt(at) === 0x28))
    at++;
  const first = line.charCodeAt(at) | 0x20; // lower-cased
  if (
    first !== 0x73 /* s */ &&
    first !== 0x69 /* i */ &&
    first !== 0x65 /* e */ &&
    first !== 0x67 /* g */ &&
    first !== 0x75 /* u */ &&
    first !== 0x74 /* t */ &&
    first !== 0x62 /* b */ &&
    first !== 0x6d /* m */
  ) {
    return false;
  }
  let wordEnd = at;
  while (wordEnd < line.length && (isLetter(line.charCodeAt(wordEnd)) || line.charCodeAt(wordEnd) === 0x5f)) wordEnd++;
  // Compared in place: this runs on every line that reaches the generic parser.
  for (const word of LEADING_WORDS) if (word.length === wordEnd - at && equalsIgnoringCase(line, at, word)) return true;
  return false;
}

/** Words a plain step line starts with: the step words, the batch words, and `epoch` / `train` / `training` before them. */
const LEADING_WORDS: readonly string[] = [...STEP_WORDS, ...BATCH_WORDS, 'epoch', 'training', 'train'].filter((word) => !word.includes(' '));

/** Whether `line` at `at` holds `word` (lower case ASCII), whatever the case of its letters. */
function equalsIgnoringCase(line: string, at: number, word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const code = line.charCodeAt(at + i);
    if ((code >= 0x41 && code <= 0x5a ? code | 0x20 : code) !== word.charCodeAt(i)) return false;
  }
  return true;
}

/** Whether a token holds a letter or a digit: one that does not (`-`, `/`, `—`) only separates fields. */
function hasWordCharacter(token: string): boolean {
  for (let i = 0; i < token.length; i++) {
    const code = token.charCodeAt(i);
    if (isLetter(code) || isDigit(code) || code === 0x25 /* % */ || code > 0x7f) return true;
  }
  return false;
}

/** A comma between digit groups (`12,345`): part of the number, not a separator. */
function isThousandsComma(line: string, at: number): boolean {
  return (
    line.charCodeAt(at) === 0x2c &&
    isDigit(line.charCodeAt(at - 1)) &&
    isDigit(line.charCodeAt(at + 1)) &&
    isDigit(line.charCodeAt(at + 2)) &&
    isDigit(line.charCodeAt(at + 3)) &&
    !isDigit(line.charCodeAt(at + 4))
  );
}

/** Whether a number (after spaces and an optional `:` / `=`) starts at `at`. */
function numberFollows(line: string, at: number): boolean {
  let next = at;
  if (line.charCodeAt(next) === 0x3a || line.charCodeAt(next) === 0x3d) next++;
  while (line.charCodeAt(next) === 0x20) next++;
  const code = line.charCodeAt(next);
  return isDigit(code) || ((code === 0x2d || code === 0x2e) && isDigit(line.charCodeAt(next + 1)));
}

export interface PlainStepLine {
  /** Null for a line placed by its epoch alone. */
  step: number | null;
  values: Record<string, number>;
}

/** Where the first `=` or `:` of a token is, or -1 (a loop: a regex search per token was a tenth of this parser's time). */
function firstAssignment(token: string): number {
  for (let i = 0; i < token.length; i++) {
    const code = token.charCodeAt(i);
    if (code === 0x3d || code === 0x3a) return i;
  }
  return -1;
}

/** The step and values of a plain step line, or null when it states no step (or epoch) or no measured quantity. */
export function readPlainStepLine(line: string): PlainStepLine | null {
  if (line.length > MAX_PLAIN_LINE_CHARS) return null;
  const pairs: Array<[string, number]> = [];
  let step: number | null = null;
  /** The position within the epoch (`batch 20/100`): the step when the line states no other. */
  let batch: number | null = null;
  // Emptied by taking a new array: setting a small array's length to 0 is a slow path in V8, and this runs on every token.
  let keyWords: string[] = [];
  /** The last key word ended in `:` or `=`: a further word starts another key. */
  let closedKey = false;
  let at = 0;
  while (at < line.length) {
    const code = line.charCodeAt(at);
    if (endsToken(code)) {
      if (breaksKey(code)) {
        keyWords = [];
        closedKey = false;
      }
      at++;
      continue;
    }
    let end = at;
    while (end < line.length && (!endsToken(line.charCodeAt(end)) || isThousandsComma(line, end))) end++;
    let token = line.slice(at, end);
    at = end;

    // `key=value` and `key:value` in one token; `key:` / `key=` with the value in the next.
    const assign = firstAssignment(token);
    if (assign > 0 && !startsNumber(token)) {
      const key = token.slice(0, assign);
      const rest = token.slice(assign + 1);
      // `key=value` is a key of its own; `lm loss: 3.2` keeps the words before the colon.
      if (token.charCodeAt(assign) === 0x3d || closedKey) keyWords = [];
      keyWords.push(key);
      closedKey = true;
      if (rest.length === 0) continue;
      token = rest;
    } else if (assign === 0) {
      token = token.slice(1);
      if (token.length === 0) continue;
    }

    if (token.endsWith(':') && token.length > 1) token = token.slice(0, -1);
    if (!hasWordCharacter(token)) {
      // A dash, slash or dot between fields (`loss: 2.2 - 45ms`) separates; it is no key.
      keyWords = [];
      closedKey = false;
      continue;
    }
    if (!startsNumber(token) && !isNonFinite(token)) {
      // A word after `key:` with no value starts a new key: `metrics: loss 1.5` is the loss.
      if (closedKey) keyWords = [];
      closedKey = false;
      // A unit that did not follow a number names the value after it (`tok/s: 991`).
      keyWords.push(token);
      if (keyWords.length > MAX_KEY_WORDS) keyWords.shift();
      continue;
    }

    // A number, with its unit glued on or after one space.
    let text = token;
    const fraction = text.includes('/') ? /^(\d+)\/(\d+)$/.exec(text) : null;
    if (fraction === null && line.charCodeAt(at) === 0x20) {
      let unitEnd = at + 1;
      while (unitEnd < line.length && !endsToken(line.charCodeAt(unitEnd))) unitEnd++;
      const unit = line.slice(at + 1, unitEnd);
      // `3.2 tokens/s` is a rate; in `loss 3.2 tokens/s 1200` the unit is the next value's key.
      if (SPACED_UNITS.has(unit) && !numberFollows(line, unitEnd)) {
        text += unit;
        at = unitEnd;
      }
    }
    closedKey = false;
    const key = keyWords.length === 1 ? keyWords[0]! : keyWords.join(' ');
    const lastWord = (keyWords.at(-1) ?? '').toLowerCase();
    const isStepKey = keyWords.length > 0 && STEP_WORDS.has(lastWord);
    const isBatchKey = keyWords.length === 1 && BATCH_WORDS.has(lastWord);
    keyWords = [];
    const name = canonicalName(key);

    if (fraction !== null) {
      if (isStepKey || STEP_NUMBER_KEYS.has(name)) {
        step ??= Number(fraction[1]);
        pairs.push(['total_steps', Number(fraction[2])]);
      } else if (name === 'epoch') {
        pairs.push(['epoch', Number(fraction[1])], ['total_epochs', Number(fraction[2])]);
      } else if (isBatchKey) {
        batch ??= Number(fraction[1]);
        pairs.push(['batches', Number(fraction[2])]);
      }
      continue;
    }
    const quantity = readQuantity(text);
    if (quantity === null) continue;
    if (key.length === 0 || (SPACED_UNITS.has(key) && quantity.unit === '')) {
      // No key: a rate or a time per step names itself, and a bare duration is the step's time.
      const named = bareQuantity(key.length === 0 ? quantity : { value: quantity.value, unit: key });
      if (named !== null) pairs.push(named);
      continue;
    }
    if (step === null && (isStepKey || STEP_NUMBER_KEYS.has(name)) && quantity.unit === '') {
      step = toStep(quantity.value);
      continue;
    }
    if (isBatchKey && quantity.unit === '' && Number.isInteger(quantity.value) && quantity.value >= 0) {
      batch ??= quantity.value;
      continue;
    }
    const named = withUnit(key, quantity);
    if (named !== null) pairs.push(named);
  }
  const values: Record<string, number> = {};
  addValues(values, pairs);
  if (batch !== null) {
    values.batch = batch;
    step ??= batch;
  }
  // An epoch alone places the line too (`epoch 3 train_loss 0.45 val_loss 0.51`).
  if (step === null && values.epoch === undefined) return null;
  // A time on a line placed by its epoch alone (`epoch 3 took 35.2s`) is the epoch's, not a step's.
  if (step === null && values.step_time_ms !== undefined) {
    values.epoch_time_s ??= values.step_time_ms / 1000;
    delete values.step_time_ms;
  }
  if (!Object.keys(values).some(isMeasuredName)) return null;
  return { step, values };
}
