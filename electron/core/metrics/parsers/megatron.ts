// Megatron-LM and Megatron-DeepSpeed: ` iteration 20/ 1000000 | consumed samples: 80 | elapsed time per iteration (ms): 140.6 | ... |`.
import { parseNumber } from '../text/numbers.js';
import type { LineParser, MetricRecord } from './types.js';
import { addValues, hasValues, toEvalValues } from './values.js';
import { toSnakeCase } from './names.js';

const ITERATION = /\biteration\s+(\d+)\s*\/\s*(\d+)\s*\|(.*)$/;
const VALIDATION = /\bvalidation loss at iteration (\d+)[^|]*\|(.*)$/;
/** The timer breakdown Megatron prints after an iteration line: `time (ms) | forward-compute: 193.77 | ...`. */
const TIMERS = /^\s*time \(ms\)\s*\|(.*)$/;

/** Megatron's field names where ours differ; the rest become snake_case (`sop loss` → `sop_loss`). */
const MEGATRON_NAMES: Readonly<Record<string, string>> = {
  elapsed_time_per_iteration_ms: 'step_time_ms',
  learning_rate: 'lr',
  lm_loss: 'loss',
  number_of_skipped_iterations: 'skipped_iterations',
  number_of_nan_iterations: 'nan_iterations',
  samples_per_second: 'samples_per_sec',
  tflops: 'tflops',
  throughput_per_gpu_tflop_per_sec_gpu: 'tflops',
  tokens_per_gpu_per_second_tgs: 'tokens_per_sec_per_gpu',
  lm_loss_value: 'loss',
  lm_loss_ppl: 'ppl',
};

/** `key: value` fields between `|`; a field cut off mid-way (`number of skipp`) has no colon and is skipped. */
function fieldPairs(text: string): Array<[string, number]> {
  const pairs: Array<[string, number]> = [];
  for (const field of text.split('|')) {
    const colon = field.lastIndexOf(':');
    if (colon <= 0) continue;
    const value = parseNumber(field.slice(colon + 1));
    if (value === null) continue;
    const key = toSnakeCase(field.slice(0, colon));
    pairs.push([MEGATRON_NAMES[key] ?? key, value]);
  }
  return pairs;
}

/**
 * Megatron's iteration lines (consumed samples/tokens, ms per iteration, lr, losses, loss scale,
 * grad norm, skipped/nan iteration counts, samples/s, TFLOPs), its validation lines, and its
 * timer lines, which belong to the iteration printed just before them.
 */
export function createMegatronParser(): LineParser {
  let lastIteration: number | null = null;
  return {
    name: 'megatron',
    matches: (line) => line.includes('|') && (line.includes('iteration') || line.includes('time (ms)')),
    parse(line): MetricRecord | null {
      const iteration = ITERATION.exec(line);
      if (iteration !== null && !line.includes('validation loss')) {
        lastIteration = Number(iteration[1]);
        const values: Record<string, number> = { total_steps: Number(iteration[2]) };
        addValues(values, fieldPairs(iteration[3] ?? ''));
        return { step: lastIteration, kind: 'train', values };
      }
      const validation = VALIDATION.exec(line);
      if (validation !== null) {
        const values: Record<string, number> = {};
        addValues(values, fieldPairs(validation[2] ?? ''));
        return hasValues(values) ? { step: Number(validation[1]), kind: 'eval', values: toEvalValues(values) } : null;
      }
      const timers = TIMERS.exec(line);
      if (timers === null) return null;
      const values: Record<string, number> = {};
      for (const [key, value] of fieldPairs(timers[1] ?? '')) values[`${key}_ms`] = value;
      return hasValues(values) ? { step: lastIteration, kind: 'train', values } : null;
    },
  };
}
