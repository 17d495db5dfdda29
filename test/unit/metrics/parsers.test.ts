// Each parser family on lines in its own shapes, beyond the fixture logs: variants, edge cases, detection.
import { describe, expect, it } from 'vitest';
import {
  createGenericParser,
  createHfTrainerParser,
  createKerasParser,
  createLlmcParser,
  createMegatronParser,
  createSyntheticParser,
  createTorchtitanParser,
  createTqdmParser,
  detectParsers,
  parseLogText,
  parseLines,
  splitGluedBar,
  type LineParser,
  type MetricRecord,
} from '../../../electron/core/metrics/parsers/index.js';

/** The records a fresh parser gives for the lines, in order (null for lines it does not read). */
function run(parser: LineParser, lines: readonly string[]): Array<MetricRecord | null> {
  return lines.map((line) => (parser.matches(line) ? parser.parse(line) : null));
}

describe('our own workloads', () => {
  it('reads the synthetic and charlm step, eval and done lines', () => {
    const [step, noLoss, evaluation, done, charlmEval, charlmDone] = run(createSyntheticParser(), [
      'step 120: loss 2.314, 41250 tok/s, 24.8 ms/step',
      'Step 130: 41000 tok/s, 25.0 ms/step',
      'eval: loss 2.344',
      'done: 200 steps in 12.3 s',
      'eval: step 200 loss 1.950',
      'done: 200 steps in 14.0 s (training 12.0 s, eval 2.0 s); steady 16.50 steps/s, 33792 tok/s, 60.6 ms/step (median of steps 11-200)',
    ]);
    expect(step).toEqual({ step: 120, kind: 'train', values: { loss: 2.314, tokens_per_sec: 41250, step_time_ms: 24.8 } });
    expect(noLoss).toEqual({ step: 130, kind: 'train', values: { tokens_per_sec: 41000, step_time_ms: 25 } });
    expect(evaluation).toEqual({ step: 130, kind: 'eval', values: { eval_loss: 2.344 } });
    expect(done).toEqual({ step: 200, kind: 'summary', values: { total_steps: 200, train_runtime_s: 12.3 } });
    expect(charlmEval?.step).toBe(200);
    expect(charlmDone?.values).toEqual({ total_steps: 200, train_runtime_s: 14, steps_per_sec: 16.5, tokens_per_sec: 33792, step_time_ms: 60.6 });
  });

  it('reads a nan loss as NaN', () => {
    const [record] = run(createSyntheticParser(), ['step 50: loss nan, 41000 tok/s, 25.0 ms/step']);
    expect(Number.isNaN(record?.values.loss)).toBe(true);
  });

  it('parses the synthetic workload as it looks in a pty: coloured bar redraws between step lines', () => {
    const text =
      '\x1b[1;35msynthetic:\x1b[0m batch=8 workers=0 amp=off compile=off steps=20 seed=0\n' +
      '\x1b[1;35msynthetic:\x1b[0m expected steady 1234.5 tok/s, 5.00 ms/step\n' +
      '\rtrain   0%|\x1b[32m          \x1b[0m| \x1b[36m0/20\x1b[0m [\x1b[36m00:00\x1b[0m<\x1b[36m?\x1b[0m, \x1b[36m?it/s\x1b[0m]' +
      '\rtrain  45%|\x1b[32m████▌     \x1b[0m| \x1b[36m9/20\x1b[0m [\x1b[36m00:01\x1b[0m<\x1b[36m00:01\x1b[0m, \x1b[36m85.31it/s\x1b[0m, loss=\x1b[36m2.314\x1b[0m]' +
      '\r\x1b[2Kstep 10: loss 2.300, 41250 tok/s, 24.8 ms/step\n' +
      '\rtrain  50%|\x1b[32m█████     \x1b[0m| \x1b[36m10/20\x1b[0m [\x1b[36m00:01\x1b[0m<\x1b[36m00:01\x1b[0m, \x1b[36m85.00it/s\x1b[0m, loss=\x1b[36m2.300\x1b[0m]\n' +
      'eval: loss 2.330\ndone: 20 steps in 0.5 s\n';
    const { framework, records } = parseLogText(text);
    expect(framework).toBe('synthetic');
    expect(records.map((r) => [r.kind, r.step])).toEqual([
      ['progress', 0],
      ['progress', 9],
      ['train', 10],
      ['progress', 10],
      ['eval', 10],
      ['summary', 20],
    ]);
    expect(records[1]?.values).toMatchObject({ steps_per_sec: 85.31, loss: 2.314, total_steps: 20 });
  });
});

describe('tqdm', () => {
  it('reads it/s, s/it, postfix pairs and the n of n/total', () => {
    const [fast] = run(createTqdmParser(), ['train  45%|█████▍    | 90/200 [00:01<00:01, 85.31it/s, loss=2.314]']);
    const [slow] = run(createTqdmParser(), [' 2%|█▍        | 200/8264 [23:37<15:44:25,  7.03s/it]']);
    expect(fast).toEqual({ step: 90, kind: 'progress', values: { total_steps: 200, steps_per_sec: 85.31, elapsed_s: 1, remaining_s: 1, loss: 2.314 } });
    expect(slow?.step).toBe(200);
    expect(slow?.values.steps_per_sec).toBeCloseTo(1 / 7.03, 12);
    expect(slow?.values.remaining_s).toBe(15 * 3600 + 44 * 60 + 25);
  });

  it('reads token and sample units, unit_scale counts, and bars without a total', () => {
    // One parser per line: these are bars of different runs, not one run's bars.
    const alone = (line: string): MetricRecord | null => run(createTqdmParser(), [line])[0] ?? null;
    const tokens = alone('pretrain:  10%|█         | 100/1000 [00:10<01:30, 12.3ktok/s]');
    const scaled = alone(' 50%|█████     | 1.20k/2.40k [00:10<00:10, 120samples/s]');
    const noTotal = alone('123it [00:10, 12.10it/s, loss=1.5]');
    expect(tokens?.values.tokens_per_sec).toBe(12300);
    expect(scaled).toMatchObject({ step: 1200, values: { samples_per_sec: 120, total_steps: 2400 } });
    expect(noTotal).toMatchObject({ step: 123, values: { steps_per_sec: 12.1, loss: 1.5 } });
  });

  it('ignores downloads and dataset preparation, and keeps evaluation bars apart from training', () => {
    const [download, map, train, evaluation, validation] = run(createTqdmParser(), [
      'model.safetensors: 100%|██████████| 548M/548M [00:05<00:00, 101MB/s]',
      'Map: 100%|██████████| 1000/1000 [00:00<00:00, 5012.34 examples/s]',
      ' 10%|█         | 10/100 [00:10<01:30,  1.00it/s]',
      ' 50%|█████     | 5/10 [00:01<00:01,  5.00it/s]',
      'Validation DataLoader 0:  46%|████▌     | 73/157 [00:02<00:02, 37.48it/s]',
    ]);
    expect(download).toBeNull();
    expect(map).toBeNull();
    expect(train?.kind).toBe('progress');
    expect(evaluation).toEqual({ step: null, kind: 'eval', values: { batch: 5, batches: 10, eval_steps_per_sec: 5 } });
    expect(validation?.kind).toBe('eval');
  });

  it('counts steps on across per-epoch bars', () => {
    const [first, second] = run(createTqdmParser(), [
      'Epoch 1/3: 100%|██████████| 50/50 [00:05<00:00, 10.00it/s]',
      'Epoch 2/3:  20%|██        | 10/50 [00:01<00:04, 10.00it/s]',
    ]);
    expect(first).toMatchObject({ step: 50, values: { epoch: 1, batch: 50, batches: 50 } });
    expect(second).toMatchObject({ step: 60, values: { epoch: 2, batch: 10 } });
  });

  it('splits output glued after a bar into its own line', () => {
    const line = " 2%|█▍   | 200/8264 [23:37<15:44:25,  7.03s/it]{'loss': 12.4476, 'learning_rate': 2.3e-05, 'epoch': 0.0}";
    const parts = splitGluedBar(line);
    expect(parts).toHaveLength(2);
    expect(parts[1]).toBe("{'loss': 12.4476, 'learning_rate': 2.3e-05, 'epoch': 0.0}");
    const records = [...parseLines([line], [createHfTrainerParser(), createTqdmParser()])];
    expect(records.map((r) => r.kind)).toEqual(['progress', 'train']);
  });
});

describe('HF Trainer', () => {
  it('reads train, eval and summary dicts, including numpy-wrapped values and nan', () => {
    const [train, evaluation, summary, settings] = run(createHfTrainerParser(), [
      "{'loss': nan, 'grad_norm': inf, 'learning_rate': 7e-05, 'epoch': 0.01}",
      "{'eval_loss': np.float64(0.35), 'eval_accuracy': 0.88, 'eval_runtime': 10.48, 'eval_samples_per_second': 38.9, 'epoch': 1.0}",
      "{'train_runtime': 159.06, 'train_samples_per_second': 69.18, 'train_steps_per_second': 2.169, 'train_loss': 0.33, 'epoch': 3.0}",
      "{'lr': 0.001, 'batch_size': 8}",
    ]);
    expect(train?.kind).toBe('train');
    expect(Number.isNaN(train?.values.loss)).toBe(true);
    expect(train?.values.grad_norm).toBe(Number.POSITIVE_INFINITY);
    expect(evaluation).toEqual({
      step: null,
      kind: 'eval',
      values: { eval_loss: 0.35, eval_accuracy: 0.88, eval_runtime_s: 10.48, eval_samples_per_sec: 38.9, epoch: 1 },
    });
    expect(summary).toEqual({
      step: null,
      kind: 'summary',
      values: { train_runtime_s: 159.06, samples_per_sec: 69.18, steps_per_sec: 2.169, loss: 0.33, epoch: 3 },
    });
    expect(settings).toBeNull();
  });

  it('reads a train metrics block, and not the settings block before training', () => {
    const records = run(createHfTrainerParser(), [
      '***** Running training *****',
      '  Num examples = 3,668',
      '  Total optimization steps = 1,377',
      '***** train metrics *****',
      '  epoch                    =        3.0',
      '  total_flos               =   1234GF',
      '  train_loss               =     0.3333',
      '  train_runtime            = 0:02:39.06',
    ]).filter((r) => r !== null);
    expect(records).toEqual([
      { step: null, kind: 'summary', values: { epoch: 3 } },
      { step: null, kind: 'summary', values: { total_flos: 1234 * 2 ** 30, epoch: 3 } },
      { step: null, kind: 'summary', values: { loss: 0.3333, epoch: 3 } },
      { step: null, kind: 'summary', values: { train_runtime_s: 159.06, epoch: 3 } },
    ]);
  });
});

describe('Keras', () => {
  it('reads Keras 3 bars and counts steps across epochs', () => {
    const records = run(createKerasParser(), [
      'Epoch 2/10',
      '  1/938 ━━━━━━━━━━━━━━━━━━━━ 2:40 171ms/step - accuracy: 0.0938 - loss: 2.3169',
      '938/938 ━━━━━━━━━━━━━━━━━━━━ 13s 14ms/step - accuracy: 0.9700 - loss: 0.1000 - val_accuracy: 0.9800 - val_loss: 0.0700',
    ]);
    expect(records[0]).toBeNull();
    expect(records[1]).toMatchObject({ step: 939, kind: 'progress', values: { eta_s: 160, step_time_ms: 171, accuracy: 0.0938, loss: 2.3169 } });
    expect(records[2]).toMatchObject({ step: 1876, kind: 'train', values: { epoch_time_s: 13, eval_accuracy: 0.98, eval_loss: 0.07 } });
  });
});

describe('llm.c', () => {
  it('reads the CPU trainer and the older CUDA line, and drops the -100% MFU sentinel', () => {
    const [cpu, older, sentinel] = run(createLlmcParser(), [
      'step 3: train loss 4.367857 (took 1234.56 ms)',
      'step    4/74: train loss 4.122 norm 1.2345 lr 3.00e-04 (45.10 ms, 36525 tok/s)',
      'step    5/74 | loss 4.0 (+0.10z)| norm 1.1 (+0.00z)| lr 3.00e-04 | 45.00 ms | -100.0% bf16 MFU | 36000 tok/s',
    ]);
    expect(cpu).toEqual({ step: 3, kind: 'train', values: { loss: 4.367857, step_time_ms: 1234.56 } });
    expect(older).toEqual({
      step: 4,
      kind: 'train',
      values: { loss: 4.122, grad_norm: 1.2345, lr: 3e-4, step_time_ms: 45.1, tokens_per_sec: 36525, total_steps: 74 },
    });
    expect(sentinel?.values.mfu_percent).toBeUndefined();
  });

  it("leaves nanoGPT's evaluation line alone", () => {
    expect(run(createLlmcParser(), ['step 250: train loss 1.5440, val loss 1.7220'])).toEqual([null]);
  });
});

describe('Megatron', () => {
  it('reads validation lines as evaluation at their iteration', () => {
    const [validation] = run(createMegatronParser(), [' validation loss at iteration 100 | lm loss value: 2.350E+00 | lm loss PPL: 1.048E+01 | ']);
    expect(validation).toEqual({ step: 100, kind: 'eval', values: { eval_loss: 2.35, eval_ppl: 10.48 } });
  });
});

describe('torchtitan', () => {
  it('reads grad_norm and validation steps', () => {
    const [train, validation] = run(createTorchtitanParser(), [
      '[titan] 2025-06-16 22:30:50,322 - root - INFO - step:  1  loss: 12.0000  grad_norm:  4.2000  memory: 30.52GiB(32.13%)  tps: 3,204  tflops: 185.60  mfu: 18.77%',
      '[titan] 2025-06-16 22:31:50,322 - root - INFO - validate step: 100  loss:  5.5000',
    ]);
    expect(train?.values).toMatchObject({ loss: 12, grad_norm: 4.2, tokens_per_sec: 3204, mfu_percent: 18.77 });
    expect(validation).toEqual({ step: 100, kind: 'eval', values: { eval_loss: 5.5 } });
  });
});

describe('generic key/value lines', () => {
  it.each([
    ['loss: 0.5', { step: null, kind: 'train', values: { loss: 0.5 } }],
    ['step=100 loss=2.31 lr=3e-4 tok/s=12,345', { step: 100, kind: 'train', values: { loss: 2.31, lr: 3e-4, tokens_per_sec: 12345 } }],
    ['Epoch: 3, Train Loss: 0.512, Val Acc: 0.91', { step: null, kind: 'train', values: { epoch: 3, loss: 0.512, eval_accuracy: 0.91 } }],
    ['val Loss: 0.3100 Acc: 0.8900', { step: null, kind: 'eval', values: { eval_loss: 0.31, eval_accuracy: 0.89 } }],
    ['{"step": 10, "loss": 1.25, "tokens_per_sec": 5000}', { step: 10, kind: 'train', values: { loss: 1.25, tokens_per_sec: 5000 } }],
    // The batch within the epoch places the line (the collector counts it on through epochs).
    [
      '[Epoch 1/200] [Batch 10/938] [D loss: 0.6931] [G loss: 0.7012]',
      { step: 10, kind: 'train', values: { epoch: 1, total_epochs: 200, batch: 10, batches: 938, d_loss: 0.6931, g_loss: 0.7012 } },
    ],
    // A bare duration on a step line is the step's time (issue 28).
    ['step 100 | loss 2.31 | lr 3.0e-04 | 120.5 ms', { step: 100, kind: 'train', values: { loss: 2.31, lr: 3e-4, step_time_ms: 120.5 } }],
    ['iter: 5/100, time: 24.8 ms, mfu: 35.2%', { step: 5, kind: 'train', values: { total_steps: 100, step_time_ms: 24.8, mfu_percent: 35.2 } }],
    ['epoch=2 batch=10 seen=640', { step: null, kind: 'train', values: { epoch: 2, batch: 10, seen: 640 } }],
    // pytorch/examples' VAE: its test pass is evaluation, as a validation loss is.
    ['====> Test set loss: 339.0139', { step: null, kind: 'eval', values: { eval_loss: 339.0139 } }],
    ['Epoch 3: test_loss=0.412 test_acc=0.881', { step: null, kind: 'eval', values: { epoch: 3, eval_loss: 0.412, eval_accuracy: 0.881 } }],
  ])('%s', (line, expected) => {
    expect(run(createGenericParser(), [line])[0]).toEqual(expected);
  });

  it('adds the epoch of a preceding `Epoch N/M` header', () => {
    const records = run(createGenericParser(), ['Epoch 4/59', '----------', 'train Loss: 2.7186 Acc: 0.4082']);
    expect(records[2]).toEqual({ step: null, kind: 'train', values: { loss: 2.7186, accuracy: 0.4082, epoch: 4 } });
  });
});

describe('detection', () => {
  it('returns the matching specific parsers most specific first, the generic parser last', () => {
    const lines = [
      'Epoch 0:  17%|█▋        | 3/18 [00:14<01:13,  4.87s/it, loss=10.0, v_num=1]',
      'Validation DataLoader 0:  46%|████▌     | 73/157 [00:02<00:02, 37.48it/s]',
    ];
    expect(detectParsers(lines).map((parser) => parser.name)).toEqual(['lightning', 'tqdm', 'generic']);
    expect(detectParsers([]).map((parser) => parser.name)).toEqual(['generic']);
  });

  it('finds a format that starts after a long setup', () => {
    const setup = Array.from({ length: 2500 }, (_, i) => `loading shard ${i} of 2500`);
    const { framework, records } = parseLogText([...setup, 'iter 0: loss 4.2648, time 9371.81ms, mfu -100.00%'].join('\n'));
    expect(framework).toBeNull();
    expect(records).toEqual([{ step: 0, kind: 'train', values: { loss: 4.2648, step_time_ms: 9371.81, warmup_hint: 1 }, line: 2501 }]);
  });
});
