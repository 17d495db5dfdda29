// pytorch/examples' MNIST counts samples, not batches, in its brackets (`Train Epoch: 1 [640/6000 (11%)]`): its
// lines' step is the samples done since training began, so a live run has a throughput (samples/s) to compare.
import { describe, expect, it } from 'vitest';
import { createPytorchExamplesParser } from '../../../electron/core/metrics/parsers/pytorchExamples.js';
import { parseLogText } from '../../../electron/core/metrics/parsers/parseLogText.js';
import { summarizeMetrics } from '../../../electron/core/metrics/summary.js';
import type { MetricSample } from '../../../electron/core/metrics/samples.js';

/** MNIST's main.py as printed (batch 64, --log-interval 10, 6,000 training images). */
function mnistLines(epochs: number): string[] {
  const lines: string[] = [];
  for (let epoch = 1; epoch <= epochs; epoch++) {
    for (let batch = 0; batch < 94; batch += 10) {
      const seen = batch * 64;
      lines.push(`Train Epoch: ${epoch} [${seen}/6000 (${Math.round((100 * batch) / 94)}%)]\tLoss: ${(2 / (1 + batch + 94 * epoch)).toFixed(6)}`);
    }
    lines.push('', `Test set: Average loss: 0.0${epoch}00, Accuracy: 98${epoch}/1000 (98%)`, '');
  }
  return lines;
}

describe("pytorch/examples' MNIST lines", () => {
  it('count their steps in samples on through the epochs', () => {
    const parser = createPytorchExamplesParser();
    const records = mnistLines(2)
      .map((line) => parser.parse(line))
      .filter((record) => record?.kind === 'train');
    expect(records.map((record) => record!.step)).toEqual([
      0, 640, 1280, 1920, 2560, 3200, 3840, 4480, 5120, 5760, 6000, 6640, 7280, 7920, 8560, 9200, 9840, 10480, 11120, 11760,
    ]);
    expect(records[1]!.values).toMatchObject({ epoch: 1, samples_seen: 640, samples_total: 6000, progress_percent: 11 });
  });

  it('give a live run its throughput in samples/s from when each line came', () => {
    const parser = createPytorchExamplesParser();
    const samples: MetricSample[] = [];
    // 640 samples between lines, 1.0 s apart (640 samples/s); the test set between epochs takes 2 s more.
    let tMs = 3000;
    for (const line of mnistLines(2)) {
      const record = parser.parse(line);
      if (record === null) continue;
      if (record.kind === 'eval') tMs += 2000;
      else if (record.step !== null && record.step > 0) tMs += record.values.samples_seen === 0 ? (240 / 640) * 1000 : 1000;
      for (const [name, value] of Object.entries(record.values)) samples.push({ step: record.step, tMs, name, value, source: 'text', kind: record.kind });
    }
    const summary = summarizeMetrics(samples);
    expect(summary.throughput.unit).toBe('samples/s');
    expect(summary.throughput.median).toBeCloseTo(640, 6);
    expect(summary.steps).toBe(11760);
    // A step holds one sample whatever the batch given with the run: losses are matched on samples.
    const given = summarizeMetrics(samples, { samplesPerStep: 64 });
    expect(given.samplesPerStep).toBe(1);
    expect(given.throughput.median).toBeCloseTo(640, 6);
  });
});

/** PyTorch's Quickstart tutorial (FashionMNIST), as it prints: `loss: {loss:>7f}  [{current:>5d}/{size:>5d}]`, samples done. */
const QUICKSTART = `Using cpu device
Epoch 1
-------------------------------
loss: 2.302345  [   64/60000]
loss: 2.291478  [ 6464/60000]
loss: 2.151447  [57664/60000]
Test Error: 
 Accuracy: 45.2%, Avg loss: 2.151412 

Epoch 2
-------------------------------
loss: 2.160340  [   64/60000]
loss: 2.152098  [ 6464/60000]
Test Error: 
 Accuracy: 55.1%, Avg loss: 1.884601 

Done!
`;

describe("PyTorch's Quickstart tutorial", () => {
  it('counts its steps in samples on through the epochs, and reads the test pass as evaluation, not training', () => {
    const parsed = parseLogText(QUICKSTART);
    const train = parsed.records.filter((r) => r.kind === 'train');
    expect(train.map((r) => r.step)).toEqual([64, 6464, 57664, 60064, 66464]);
    expect(train[1]!.values).toEqual({ loss: 2.291478, samples_seen: 6464, samples_total: 60000 });
    expect(parsed.records.filter((r) => r.kind === 'eval').map((r) => r.values)).toEqual([
      { eval_accuracy: 0.452, eval_loss: 2.151412 },
      { eval_accuracy: 0.551, eval_loss: 1.884601 },
    ]);
    expect(train.every((r) => r.values.avg_loss === undefined)).toBe(true);
  });
});
