// torchtitan: `step: 200  loss:  6.1384  memory: 49.66GiB(52.28%)  tps: 5,856  tflops: 339.16  mfu: 34.29%`.
import { parseNumber } from '../text/numbers.js';
import type { LineParser } from './types.js';
import { addValues, hasValues, readQuantity, toEvalValues, withUnit } from './values.js';

/** After any logging prefix (`[rank0]:[titan] 2025-06-16 22:30:50,322 - root - INFO - `). */
const STEP = /\b(validate )?step:\s*(\d+)\s+(.*)$/;
const FIELD = /([A-Za-z_]+):\s+(\S+)/g;
/** `49.66GiB(52.28%)`: memory in use and as a share of the device. */
const MEMORY = /^([\d.]+)GiB\(([\d.]+)%\)$/;

export function createTorchtitanParser(): LineParser {
  return {
    name: 'torchtitan',
    // It keeps no state.
    keepsStateOnNull: true,
    keepsStateOnRecord: true,
    matches: (line) => line.includes('step:') && (line.includes('loss:') || line.includes('tps:') || line.includes('wps:')),
    parse(line) {
      const match = STEP.exec(line);
      if (match === null) return null;
      const values: Record<string, number> = {};
      const pairs: Array<[string, number]> = [];
      for (const field of (match[3] ?? '').matchAll(FIELD)) {
        const key = field[1] ?? '';
        const raw = field[2] ?? '';
        const memory = key === 'memory' ? MEMORY.exec(raw) : null;
        if (memory !== null) {
          values.memory_gib = Number(memory[1]);
          values.memory_percent = Number(memory[2]);
          continue;
        }
        if (key === 'mfu') {
          const mfu = parseNumber(raw);
          if (mfu !== null) values.mfu_percent = mfu;
          continue;
        }
        const quantity = readQuantity(raw);
        const named = quantity === null ? null : withUnit(key, quantity);
        if (named !== null) pairs.push(named);
      }
      addValues(values, pairs);
      if (!hasValues(values)) return null;
      const step = Number(match[2]);
      return match[1] === undefined ? { step, kind: 'train', values } : { step, kind: 'eval', values: toEvalValues(values) };
    },
  };
}
