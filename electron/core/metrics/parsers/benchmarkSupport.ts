// The mixed training log the parser and import benchmarks (bench/parsers.ts, bench/cli.ts) time, built from representative lines.

const BYTES_PER_MIB = 1024 * 1024;

/**
 * A training log's proportions, as bench/ingest.ts models them: a progress-bar redraw for every
 * step, a metric line every METRIC_EVERY_STEPS steps, a warning now and then. The bars and metric
 * lines come in the shapes real logs have (tqdm with ANSI colour, HF Trainer's wide `s/it` bar,
 * Lightning; HF dicts, nanoGPT, llm.c, Megatron, torchtitan, Keras, timm, plain key/value, our own
 * workload), rotating so every format appears within the first lines. `{n}` is the step.
 * The bars' clocks stand still (each template prints one elapsed time): the parsers read every
 * redraw, but an import, which thins a bar by its own clock, keeps only each bar's last state.
 */
const BAR_TEMPLATES: readonly string[] = [
  '\r\u001b[32mtrain\u001b[0m  45%|\u001b[32m█████▍    \u001b[0m| {n}/1000000 [01:23<45:06, 12.3it/s, loss=2.314]',
  '\r  2%|█▍                                                                                                  | {n}/1000000 [23:37<15:44:25,  7.03s/it]',
  '\rEpoch 3:  17%|█▋        | {n}/1000000 [00:14<01:13,  4.87it/s, loss=10.05, v_num=0]',
];
const METRIC_TEMPLATES: readonly string[] = [
  '\r\u001b[2Kstep {n}: loss 2.314, 41250 tok/s, 24.8 ms/step\n',
  "{'loss': 0.6081, 'grad_norm': 3.3574726581573486, 'learning_rate': 7e-05, 'epoch': 0.01}\n",
  'iter {n}: loss 2.4049, time 929.71ms, mfu 16.59%\n',
  'step {n}/21479 | loss 9.594637 (+nanz)| norm 2.3978 (+nanz)| lr 2.86e-05 | 2409.28 ms | 42.1% bf16 MFU | 190918 tok/s\n',
  ' iteration {n}/ 1000000 | consumed samples: 80 | elapsed time per iteration (ms): 140.6 | learning rate: 2.020E-08 | lm loss: 1.005022E+01 | loss scale: 32768.0 | grad norm: 217.199 |\n',
  '[rank0]:[titan] 2025-06-16 22:30:50,322 - root - INFO - step: {n}  loss:  6.1384  memory: 49.66GiB(52.28%)  tps: 5,856  tflops: 339.16  mfu: 34.29%\n',
  '237/422 [===============>..............] - ETA: 7s - loss: 0.0398 - accuracy: 0.9877\n',
  'Train: 0 [ {n}/73 ( 70%)]  Loss: 6.77 (6.83)  Time: 0.320s,  400.32/s  (0.470s,  272.39/s)  LR: 1.000e-05  Data: 0.217 (0.047)\n',
  'epoch: 3, step: {n}, train_loss: 0.512, val_acc: 0.91\n',
];
const WARNING = '/usr/lib/python3/site-packages/torch/utils/data/dataloader.py:557: UserWarning: This DataLoader will create 8 worker processes in total.\n';
/** bench/ingest.ts prints a step line every 10 steps. */
const METRIC_EVERY_STEPS = 10;
/** bench/ingest.ts prints a warning every 997 steps; a round hundred is as good. */
const WARNING_EVERY_STEPS = 100;

/**
 * Prefixes that job runners, loggers and launchers put in front of lines (issue 13), rotating over
 * a log's lines when it is built with `prefixed`: container and CI stamps, Python logging heads,
 * torchrun's rank tags, syslog, mpirun's tags. `{s}` is a second of the stamp.
 */
const PREFIX_TEMPLATES: readonly string[] = [
  '2024-05-02T13:45:{s}.123456789Z ',
  '2024-05-02 13:45:{s},123 - INFO - train - ',
  '[rank0]: ',
  'May  2 13:45:{s} gpu-node python3[4242]: ',
  '> 2023-03-22 09:30:{s} ',
  '[1,0]<stdout>:',
  'INFO:__main__:',
  '2024-05-02T13:45:{s}.1234567Z ',
];

export interface MixedLogOptions {
  /** A prefix (PREFIX_TEMPLATES, rotating) on every line: the cost of reading past them. */
  prefixed?: boolean;
}

/** A mixed training log of about `megabytes` MiB (see the templates above). */
export function buildMixedLog(megabytes: number, options: MixedLogOptions = {}): string {
  const targetBytes = Math.max(1, megabytes) * BYTES_PER_MIB;
  const parts: string[] = [];
  let chars = 0;
  let lines = 0;
  const add = (template: string, step: number): void => {
    let line = template.replaceAll('{n}', String(step));
    if (options.prefixed === true) {
      const prefix = (PREFIX_TEMPLATES[lines++ % PREFIX_TEMPLATES.length] ?? '').replace('{s}', String(step % 60).padStart(2, '0'));
      // After a bar's carriage return or a terminal's erase, where a runner would stamp the line.
      const at = line.startsWith('\r\u001b[2K') ? 5 : line.startsWith('\r') ? 1 : 0;
      line = line.slice(0, at) + prefix + line.slice(at);
    }
    parts.push(line);
    chars += line.length;
  };
  for (let step = 1; chars < targetBytes; step++) {
    add(BAR_TEMPLATES[step % BAR_TEMPLATES.length] ?? '', step);
    if (step % METRIC_EVERY_STEPS === 0) add(METRIC_TEMPLATES[(step / METRIC_EVERY_STEPS) % METRIC_TEMPLATES.length] ?? '', step);
    if (step % WARNING_EVERY_STEPS === 0) add(WARNING, step);
  }
  // Characters, not bytes, were counted: the bar glyphs make the text a little larger than asked, which is harmless.
  return parts.join('');
}
