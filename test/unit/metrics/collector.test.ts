// What the collector makes of a run's text beyond the parsers' records: the script's tokens per step, rates alone, stamped times, the workload's regex behind a prefix.
import { describe, expect, it } from 'vitest';
import { buildSeries } from '../../../electron/core/ingest/series.js';
import { buildMixedLog } from '../../../electron/core/metrics/parsers/benchmarkSupport.js';
import { capturedTrainingLogs } from '../../helpers/fixtures.js';
import { IMPORTED_LOG_READING, LIVE_READING, MetricsCollector } from '../../../electron/core/metrics/collector.js';
import type { MetricSample } from '../../../electron/core/metrics/samples.js';
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
    const args =
      '------------------------ arguments ------------------------\n  global_batch_size ............................... 8\n  seq_length ...................................... 1024\n';
    const iters = Array.from(
      { length: 20 },
      (_, i) =>
        ` iteration ${i + 1}/ 100 | consumed samples: ${(i + 1) * 8} | elapsed time per iteration (ms): 200.0 | learning rate: 1.0E-04 | lm loss: 5.0E+00 |\n`,
    ).join('');
    const summary = summaryOf(args + iters);
    expect(summary.tokensPerStep).toBe(8192);
    expect(summary.throughput.median).toBeCloseTo(40_960, 6);
  });

  it('takes nothing from a batch size or a sequence length alone', () => {
    expect(summaryOf(`global batch size: 512\n${NANOGPT_ITERS}`).tokensPerStep).toBeNull();
    expect(summaryOf(`sequence length = 2048\n${NANOGPT_ITERS}`).tokensPerStep).toBeNull();
    expect(summaryOf(`global batch size: 512\nsequence length = 2048\n${NANOGPT_ITERS}`).tokensPerStep).toBe(512 * 2048);
  });

  it("lets the script's own statement win over a value given with the run", () => {
    // The rule: a run's own output still wins when it states its work (nanoGPT's "tokens per iteration").
    const summary = summaryOf(`tokens per iteration will be: 8,192\n${NANOGPT_ITERS}`, 1000);
    expect(summary.tokensPerStep).toBe(8192);
    expect(summary.throughput.median).toBeCloseTo(81_920, 6);
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
    const text = Array.from({ length: 30 }, (_, i) => `${new Date(start + i * 2500).toISOString()} step ${i + 1}: loss ${(3 - i * 0.01).toFixed(2)}\n`).join(
      '',
    );
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

describe("an import's bar redraws: the last one at each step", () => {
  // Lightning redraws a step's bar when its postfix changes: the loss first shows the previous step's value.
  const bar = (step: number, loss: number, rate: number) =>
    `\rEpoch 0:  ${step}%|█▋        | ${step}/100 [00:${String(10 + step).padStart(2, '0')}<01:13, ${rate.toFixed(2)}it/s, loss=${loss.toFixed(3)}, v_num=0]`;
  const log =
    Array.from({ length: 60 }, (_, i) => {
      const step = i + 1;
      return bar(step, 3 - i * 0.01, 4 + (i % 5) * 0.01) + bar(step, 3 - step * 0.01, 4 + (i % 5) * 0.01) + bar(step, 3 - step * 0.01, 4.5 + (i % 7) * 0.01);
    }).join('') + '\n';
  const collect = (lastRedrawPerStep: boolean) => {
    const collector = new MetricsCollector({ metricRegex: '', progressIntervalMs: 0, timesFromStamps: true, lastRedrawPerStep });
    const samples = [];
    // Cut into small pieces: a held redraw waits across pushes.
    for (let at = 0; at < log.length; at += 97) samples.push(...collector.push(log.slice(at, at + 97), 0));
    return [...samples, ...collector.end(0)];
  };

  it('keeps one reading per step, the last shown, and the summary does not change', () => {
    const all = collect(false);
    const last = collect(true);
    const steps = (samples: typeof all) => samples.filter((s) => s.name === 'loss').map((s) => s.step);
    expect(steps(all)).toHaveLength(180);
    expect(steps(last)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    // The values kept are the last redraw's: the updated loss and the last rate.
    expect(last.find((s) => s.step === 10 && s.name === 'loss')!.value).toBeCloseTo(2.9, 9);
    const rates = last.filter((s) => s.kind === 'progress' && s.name !== 'loss' && s.step === 10).map((s) => s.value);
    expect(rates).toContain(4.5 + (9 % 7) * 0.01);
    const before = summarizeMetrics(all);
    const after = summarizeMetrics(last);
    expect(after).toMatchObject({
      steps: before.steps,
      throughput: before.throughput,
      stepTimeMs: before.stepTimeMs,
      warmup: before.warmup,
      finalLoss: before.finalLoss,
      finalMetrics: before.finalMetrics,
    });
    // Where a bar is the only loss: one loss per step, no longer the stale one each step's first redraws showed.
    expect(after.lossCurve).toHaveLength(60);
  });

  it('keeps the order of samples around a held redraw', () => {
    const collector = new MetricsCollector({ metricRegex: '', progressIntervalMs: 0, timesFromStamps: true, lastRedrawPerStep: true });
    const samples = [...collector.push(`${bar(1, 3, 4)}${bar(1, 2.9, 4)}\niter 1: loss 2.8, time 10.0ms\n${bar(2, 2.7, 4)}`, 0), ...collector.end(0)];
    const losses = samples.filter((s) => s.name === 'loss').map((s) => [s.kind, s.value]);
    expect(losses).toEqual([
      ['progress', 2.9],
      ['train', 2.8],
      ['progress', 2.7],
    ]);
  });
});

describe("an import's last redraw per step on the captured training logs and the benchmark's mixed log", () => {
  const logs = capturedTrainingLogs();
  logs.push(['mixed log', buildMixedLog(0.25)], ['mixed log, prefixed', buildMixedLog(0.25, { prefixed: true })]);

  it.each(logs)('%s: the same summary and chart series as with every redraw', (_name, text) => {
    const collect = (lastRedrawPerStep: boolean) => {
      const collector = new MetricsCollector({ metricRegex: '', progressIntervalMs: 0, timesFromStamps: true, lastRedrawPerStep });
      const samples = [];
      for (let at = 0; at < text.length; at += 4096) samples.push(...collector.push(text.slice(at, at + 4096), 0));
      return [...samples, ...collector.end(0)];
    };
    const all = collect(false);
    const last = collect(true);
    expect(summarizeMetrics(last)).toEqual(summarizeMetrics(all));
    expect(buildSeries(last, [])).toEqual(buildSeries(all, []));
  });
});

describe("an import's bars thinned by their own clocks", () => {
  const clock = (seconds: number) => `${String(Math.floor(seconds / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`;
  /** tqdm at 10 redraws a second: step n is drawn at n/10 s of the bar's clock. */
  const bar = (description: string, step: number, total: number, elapsedS: number) =>
    `\r${description}${Math.floor((100 * step) / total)}%|██        | ${step}/${total} [${clock(elapsedS)}<00:10, 10.00it/s, loss=${(3 - step / 1000).toFixed(3)}]`;
  const imported = () => new MetricsCollector({ metricRegex: '', ...IMPORTED_LOG_READING });
  const read = (collector: MetricsCollector, text: string) => {
    const samples = [];
    for (let at = 0; at < text.length; at += 101) samples.push(...collector.push(text.slice(at, at + 101), 0));
    return [...samples, ...collector.end(0)];
  };
  const lossSteps = (samples: MetricSample[]) => samples.filter((s) => s.name === 'loss').map((s) => s.step);

  it("keeps a bar's last state of each second its clock shows", () => {
    const log = Array.from({ length: 295 }, (_, i) => bar('', i + 1, 1000, Math.floor((i + 1) / 10))).join('');
    expect(lossSteps(read(imported(), log))).toEqual([...Array.from({ length: 29 }, (_, s) => s * 10 + 9), 295]);
  });

  it('thins interleaved bars each by its own clock', () => {
    // A training bar at 10 redraws a second, and beside it a slow one that redraws every 7 s.
    const log = Array.from({ length: 100 }, (_, i) => bar('train: ', i + 1, 1000, Math.floor((i + 1) / 10)) + bar('Epoch 2: ', i + 1, 500, (i + 1) * 7)).join(
      '',
    );
    const samples = read(imported(), log);
    const epochBar = samples.filter((s) => s.name === 'batch').map((s) => s.value);
    expect(epochBar).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(samples.filter((s) => s.name === 'total_steps')).toHaveLength(11);
  });

  it('starts over with a bar whose clock restarts under the same description', () => {
    const epoch = (offset: number) => Array.from({ length: 20 }, (_, i) => bar('', offset + i + 1, 1000, Math.floor((i + 1) / 10))).join('');
    expect(lossSteps(read(imported(), epoch(0) + epoch(100)))).toEqual([9, 19, 20, 109, 119, 120]);
  });

  it("keeps a bar's finished state and nothing stale after it", () => {
    const log = `${Array.from({ length: 25 }, (_, i) => bar('', i + 1, 25, Math.floor((i + 1) / 10))).join('')}\n`;
    // 25 of 25 finishes the bar: the state held before it in the same second (24) is not released later.
    expect(lossSteps(read(imported(), `${log}step 26: loss 1.0\n`))).toEqual([9, 19, 25, 26]);
  });

  it('thins the states a printed line leaves on screen like redraws', () => {
    // A line printed onto the bar every 5 steps ends the bar's line there, as tqdm.write does not.
    const log = Array.from({ length: 60 }, (_, i) => bar('', i + 1, 1000, Math.floor((i + 1) / 10)) + ((i + 1) % 5 === 0 ? ` step ${i + 1} saved\n` : '')).join(
      '',
    );
    expect(lossSteps(read(imported(), log))).toEqual([9, 19, 29, 39, 49, 59, 60]);
  });

  it('leaves a bar that prints no clock (Keras) to the last-redraw-per-step rule', () => {
    const log = Array.from({ length: 30 }, (_, i) => `\r${i + 1}/30 [====>.....] - ETA: 3s - loss: ${(2 - i / 100).toFixed(4)}`).join('');
    const steps = lossSteps(read(imported(), log));
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.at(-1)).toBe(30);
  });
});

describe("a live run's bars thinned by arrival", () => {
  it("keeps a bar's finished state however soon after the last kept redraw it comes", () => {
    // A fast bar: 512 steps in 0.5 s of arrival, then its final line 10 ms after the last redraw kept.
    const collector = new MetricsCollector({ metricRegex: '', ...LIVE_READING });
    const state = (n: number) => `Epoch 2: ${Math.floor((100 * n) / 512)}%|███| ${n}/512 [00:00<00:00, 1000.00it/s, loss=0.2138]`;
    const samples: MetricSample[] = [];
    for (let n = 1; n < 512; n++) samples.push(...collector.push(`\r${state(n)}`, n));
    samples.push(...collector.push(`\r${state(512)}\n`, 511 + 10), ...collector.end(600));
    const batches = samples.filter((s) => s.name === 'batch').map((s) => s.value);
    expect(batches.length).toBeLessThan(20);
    expect(batches.at(-1)).toBe(512);
  });
});
