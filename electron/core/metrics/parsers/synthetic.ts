// Tuning Bench's own workloads (synthetic, charlm): `step 120: loss 2.314, 41250 tok/s, 24.8 ms/step`, `eval: ...`, `done: ...`.
import { parseNumber } from '../text/numbers.js';
import type { LineParser } from './types.js';
import { beginsWith } from './lineStart.js';

/** `step N: loss X, T tok/s, M ms/step`; the loss is optional (`Step N: T tok/s, M ms/step`). */
const STEP = /^\s*[Ss]tep (\d+): (?:loss (\S+), )?([\d.]+) tok\/s, ([\d.]+) ms\/step\s*$/;
/** synthetic prints `eval: loss X`; charlm prints `eval: step N loss X`. */
const EVAL = /^\s*eval: (?:step (\d+) )?loss (\S+)\s*$/;
/** `done: N steps in S s`, and charlm's `...; steady X steps/s, T tok/s, M ms/step (median of steps a-b)`. */
const DONE = /^\s*done: (\d+) steps in ([\d.]+) s\b(?:.*?steady ([\d.]+) steps\/s, ([\d.]+) tok\/s, ([\d.]+) ms\/step)?/;

export function createSyntheticParser(): LineParser {
  let lastStep: number | null = null;
  return {
    name: 'synthetic',
    // The last step is remembered only from a line that makes a record.
    keepsStateOnNull: true,
    matches: (line) => beginsWith(line, 'step ', 'Step ', 'eval: ', 'done: '),
    parse(line) {
      const step = STEP.exec(line);
      if (step !== null) {
        lastStep = Number(step[1]);
        const values: Record<string, number> = { tokens_per_sec: Number(step[3]), step_time_ms: Number(step[4]) };
        const loss = step[2] === undefined ? null : parseNumber(step[2]);
        if (loss !== null) values.loss = loss;
        return { step: lastStep, kind: 'train', values };
      }
      const evaluation = EVAL.exec(line);
      if (evaluation !== null) {
        const loss = parseNumber(evaluation[2] ?? '');
        if (loss === null) return null;
        const at = evaluation[1] === undefined ? lastStep : Number(evaluation[1]);
        return { step: at, kind: 'eval', values: { eval_loss: loss } };
      }
      const done = DONE.exec(line);
      if (done === null) return null;
      const values: Record<string, number> = { total_steps: Number(done[1]), train_runtime_s: Number(done[2]) };
      if (done[3] !== undefined) values.steps_per_sec = Number(done[3]);
      if (done[4] !== undefined) values.tokens_per_sec = Number(done[4]);
      if (done[5] !== undefined) values.step_time_ms = Number(done[5]);
      return { step: Number(done[1]), kind: 'summary', values };
    },
  };
}
