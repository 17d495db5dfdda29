// Parser throughput: a mixed training log built from representative lines, timed through parseLogText.
import { parseLogText } from './parseLogText.js';

const BYTES_PER_MIB = 1024 * 1024;

/**
 * Lines in the shapes real logs have (tqdm redraws with ANSI colour, HF dicts, nanoGPT, llm.c,
 * Megatron, torchtitan, Keras, timm, plain key/value, noise). `{n}` is replaced by a growing step
 * number so no two lines are the same string.
 */
const TEMPLATES: readonly string[] = [
  '\r\u001b[32mtrain\u001b[0m  45%|\u001b[32m█████▍    \u001b[0m| {n}/1000000 [01:23<45:06, 12.3it/s, loss=2.314]',
  '\r\u001b[2Kstep {n}: loss 2.314, 41250 tok/s, 24.8 ms/step\n',
  "{'loss': 0.6081, 'grad_norm': 3.3574726581573486, 'learning_rate': 7e-05, 'epoch': 0.01}\n",
  '\r  2%|█▍        | {n}/8264 [23:37<15:44:25,  7.03s/it]',
  'iter {n}: loss 2.4049, time 929.71ms, mfu 16.59%\n',
  'step {n}/21479 | loss 9.594637 (+nanz)| norm 2.3978 (+nanz)| lr 2.86e-05 | 2409.28 ms | 42.1% bf16 MFU | 190918 tok/s\n',
  ' iteration {n}/ 1000000 | consumed samples: 80 | elapsed time per iteration (ms): 140.6 | learning rate: 2.020E-08 | lm loss: 1.005022E+01 | loss scale: 32768.0 | grad norm: 217.199 |\n',
  '[rank0]:[titan] 2025-06-16 22:30:50,322 - root - INFO - step: {n}  loss:  6.1384  memory: 49.66GiB(52.28%)  tps: 5,856  tflops: 339.16  mfu: 34.29%\n',
  '237/422 [===============>..............] - ETA: 7s - loss: 0.0398 - accuracy: 0.9877\n',
  'Train: 0 [ {n}/73 ( 70%)]  Loss: 6.77 (6.83)  Time: 0.320s,  400.32/s  (0.470s,  272.39/s)  LR: 1.000e-05  Data: 0.217 (0.047)\n',
  'epoch: 3, step: {n}, train_loss: 0.512, val_acc: 0.91\n',
  '/usr/lib/python3/site-packages/torch/utils/data/dataloader.py:557: UserWarning: This DataLoader will create 8 worker processes in total.\n',
];

/** A mixed log of about `megabytes` MiB; the templates cycle so every format appears within the first lines. */
export function buildMixedLog(megabytes: number): string {
  const targetBytes = Math.max(1, megabytes) * BYTES_PER_MIB;
  const parts: string[] = [];
  let bytes = 0;
  for (let n = 1; bytes < targetBytes; n++) {
    const line = (TEMPLATES[n % TEMPLATES.length] ?? '').replaceAll('{n}', String(n));
    parts.push(line);
    bytes += line.length; // the templates are mostly ASCII: characters are close enough to bytes for sizing
  }
  return parts.join('');
}

export interface ParserThroughput {
  /** MiB of log text (UTF-8) parsed per second, split and detection included. */
  mbPerSec: number;
  megabytes: number;
  seconds: number;
  records: number;
}

/** Times `parseLogText` over a freshly built mixed log of `megabytes` MiB (one core, no I/O). */
export function parserThroughput(megabytes: number): ParserThroughput {
  const text = buildMixedLog(megabytes);
  const size = Buffer.byteLength(text, 'utf8') / BYTES_PER_MIB;
  const started = performance.now();
  const { records } = parseLogText(text);
  const seconds = (performance.now() - started) / 1000;
  return { mbPerSec: size / seconds, megabytes: size, seconds, records: records.length };
}
