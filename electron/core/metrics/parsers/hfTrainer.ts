// Hugging Face Trainer: its logged dicts (`{'loss': 0.61, 'learning_rate': 7e-05, 'epoch': 0.01}`; transformers 5 quotes each value,
// `{'loss': '0.61', ...}`) and `***** X metrics *****` blocks.
import { parseClockSeconds, parseNumber } from '../text/numbers.js';
import type { LineParser, MetricRecord, MetricRecordKind } from './types.js';
import { canonicalName, isMeasuredName } from './names.js';
import { addValues, hasValues, toStep } from './values.js';

/** HF's names where ours differ (the rest go through the common aliases). */
const HF_NAMES: Readonly<Record<string, string>> = {
  learning_rate: 'lr',
  train_runtime: 'train_runtime_s',
  eval_runtime: 'eval_runtime_s',
  test_runtime: 'test_runtime_s',
  predict_runtime: 'predict_runtime_s',
  train_samples_per_second: 'samples_per_sec',
  train_steps_per_second: 'steps_per_sec',
  eval_samples_per_second: 'eval_samples_per_sec',
  eval_steps_per_second: 'eval_steps_per_sec',
};

/** Keys only the end-of-training dict has: a dict with one of them is the run's summary. */
const SUMMARY_KEYS: ReadonlySet<string> = new Set(['train_runtime', 'train_samples_per_second', 'train_steps_per_second', 'train_loss', 'total_flos']);

/** `'key': value` or `"key": value` inside a dict; a value runs to the next comma or brace. */
const DICT_PAIR = /['"]([^'"]{1,200})['"]\s*:\s*([^,}]{1,200})/g;
/** `***** eval metrics *****` (also train, test, predict); HF's `***** Running training *****` settings blocks are not metrics. */
const BLOCK_HEADER = /^\s*\*{3,}\s*(\w+) metrics\s*\*{3,}\s*$/;
/** A block line: `  eval_loss               =      0.368`. */
const BLOCK_LINE = /^\s+([A-Za-z_][\w/.()-]*)\s+=\s+(\S.*?)\s*$/;
/** How many lines a pretty-printed dict may span before it is taken for something else. */
const MAX_DICT_LINES = 64;

function dictValue(quoted: string): number | null {
  // transformers 5 logs every value as a string (`'loss': '6.153'`), 4.x as a number: a quoted number is a number
  // (a quoted word, `'loss': 'mse'` of a settings dict, is still none).
  const raw = /^(['"])(.*)\1$/u.exec(quoted)?.[2]?.trim() ?? quoted;
  // numpy 2 and torch print `np.float64(0.35)` / `tensor(0.35, device='cuda:0')`: the number is inside.
  const open = raw.lastIndexOf('(');
  const inner = open === -1 ? raw : raw.slice(open + 1).replace(')', '');
  return parseNumber(inner);
}

/** A block value: a number, a `H:MM:SS.ss` runtime, or HF's `1234GF` flos / `12MB` memory. */
function blockValue(raw: string): number | null {
  const number = parseNumber(raw);
  if (number !== null) return number;
  const clock = parseClockSeconds(raw);
  if (clock !== null) return clock;
  const scaled = /^(\d+)\s*(GF|MB)$/.exec(raw);
  if (scaled === null) return null;
  return Number(scaled[1]) * 2 ** (scaled[2] === 'GF' ? 30 : 20);
}

function kindOfKeys(keys: readonly string[]): MetricRecordKind {
  if (keys.some((key) => key.startsWith('eval_') || key.startsWith('test_') || key.startsWith('predict_'))) return 'eval';
  if (keys.some((key) => SUMMARY_KEYS.has(key))) return 'summary';
  return 'train';
}

function recordOf(pairs: ReadonlyArray<readonly [string, number]>, kind: MetricRecordKind): MetricRecord | null {
  const keys = pairs.map(([key]) => key);
  // A python dict of settings (`{'lr': 0.001, 'batch_size': 8}`) is not a logged dict.
  const logged = keys.some((key) => SUMMARY_KEYS.has(key) || key.startsWith('eval_') || isMeasuredName(canonicalName(key)));
  if (!logged) return null;
  let step: number | null = null;
  const renamed: Array<readonly [string, number]> = [];
  for (const [key, value] of pairs) {
    if (key === 'step' || key === 'global_step') step = toStep(value);
    else if (key === 'train_loss' && kind === 'summary') renamed.push(['loss', value]);
    else renamed.push([HF_NAMES[key] ?? key, value]);
  }
  const values: Record<string, number> = {};
  addValues(values, renamed);
  return hasValues(values) ? { step, kind, values } : null;
}

function readPairs(text: string, into: Array<readonly [string, number]>): void {
  for (const match of text.matchAll(DICT_PAIR)) {
    const value = dictValue((match[2] ?? '').trim());
    if (value !== null) into.push([match[1] ?? '', value]);
  }
}

/**
 * HF Trainer logs. A dict on one line is one record (also when stdout glued it after a tqdm bar);
 * a dict pretty-printed over several lines is one record at its closing brace. Each line of a
 * `***** X metrics *****` block is a record of its own: the block has no end marker, and waiting
 * for the next line would hold the run's last numbers back.
 */
export function createHfTrainerParser(): LineParser {
  let openDict: Array<readonly [string, number]> | null = null;
  let openDictLines = 0;
  let blockKind: MetricRecordKind | null = null;
  /** HF sorts a block's keys, so `epoch` comes first; each later line of the block carries it too. */
  let blockEpoch: number | null = null;

  function continueDict(line: string): MetricRecord | null {
    const pairs = openDict ?? [];
    readPairs(line, pairs);
    openDictLines++;
    if (line.includes('}') || openDictLines > MAX_DICT_LINES) {
      openDict = null;
      return recordOf(pairs, kindOfKeys(pairs.map(([key]) => key)));
    }
    return null;
  }

  return {
    name: 'hf-trainer',
    matches: (line) => openDict !== null || blockKind !== null || (line.includes('{') ? line.includes("{'") || line.includes('{"') : line.includes('*****')),
    parse(line) {
      if (openDict !== null) {
        if (/^\s*['"]/.test(line)) return continueDict(line);
        openDict = null; // not a continuation after all: whatever opened it was not a dict we know
      }
      const header = BLOCK_HEADER.exec(line);
      if (header !== null) {
        const which = (header[1] ?? '').toLowerCase();
        blockKind = which === 'train' ? 'summary' : 'eval';
        blockEpoch = null;
        return null;
      }
      if (blockKind !== null) {
        const entry = BLOCK_LINE.exec(line);
        if (entry === null) {
          blockKind = null;
        } else {
          const value = blockValue(entry[2] ?? '');
          if (value === null) return null;
          const key = entry[1] ?? '';
          const values: Record<string, number> = {};
          const name = blockKind === 'summary' && key === 'train_loss' ? 'loss' : (HF_NAMES[key] ?? key);
          addValues(values, [[name, value]]);
          if (key === 'epoch') blockEpoch = value;
          else if (blockEpoch !== null) values.epoch = blockEpoch;
          return { step: null, kind: blockKind, values };
        }
      }
      const single = line.indexOf("{'");
      const double = line.indexOf('{"');
      const open = single === -1 ? double : double === -1 ? single : Math.min(single, double);
      if (open === -1) return null;
      const body = line.slice(open);
      if (!body.includes('}')) {
        openDict = [];
        openDictLines = 0;
        return continueDict(body);
      }
      const pairs: Array<readonly [string, number]> = [];
      readPairs(body, pairs);
      return recordOf(pairs, kindOfKeys(pairs.map(([key]) => key)));
    },
  };
}
