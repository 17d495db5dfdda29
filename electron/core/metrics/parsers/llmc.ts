// llm.c: `step    1/21479 | loss 11.007906 (+nanz)| norm 16.3235 (+nanz)| lr 2.86e-06 | 2734.72 ms | -100.0% bf16 MFU | 167751 tok/s`.
import { parseNumber } from '../text/numbers.js';
import type { LineParser, MetricRecord } from './types.js';
import { hasValues } from './values.js';
import { beginsWith } from './lineStart.js';

/** The current train_gpt2.cu line: fields between `|`. */
const STEP_FIELDS = /^\s*step\s+(\d+)\/(\d+) \|(.*)$/;
/**
 * Older train_gpt2.cu and the CPU train_gpt2.c: `step 4/74: train loss 4.3 (took 1234.5 ms)` and
 * variants. No comma after the loss: that is nanoGPT's `step N: train loss X, val loss Y`.
 */
const STEP_INLINE =
  /^\s*step\s+(\d+)(?:\/(\d+))?: train loss ([^\s,]+)(?=\s|$)(?: norm (\S+))?(?: lr (\S+))?(?: \((?:took )?([\d.]+) ms(?:, ([\d.]+) tok\/s)?\))?/;
const VAL_LOSS = /^\s*val loss (\S+)\s*$/;
const HELLASWAG = /^\s*HellaSwag: (\d+)\/(\d+) = ([\d.]+)/;

/** One `|` field of the current line under its name: `loss X (..)`, `norm X`, `lr X`, `X ms`, `X% bf16 MFU`, `X tok/s`. */
function readField(field: string): [string, string] | null {
  const space = field.indexOf(' ');
  if (space === -1) return null;
  const head = field.slice(0, space);
  if (head === 'loss' || head === 'norm' || head === 'lr') {
    const valueEnd = field.indexOf(' ', space + 1);
    const value = field.slice(space + 1, valueEnd === -1 ? field.length : valueEnd);
    return [head === 'loss' ? 'loss' : head === 'norm' ? 'grad_norm' : 'lr', value];
  }
  if (field.endsWith(' ms')) return ['step_time_ms', head];
  if (field.endsWith(' tok/s')) return ['tokens_per_sec', head];
  if (field.endsWith('MFU') && head.endsWith('%')) return ['mfu_percent', head.slice(0, -1)];
  return null;
}

/**
 * llm.c's trainers. Its MFU is -100% when it does not know the GPU's peak FLOPs (`peak TFlops -1.0`),
 * a sentinel, so negative MFU is dropped. `val loss` comes before the step that follows it and
 * belongs to the last step printed (0 before the first).
 */
export function createLlmcParser(): LineParser {
  let lastStep = 0;

  function trainRecord(step: number, total: number | null, values: Record<string, number>): MetricRecord {
    lastStep = step;
    if (total !== null) values.total_steps = total;
    return { step, kind: 'train', values };
  }

  return {
    name: 'llmc',
    // The last step is remembered only from a line that makes a record.
    keepsStateOnNull: true,
    matches: (line) => beginsWith(line, 'step ', 'val loss', 'HellaSwag'),
    parse(line) {
      const fields = STEP_FIELDS.exec(line);
      if (fields !== null) {
        const values: Record<string, number> = {};
        for (const raw of (fields[3] ?? '').split('|')) {
          const field = readField(raw.trim());
          if (field === null) continue;
          const value = parseNumber(field[1]);
          if (value !== null && !(field[0] === 'mfu_percent' && value < 0)) values[field[0]] = value;
        }
        if (!hasValues(values)) return null;
        return trainRecord(Number(fields[1]), Number(fields[2]), values);
      }
      const inline = STEP_INLINE.exec(line);
      if (inline !== null) {
        const values: Record<string, number> = {};
        const optional: ReadonlyArray<readonly [string | undefined, string]> = [
          [inline[3], 'loss'],
          [inline[4], 'grad_norm'],
          [inline[5], 'lr'],
          [inline[6], 'step_time_ms'],
          [inline[7], 'tokens_per_sec'],
        ];
        for (const [raw, name] of optional) {
          const value = raw === undefined ? null : parseNumber(raw);
          if (value !== null) values[name] = value;
        }
        return trainRecord(Number(inline[1]), inline[2] === undefined ? null : Number(inline[2]), values);
      }
      const val = VAL_LOSS.exec(line);
      if (val !== null) {
        const value = parseNumber(val[1] ?? '');
        return value === null ? null : { step: lastStep, kind: 'eval', values: { eval_loss: value } };
      }
      const hellaswag = HELLASWAG.exec(line);
      if (hellaswag === null) return null;
      return { step: lastStep, kind: 'eval', values: { eval_hellaswag_accuracy: Number(hellaswag[3]) } };
    },
  };
}
