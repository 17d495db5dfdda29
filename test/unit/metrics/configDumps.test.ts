// Configuration printed before training is not metrics: no parser, alone or together, turns it into records.
import { describe, expect, it } from 'vitest';
import { allParsers, createGenericParser, parseLines, parseLogText } from '../../../electron/core/metrics/parsers/index.js';
import { readCapturedFixture } from '../../helpers/fixtures.js';

/** Dumps in the shapes these tools print (written for this test, after their formats). */
const DUMPS: Readonly<Record<string, string>> = {
  'nanoGPT config': [
    'Overriding config with config/train_shakespeare_char.py:',
    "out_dir = 'out-shakespeare-char'",
    "eval_interval = 250 # keep frequent because we'll overfit",
    'batch_size = 64',
    'n_layer = 12',
    'learning_rate = 1e-3 # with baby networks can afford to go a bit higher',
    'Overriding: max_iters = 2000',
    'tokens per iteration will be: 16,384',
    'found vocab_size = 65 (inside data/shakespeare_char/meta.pkl)',
    'number of parameters: 10.65M',
    'num decayed parameter tensors: 26, with 10,740,096 parameters',
  ].join('\n'),
  'argparse Namespace': 'Namespace(batch_size=64, epochs=14, lr=1.0, gamma=0.7, no_cuda=False, seed=1, log_interval=10, save_model=False)',
  'HF TrainingArguments': [
    'TrainingArguments(',
    '_n_gpu=1,',
    'learning_rate=5e-05,',
    'logging_steps=500,',
    'max_grad_norm=1.0,',
    'max_steps=-1,',
    'num_train_epochs=3.0,',
    ')',
  ].join('\n'),
  'HF settings block': ['***** Running training *****', '  Num examples = 3,668', '  Num Epochs = 3', '  Total optimization steps = 1,377'].join('\n'),
  'YAML config': ['optimizer:', '  lr: 0.001', '  weight_decay: 0.01', 'trainer:', '  max_epochs: 10', 'loss:', '  aux_loss: 0.01'].join('\n'),
  'Megatron arguments': [
    '------------------------ arguments ------------------------',
    '  lr .............................................. 0.0001',
    '  train_iters ..................................... 500000',
  ].join('\n'),
  'synthetic and charlm headers': [
    'synthetic: batch=8 workers=0 amp=off compile=off steps=200 seed=0',
    'synthetic: expected steady 1234.5 tok/s, 5.00 ms/step',
    'charlm: batch_size=8 seq_len=256 steps=200 workers=0 pin_memory=off amp=off compile=off device=cpu threads=auto seed=0 lr=0.003 eval_every=100 d_model=128 layers=2 heads=4',
  ].join('\n'),
};

/** The lines before the first metric line of real logs: llm.c's parameter table and setup, HF's parameter count. */
function setupLines(fixture: string, beforeLine: string): string {
  const log = readCapturedFixture('training-logs', fixture);
  return log.slice(0, log.indexOf(beforeLine));
}

describe('configuration dumps', () => {
  const cases: Array<[string, string]> = [
    ...Object.entries(DUMPS),
    ["llm.c's parameter table and setup (llmc-1.log)", setupLines('llmc-1.log', 'val loss')],
    ["nanoGPT's parameter counts (nanogpt-3.log)", setupLines('nanogpt-3.log', 'step 0:')],
    ["peft's trainable parameters (hf-trainer-1.log)", setupLines('hf-trainer-1.log', 'None')],
    ["Megatron's dataset setup (megatron-1.log)", setupLines('megatron-1.log', 'time (ms)')],
  ];

  it.each(cases)('%s gives no records', (_name, text) => {
    expect(text.length).toBeGreaterThan(0);
    expect(parseLogText(text).records).toEqual([]);
    expect([...parseLines(text.split('\n'), allParsers())]).toEqual([]);
  });

  it('still reads the same keys once they are measurements', () => {
    const generic = createGenericParser();
    expect(generic.parse('step: 10, lr: 0.001, loss: 2.5')).toEqual({ step: 10, kind: 'train', values: { lr: 0.001, loss: 2.5 } });
  });
});
