// What the collector makes of a run's text beyond the parsers' records: the script's tokens per step, rates alone, stamped times, the workload's regex behind a prefix.
import { describe, expect, it } from 'vitest';
import { MetricsCollector } from '../../../electron/core/metrics/collector.js';
import { summarizeMetrics } from '../../../electron/core/metrics/summary.js';
import { TOKENS_PER_STEP_LINES, TokensPerStepReader } from '../../../electron/core/metrics/tokensPerStep.js';

function summaryOf(text: string, tokensPerStep: number | null = null) {
  const collector = new MetricsCollector({ metricRegex: '' });
  const samples = [...collector.push(text, 0), ...collector.end(0)];
  return summarizeMetrics(samples, { tokensPerStep });
}

const NANOGPT_ITERS = Array.from({ length: 30 }, (_, i) => `iter ${i * 10}: loss ${(4 - i * 0.05).toFixed(4)}, time 100.00ms, mfu 10.00%\n`).join('');

describe('tokens per step from the script', () => {
  it("reads nanoGPT's statement, thousands separators and all, whatever its prefix", () => {
    for (const prefix of ['', '2024-05-02T13:45:01.123Z ', '[rank0]: ', 'INFO:__main__:']) {
      const summary = summaryOf(`${prefix}tokens per iteration will be: 8,192\n${NANOGPT_ITERS}`);
      expect(summary.tokensPerStep, prefix).toBe(8192);
      expect(summary.throughput.unit).toBe('tokens/s');
      // 8,192 tokens in 100 ms.
      expect(summary.throughput.median).toBeCloseTo(81_920, 6);
    }
  });

  it('multiplies a global batch size and a sequence length when both are stated (Megatron arguments)', () => {
    const args = '------------------------ arguments ------------------------\n  global_batch_size ............................... 8\n  seq_length ...................................... 1024\n';
    const iters = Array.from({ length: 20 }, (_, i) => ` iteration ${i + 1}/ 100 | consumed samples: ${(i + 1) * 8} | elapsed time per iteration (ms): 200.0 | learning rate: 1.0E-04 | lm loss: 5.0E+00 |\n`).join('');
    const summary = summaryOf(args + iters);
    expect(summary.tokensPerStep).toBe(8192);
    expect(summary.throughput.median).toBeCloseTo(40_960, 6);
  });

  it('takes nothing from a batch size or a sequence length alone', () => {
    expect(summaryOf(`global batch size: 512\n${NANOGPT_ITERS}`).tokensPerStep).toBeNull();
    expect(summaryOf(`sequence length = 2048\n${NANOGPT_ITERS}`).tokensPerStep).toBeNull();
    expect(summaryOf(`global batch size: 512\nsequence length = 2048\n${NANOGPT_ITERS}`).tokensPerStep).toBe(512 * 2048);
  });

  it("lets the run's own value win over the statement", () => {
    const summary = summaryOf(`tokens per iteration will be: 8,192\n${NANOGPT_ITERS}`, 1000);
    expect(summary.tokensPerStep).toBe(1000);
    expect(summary.throughput.median).toBeCloseTo(10_000, 6);
  });

  it('reads only the setup: a statement after the first lines is not looked for', () => {
    const reader = new TokensPerStepReader();
    for (let i = 0; i < TOKENS_PER_STEP_LINES; i++) reader.read(`step ${i}: loss 3.0`);
    reader.read('tokens per iteration will be: 768');
    expect(reader.value).toBeNull();
  });
});

describe('throughput from a rate alone', () => {
  it('gives an imported log that prints only tokens/s a throughput, and no step time it cannot know', () => {
    const text = Array.from({ length: 40 }, (_, i) => `step ${i + 1}: loss ${(3 - i * 0.01).toFixed(2)}, ${i < 3 ? 500 : 991} tok/s\n`).join('');
    const summary = summaryOf(text);
    expect(summary.throughput.unit).toBe('tokens/s');
    expect(summary.throughput.median).toBe(991);
    expect(summary.stepTimeMs.median).toBeNull();
  });

  it('does the same for samples/s', () => {
    const text = Array.from({ length: 20 }, (_, i) => `Step ${i + 1} | Loss: 2.3 | 41.5 samples/s\n`).join('');
    const summary = summaryOf(text);
    expect(summary.throughput).toMatchObject({ unit: 'samples/s', median: 41.5 });
  });
});

describe('times from the prefix stamps of an imported log', () => {
  it('gives a log that prints no step time its step time and throughput from the stamps', () => {
    const start = Date.UTC(2024, 4, 2, 13, 45, 0);
    const text = Array.from({ length: 30 }, (_, i) => `${new Date(start + i * 2500).toISOString()} step ${i + 1}: loss ${(3 - i * 0.01).toFixed(2)}\n`).join('');
    const collector = new MetricsCollector({ metricRegex: '', timesFromStamps: true });
    const samples = [...collector.push(text, 0), ...collector.end(0)];
    expect(samples[1]?.tMs).toBe(2500);
    const summary = summarizeMetrics(samples);
    expect(summary.stepTimeMs.median).toBe(2500);
    expect(summary.throughput).toMatchObject({ unit: 'steps/s', median: 0.4 });
  });

  it('dates records by arrival unless asked (a live run)', () => {
    const collector = new MetricsCollector({ metricRegex: '' });
    const samples = [...collector.push('2024-05-02T13:45:09Z step 1: loss 3\n', 7), ...collector.end(7)];
    expect(samples.map((sample) => sample.tMs)).toEqual([7]);
  });
});

describe("a workload's own regex", () => {
  it('meets its lines behind a prefix too', () => {
    const collector = new MetricsCollector({ metricRegex: String.raw`^my step (?<step>\d+) cost (?<loss>[\d.]+)$` });
    const samples = [...collector.push('2024-05-02T13:45:09Z my step 4 cost 1.5\n[rank0]: my step 5 cost 1.25\n', 0), ...collector.end(0)];
    expect(samples.filter((sample) => sample.name === 'loss').map((sample) => [sample.step, sample.value])).toEqual([
      [4, 1.5],
      [5, 1.25],
    ]);
  });
});
