// pytorch/examples' word_language_model (and PyTorch's nn.Transformer language-model tutorial, which prints the same):
// `| epoch   1 |    20/   49 batches | lr 20.00 | ms/batch 19.20 | loss  5.92 | ppl   370.60`, as torch 2.15 ran it.
import { describe, expect, it } from 'vitest';
import { parseLogText } from '../../../electron/core/metrics/parsers/parseLogText.js';
import { summarizeMetrics } from '../../../electron/core/metrics/summary.js';
import type { MetricSample } from '../../../electron/core/metrics/samples.js';

const LOG = `| epoch   1 |     5/   49 batches | lr 20.00 | ms/batch 150.85 | loss  8.61 | ppl  5497.29
| epoch   1 |    10/   49 batches | lr 20.00 | ms/batch 37.48 | loss  6.13 | ppl   460.08
| epoch   1 |    15/   49 batches | lr 20.00 | ms/batch 15.71 | loss  6.09 | ppl   442.12
| epoch   1 |    20/   49 batches | lr 20.00 | ms/batch 19.20 | loss  5.92 | ppl   370.60
| epoch   1 |    25/   49 batches | lr 20.00 | ms/batch 19.24 | loss  5.85 | ppl   347.67
| epoch   1 |    30/   49 batches | lr 20.00 | ms/batch 17.58 | loss  5.86 | ppl   349.11
| epoch   1 |    35/   49 batches | lr 20.00 | ms/batch 16.72 | loss  5.68 | ppl   293.45
| epoch   1 |    40/   49 batches | lr 20.00 | ms/batch 18.66 | loss  5.73 | ppl   309.11
| epoch   1 |    45/   49 batches | lr 20.00 | ms/batch 17.27 | loss  5.82 | ppl   336.09
-----------------------------------------------------------------------------------------
| end of epoch   1 | time:  1.65s | valid loss  5.62 | valid ppl   277.24
-----------------------------------------------------------------------------------------
| epoch   2 |     5/   49 batches | lr 20.00 | ms/batch 23.25 | loss  6.86 | ppl   950.30
| epoch   2 |    10/   49 batches | lr 20.00 | ms/batch 15.67 | loss  5.58 | ppl   264.91
| epoch   2 |    15/   49 batches | lr  5.00 | ms/batch 18.28 | loss  5.80 | ppl   330.12
-----------------------------------------------------------------------------------------
| end of epoch   2 | time:  0.92s | valid loss  5.56 | valid ppl   259.36
-----------------------------------------------------------------------------------------
=========================================================================================
| End of training | test loss  5.52 | test ppl   249.25
=========================================================================================
`;

describe("pytorch/examples' word language model", () => {
  const parsed = parseLogText(LOG);

  it('reads each interval line as a step counted through the epochs, with its time per batch, loss and perplexity', () => {
    expect(parsed.framework).toBe('pytorch-examples');
    const train = parsed.records.filter((r) => r.kind === 'train');
    expect(train.map((r) => r.step)).toEqual([5, 10, 15, 20, 25, 30, 35, 40, 45, 54, 59, 64]);
    expect(train[3]!.values).toEqual({ epoch: 1, batch: 20, batches: 49, lr: 20, step_time_ms: 19.2, loss: 5.92, ppl: 370.6 });
    expect(train[11]!.values.lr).toBe(5);
  });

  it('reads the end of each epoch and of training as evaluation', () => {
    const evals = parsed.records.filter((r) => r.kind === 'eval');
    expect(evals.map((r) => r.values)).toEqual([
      { epoch: 1, epoch_time_s: 1.65, eval_loss: 5.62, eval_ppl: 277.24 },
      { epoch: 2, epoch_time_s: 0.92, eval_loss: 5.56, eval_ppl: 259.36 },
      { eval_loss: 5.52, eval_ppl: 249.25 },
    ]);
  });

  it('gives the run a throughput from the printed time per batch', () => {
    const samples: MetricSample[] = parsed.records.flatMap((r, i) =>
      Object.entries(r.values).map(([name, value]) => ({ step: r.step, tMs: 1000 + i * 100, name, value, source: 'text' as const, kind: r.kind })),
    );
    const summary = summarizeMetrics(samples);
    expect(summary.throughput.unit).toBe('steps/s');
    expect(summary.stepTimeMs.median).toBeGreaterThan(15);
    expect(summary.stepTimeMs.median).toBeLessThan(20);
  });
});
