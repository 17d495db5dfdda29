// Caffe's glog output: `I0808 13:46:45.056787  2527 solver.cpp:142] Test score #0: 0.17`, `Iteration 20, loss = 6.9`, ...
import { parseNumber } from '../text/numbers.js';
import type { LineParser, MetricRecord } from './types.js';
import { canonicalName, evalName } from './names.js';
import { beginsWith } from './lineStart.js';

/** glog's first characters: severity and date (`I0808`). */
const GLOG_START = /^[IWEF]\d{4} /;
/** glog's prefix: severity, MMDD, time, thread id, `file:line]`. */
const GLOG = /^[IWEF]\d{4} [\d:.]+\s+\d+ [\w.-]+:\d+\] (.*)$/;
const ITERATION_LOSS = /^Iteration (\d+)(?: \(([\d.]+) iter\/s, [\d.]+s\/\d+ iters?\))?, loss = (\S+)/;
const ITERATION_LR = /^Iteration (\d+), lr = (\S+)/;
const ITERATION_TESTING = /^Iteration (\d+), Testing net/;
const NET_OUTPUT = /^(Train|Test) net output #\d+: (\w+) = (\S+)/;
const TEST_SCORE = /^Test score #(\d+): (\S+)/;

/**
 * The solver's messages, as the line prefix reader (linePrefix.ts) leaves them once it has taken
 * glog's head off; a line that still has its head (a caller that did not strip it) is read too.
 */
const MESSAGE_STARTS: readonly string[] = ['Iteration ', 'Train net output #', 'Test net output #', 'Test score #'];

/** Caffe's solver. Test outputs belong to the iteration whose `Testing net` line came before them. */
export function createCaffeParser(): LineParser {
  let iteration: number | null = null;
  return {
    name: 'caffe',
    matches: (line) => beginsWith(line, ...MESSAGE_STARTS) || GLOG_START.test(line),
    parse(line): MetricRecord | null {
      const glog = GLOG.exec(line);
      const message = glog === null ? line.trimStart() : (glog[1] ?? '');
      const testing = ITERATION_TESTING.exec(message);
      if (testing !== null) {
        iteration = Number(testing[1]);
        return null;
      }
      const loss = ITERATION_LOSS.exec(message);
      if (loss !== null) {
        iteration = Number(loss[1]);
        const values: Record<string, number> = {};
        const value = parseNumber(loss[3] ?? '');
        if (value !== null) values.loss = value;
        if (loss[2] !== undefined) values.steps_per_sec = Number(loss[2]);
        return { step: iteration, kind: 'train', values };
      }
      const lr = ITERATION_LR.exec(message);
      if (lr !== null) {
        iteration = Number(lr[1]);
        const value = parseNumber(lr[2] ?? '');
        return value === null ? null : { step: iteration, kind: 'train', values: { lr: value } };
      }
      const output = NET_OUTPUT.exec(message);
      if (output !== null) {
        const value = parseNumber(output[3] ?? '');
        if (value === null) return null;
        const name = canonicalName(output[2] ?? '');
        return output[1] === 'Test'
          ? { step: iteration, kind: 'eval', values: { [evalName(name)]: value } }
          : { step: iteration, kind: 'train', values: { [name]: value } };
      }
      const score = TEST_SCORE.exec(message);
      if (score === null) return null;
      const value = parseNumber(score[2] ?? '');
      return value === null ? null : { step: iteration, kind: 'eval', values: { [`test_score_${score[1]}`]: value } };
    },
  };
}
