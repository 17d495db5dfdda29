// fairseq: in-epoch `| epoch 010  2000 / 8223 loss=1.27 (1.50), wps=962, ...`, epoch summaries `| epoch 010 | train loss 1.44 | ...`, and `valid` lines.
import type { LineParser, MetricRecord } from './types.js';
import { addValues, readQuantity, toEvalValues, toStep, withUnit } from './values.js';

/** `epoch 010  2000 / 8223 k=v, ...` (legacy) or `epoch 001:    100 / 1000 k=v, ...` (hydra-era `train_inner`). */
const IN_EPOCH = /\bepoch (\d+):?\s+(\d+)\s*\/\s*(\d+)\s+(.*)$/;
/** `| epoch 010 | ...` and `| train | epoch 001 | ...`: an epoch's closing summary, fields between pipes. */
const EPOCH_FIELDS = /\bepoch (\d+)\s*\|(.*)$/;
/** The validation progress form: `valid on 'valid' subset  1000 / 1311 loss=1.60`. */
const VALID_PROGRESS = /valid on '[^']*' subset\s+(\d+)\s*\/\s*(\d+)\s+(.*)$/;
/** `loss=1.27 (1.50)`: a value and, for legacy fairseq, its running average. */
const KEY_VALUE = /^\s*([\w/]+)=(\S+)(?:\s+\((\S+)\))?\s*$/;
/** `train loss 1.44`, `words/s    961`, `clip 100%`: a name, then the value as the last token. */
const NAME_VALUE = /^\s*(.*?)\s+(\S+)\s*$/;

type Pairs = Array<[string, number]>;

function keyValuePairs(text: string): Pairs {
  const pairs: Pairs = [];
  for (const part of text.split(/,\s+/)) {
    const match = KEY_VALUE.exec(part);
    if (match === null) continue;
    pushQuantity(pairs, match[1] ?? '', match[2] ?? '');
    if (match[3] !== undefined) pushQuantity(pairs, `avg_${match[1] ?? ''}`, match[3]);
  }
  return pairs;
}

function pipePairs(fields: readonly string[]): Pairs {
  const pairs: Pairs = [];
  for (const field of fields) {
    const match = NAME_VALUE.exec(field);
    if (match === null) continue;
    // Legacy summaries say `train loss` / `valid loss`; the record's kind carries the phase instead.
    const name = (match[1] ?? '').replace(/^(?:train|valid) /, '');
    pushQuantity(pairs, name, match[2] ?? '');
  }
  return pairs;
}

function pushQuantity(pairs: Pairs, key: string, raw: string): void {
  const quantity = readQuantity(raw);
  const named = quantity === null ? null : withUnit(key, quantity);
  if (named !== null) pairs.push(named);
}

/** `num_updates` is fairseq's own step count; pulled out of the values into the record's step. */
function takeUpdates(values: Record<string, number>): number | null {
  const updates = values.num_updates;
  if (updates === undefined) return null;
  delete values.num_updates;
  return toStep(updates);
}

/**
 * fairseq, legacy and hydra-era. The step is `num_updates` where printed; legacy lines count
 * updates within an epoch only, so there it is `(epoch - 1) × N + i` (fairseq's epochs start at
 * 1), and an epoch's summary or validation sits at the epoch's last update.
 */
export function createFairseqParser(): LineParser {
  let updatesPerEpoch: number | null = null;

  function epochEnd(epoch: number): number | null {
    return updatesPerEpoch === null ? null : epoch * updatesPerEpoch;
  }

  return {
    name: 'fairseq',
    matches: (line) => line.includes('epoch ') || line.includes('valid on'),
    parse(line): MetricRecord | null {
      const validProgress = VALID_PROGRESS.exec(line);
      if (validProgress !== null) {
        const values: Record<string, number> = { batch: Number(validProgress[1]), batches: Number(validProgress[2]) };
        addValues(values, keyValuePairs(validProgress[3] ?? ''));
        const epoch = /\bepoch (\d+)/.exec(line);
        const evalValues = toEvalValues(values);
        if (epoch !== null) evalValues.epoch = Number(epoch[1]);
        return { step: null, kind: 'eval', values: evalValues };
      }
      const inEpoch = IN_EPOCH.exec(line);
      if (inEpoch !== null && inEpoch[4]?.includes('=')) {
        const epoch = Number(inEpoch[1]);
        const batch = Number(inEpoch[2]);
        updatesPerEpoch = Number(inEpoch[3]);
        const values: Record<string, number> = { epoch, batch, batches: updatesPerEpoch };
        addValues(values, keyValuePairs(inEpoch[4]));
        const step = takeUpdates(values) ?? (epoch - 1) * updatesPerEpoch + batch;
        return { step, kind: 'train', values };
      }
      const summary = EPOCH_FIELDS.exec(line);
      if (summary === null) return null;
      const epoch = Number(summary[1]);
      const fields = (summary[2] ?? '').split('|').filter((field) => !field.includes(' on '));
      const values: Record<string, number> = {};
      addValues(values, pipePairs(fields));
      // `[epoch 1 | batch 20/100] l=2.31` is a script's own line, not a fairseq summary: a summary states some value.
      if (Object.keys(values).length === 0) return null;
      const step = takeUpdates(values) ?? epochEnd(epoch);
      const isValid = line.includes('valid on') || /\|\s*valid\s*\|/.test(line);
      if (isValid) {
        const evalValues = toEvalValues(values);
        evalValues.epoch = epoch;
        return { step, kind: 'eval', values: evalValues };
      }
      values.epoch = epoch;
      return { step, kind: 'summary', values };
    },
  };
}
