// nanoGPT: `iter 100: loss 2.4049, time 929.71ms, mfu 16.59%` and evaluations `step 250: train loss 1.5440, val loss 1.7220`.
import { parseNumber } from '../text/numbers.js';
import type { LineParser } from './types.js';
import { beginsWith } from './lineStart.js';

const ITER = /^\s*iter (\d+): loss ([^\s,]+), time ([\d.]+)\s?ms(?:, mfu (-?[\d.]+)%)?/;
const EVAL = /^\s*step (\d+): train loss ([^\s,]+), val loss ([^\s,]+)/;

/**
 * nanoGPT's train.py. Its MFU starts at -100% ("not measured yet": the running estimate is
 * initialised to -1 and printed as a percent until five iterations have passed), so a negative
 * MFU is not recorded as an MFU: it becomes `warmup_hint`, the script's own mark of warm-up. The evaluation's `train loss` is the loss over a sample of
 * training batches; it is `loss` in an `eval` record, beside the validation `eval_loss`.
 */
export function createNanoGptParser(): LineParser {
  return {
    name: 'nanogpt',
    // It keeps no state.
    keepsStateOnNull: true,
    keepsStateOnRecord: true,
    matches: (line) => beginsWith(line, 'iter ', 'step '),
    parse(line) {
      const iter = ITER.exec(line);
      if (iter !== null) {
        const values: Record<string, number> = {};
        const loss = parseNumber(iter[2] ?? '');
        if (loss !== null) values.loss = loss;
        values.step_time_ms = Number(iter[3]);
        const mfu = iter[4] === undefined ? null : parseNumber(iter[4]);
        if (mfu !== null && mfu >= 0) values.mfu_percent = mfu;
        // The sentinel is the script's own word that this iteration is warm-up: the summary's warm-up rule takes it.
        else if (mfu !== null) values.warmup_hint = 1;
        return { step: Number(iter[1]), kind: 'train', values };
      }
      const evaluation = EVAL.exec(line);
      if (evaluation === null) return null;
      const values: Record<string, number> = {};
      const trainLoss = parseNumber(evaluation[2] ?? '');
      const valLoss = parseNumber(evaluation[3] ?? '');
      if (trainLoss !== null) values.loss = trainLoss;
      if (valLoss !== null) values.eval_loss = valLoss;
      return { step: Number(evaluation[1]), kind: 'eval', values };
    },
  };
}
