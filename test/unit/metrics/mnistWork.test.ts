// pytorch/examples' MNIST counts samples, not batches, in its brackets (`Train Epoch: 1 [640/6000 (11%)]`): its
// lines' step is the samples done since training began, so a live run has a throughput (samples/s) to compare.
import { describe, expect, it } from 'vitest';
import { createPytorchExamplesParser } from '../../../electron/core/metrics/parsers/pytorchExamples.js';
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
  });
});
