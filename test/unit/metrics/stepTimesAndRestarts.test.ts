// What a new user's logs lost (issue 28): printed step times in plain lines, and step counters that restart each epoch or phase.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { IMPORTED_LOG_READING, LIVE_READING, MetricsCollector, type ReadingOptions } from '../../../electron/core/metrics/collector.js';
import { GlobalSteps } from '../../../electron/core/metrics/globalSteps.js';
import type { MetricSample } from '../../../electron/core/metrics/samples.js';
import { STEP_RESTART_SAMPLE, summarizeMetrics } from '../../../electron/core/metrics/summary.js';
import { capturedFixture } from '../../helpers/fixtures.js';

/** Lines as they would arrive live: each at its own time (ms since the run began). */
function collectLive(lines: ReadonlyArray<readonly [string, number]>, metricRegex = ''): MetricSample[] {
  const collector = new MetricsCollector({ metricRegex, ...LIVE_READING });
  const samples: MetricSample[] = [];
  for (const [line, tMs] of lines) samples.push(...collector.push(`${line}\n`, tMs));
  samples.push(...collector.end(lines.at(-1)?.[1] ?? 0));
  return samples;
}

/** A whole log at once, as an import reads it. */
function collectImported(text: string, reading: ReadingOptions = IMPORTED_LOG_READING, metricRegex = ''): MetricSample[] {
  const collector = new MetricsCollector({ metricRegex, ...reading });
  return [...collector.push(text, 0), ...collector.end(0)];
}

const distinctSteps = (samples: readonly MetricSample[], name: string) =>
  new Set(samples.filter((s) => s.name === name && s.kind === 'train').map((s) => s.step)).size;

describe('a plain step line keeps its printed time (issue 28, item 1)', () => {
  // `step N: loss X, Y ms`: the time after the loss has no key; the lines arrive 45 ms apart, as the script says.
  const lines = Array.from({ length: 60 }, (_, i) => [`step ${i + 1}: loss ${(3 - i * 0.01).toFixed(3)}, ${i === 0 ? 900 : 45} ms`, 1000 + i * 45] as const);

  it('live: the step time is the printed one, and the clock between lines agrees, so nothing is said', () => {
    const samples = collectLive(lines);
    expect(samples.filter((s) => s.name === 'step_time_ms')).toHaveLength(60);
    const summary = summarizeMetrics(samples);
    expect(summary.stepTimeMs.median).toBe(45);
    expect(summary.throughput.unit).toBe('steps/s');
    expect(summary.throughput.median).toBeCloseTo(1000 / 45, 6);
    expect(summary.stepTimeMs.betweenLines).toBeCloseTo(45, 6);
    expect(summary.notes).toEqual([]);
  });

  it('imported without stamps: the log still has a throughput, from the printed times', () => {
    const summary = summarizeMetrics(collectImported(lines.map(([line]) => `${line}\n`).join('')));
    expect(summary.throughput.median).toBeCloseTo(1000 / 45, 6);
    // No clock in the log: nothing to compare, nothing said.
    expect(summary.stepTimeMs.betweenLines).toBeNull();
    expect(summary.notes).toEqual([]);
  });

  it("a job runner's stamped log: the 50 ms it prints, not the 1,000 ms between stamps, and the gap is said", () => {
    const text = Array.from({ length: 40 }, (_, i) => {
      const stamp = new Date(Date.UTC(2024, 4, 2, 13, 45, 1 + i, 123)).toISOString().replace('Z', '456789Z');
      return `${stamp} Step ${i + 1} | Loss: ${(3.9786 - i * 0.01).toFixed(4)} | Time/step: 0.050s\n`;
    }).join('');
    const summary = summarizeMetrics(collectImported(text));
    expect(summary.stepTimeMs.median).toBe(50);
    expect(summary.throughput.median).toBeCloseTo(20, 6);
    expect(summary.stepTimeMs.betweenLines).toBeCloseTo(1000, 6);
    expect(summary.notes).toHaveLength(1);
    expect(summary.notes[0]).toMatch(/prints 50 ms per step.*1000 ms per step apart.*950 ms per step \(95 %.*outside the step it times/u);
  });

  it('a printed time longer than the clock between lines is said too, differently', () => {
    // 100 ms apart, 250 ms printed: a window average or a cumulative clock, not one step.
    const summary = summarizeMetrics(collectLive(Array.from({ length: 30 }, (_, i) => [`step ${i}: loss 2.0, 250 ms`, i * 100] as const)));
    expect(summary.notes.join(' ')).toMatch(/longer than the 100 ms per step between its lines/u);
  });

  it('a disagreement within 10 % is noise, not news', () => {
    const summary = summarizeMetrics(collectLive(Array.from({ length: 30 }, (_, i) => [`step ${i}: loss 2.0, 50 ms`, i * 54] as const)));
    expect(summary.stepTimeMs.betweenLines).toBeCloseTo(54, 6);
    expect(summary.notes).toEqual([]);
  });
});

describe('a step counter that restarts each epoch is counted on (issue 28, item 2)', () => {
  const epochs = (first: number, count: number, every = 1) =>
    [1, 2].flatMap((epoch) =>
      Array.from({ length: count }, (_, i) => `epoch ${epoch} step ${first + i * every}: loss ${(3 - (epoch - 1) * 0.5 - i * 0.001).toFixed(4)}, 40 ms`),
    );

  it.each([
    ['from 1, every step', epochs(1, 100), 200, 200],
    ['from 0, every step', epochs(0, 100), 199, 200],
    ['every 10th step', epochs(10, 10, 10), 200, 20],
  ])('%s: every batch is a step of its own, and the summary says the counter restarted', (_name, lines, lastStep, points) => {
    for (const samples of [collectImported(lines.map((line) => `${line}\n`).join('')), collectLive(lines.map((line, i) => [line, i * 40] as const))]) {
      expect(distinctSteps(samples, 'loss')).toBe(points);
      expect(samples.filter((s) => s.name === STEP_RESTART_SAMPLE)).toHaveLength(1);
      const summary = summarizeMetrics(samples);
      expect(summary.steps).toBe(lastStep);
      expect(summary.lossCurve.length).toBe(points);
      expect(summary.notes.join(' ')).toMatch(/step counter started again once .*counted on through the run/u);
    }
  });

  it('a phase that starts again at 0 without an epoch (pre-training, then fine-tuning)', () => {
    const lines = [
      ...Array.from({ length: 50 }, (_, i) => `step ${i}: loss 3.0, 40 ms`),
      ...Array.from({ length: 30 }, (_, i) => `step ${i}: loss 1.0, 40 ms`),
    ];
    const samples = collectImported(lines.map((line) => `${line}\n`).join(''));
    expect(distinctSteps(samples, 'loss')).toBe(80);
    expect(summarizeMetrics(samples).steps).toBe(79);
  });

  it('a batch within an epoch, in brackets: `[epoch 1 | batch 20/100]`', () => {
    const lines = [1, 2, 3].flatMap((epoch) => Array.from({ length: 5 }, (_, i) => `[epoch ${epoch} | batch ${(i + 1) * 20}/100] l=2.31 t=45ms`));
    const samples = collectImported(lines.map((line) => `${line}\n`).join(''));
    expect(distinctSteps(samples, 'step_time_ms')).toBe(15);
    expect(summarizeMetrics(samples).steps).toBe(300);
  });

  it("a bare position in brackets: PyTorch's classifier tutorial `[2,    10] loss: 2.303`, and `[1/5][20/100]`", () => {
    // The tutorial prints the mean loss of every 10 mini-batches, 250 a epoch here, each line 10 batches of 4 ms apart.
    const tutorial = [1, 2].flatMap((epoch) =>
      Array.from({ length: 25 }, (_, i) => `[${epoch}, ${String((i + 1) * 10).padStart(5)}] loss: ${(2.3 - i * 0.01).toFixed(3)}`),
    );
    const samples = collectLive(tutorial.map((line, i) => [line, 500 + i * 40] as const));
    expect(distinctSteps(samples, 'loss')).toBe(50);
    expect(samples.filter((s) => s.name === 'loss').at(-1)).toMatchObject({ step: 500, value: 2.06 });
    const summary = summarizeMetrics(samples);
    expect(summary.steps).toBe(500);
    expect(summary.stepTimeMs.median).toBe(4);
    expect(summary.finalLoss).toBe(2.06);
    // Epoch and batch as fractions in two brackets (pytorch/examples' DCGAN shape), with a plain loss.
    const fractions = [0, 1].flatMap((epoch) => Array.from({ length: 5 }, (_, i) => `[${epoch}/5][${i * 20}/100] loss: 1.5 acc: 0.5`));
    expect(distinctSteps(collectImported(fractions.map((line) => `${line}\n`).join('')), 'loss')).toBe(10);
    // Not a position: a timestamp, a list, a rank.
    for (const line of ['[2026-11-29 17:00:01,123] loss: 3.1', '[0, 1, 2] loss: 3.1', '[rank0]: loss: 3.1'])
      expect(
        collectImported(`${line}\n`).every((s) => s.step === null),
        line,
      ).toBe(true);
  });

  it("pytorch/examples' DCGAN as it prints: two losses named for their networks, and the discriminator's outputs", () => {
    // torch 2.15 on the CPU, FakeData, batch 16: 63 batches an epoch, each line about 1.2 s after the one before.
    const lines = [0, 1].flatMap((epoch) =>
      Array.from(
        { length: 63 },
        (_, i) => `[${epoch}/2][${i}/63] Loss_D: ${(1.4 - i * 0.01).toFixed(4)} Loss_G: ${(1.3 + i * 0.02).toFixed(4)} D(x): 0.6235 D(G(z)): 0.5770 / 0.2960`,
      ),
    );
    const samples = collectLive(lines.map((line, i) => [line, 3000 + i * 1200] as const));
    expect(distinctSteps(samples, 'loss_d')).toBe(126);
    expect(samples.filter((s) => s.name === 'loss_g').at(-1)).toMatchObject({ value: 2.54 });
    const summary = summarizeMetrics(samples);
    expect(summary.steps).toBe(125);
    expect(summary.stepTimeMs.median).toBe(1200);
  });

  it("the workload's own regex, with an epoch group, is counted on the same way", () => {
    const lines = [1, 2].flatMap((epoch) => Array.from({ length: 10 }, (_, i) => `ep=${epoch} it=${i + 1} L=${(2 - i * 0.01).toFixed(2)}`));
    const samples = collectImported(lines.map((line) => `${line}\n`).join(''), IMPORTED_LOG_READING, 'ep=(?<epoch>\\d+) it=(?<step>\\d+) L=(?<loss>[\\d.]+)');
    expect(distinctSteps(samples, 'loss')).toBe(20);
    expect(summarizeMetrics(samples).steps).toBe(20);
  });

  it('a counter that steps back a little (a resumed checkpoint, ranks a step apart) is not a restart', () => {
    const steps = new GlobalSteps();
    const placed = [10, 20, 30, 40, 35, 40, 50].map((step) => steps.place('parser', 'train', step, undefined).step);
    expect(placed).toEqual([10, 20, 30, 40, 35, 40, 50]);
  });

  it('an evaluation in the second epoch sits in that epoch', () => {
    const steps = new GlobalSteps();
    for (const step of [1, 2, 3, 1, 2]) steps.place('parser', 'train', step, undefined);
    expect(steps.place('parser', 'eval', 2, undefined).step).toBe(5);
  });

  it('no real log in the fixtures restarts: their parsers count through epochs already, and they pass unchanged', () => {
    const dir = capturedFixture('training-logs');
    for (const name of fs.readdirSync(dir).filter((file) => file.endsWith('.log'))) {
      const text = fs.readFileSync(`${dir}/${name}`, 'utf8');
      for (const reading of [IMPORTED_LOG_READING, LIVE_READING]) {
        expect(
          collectImported(text, reading).filter((s) => s.name === STEP_RESTART_SAMPLE),
          name,
        ).toEqual([]);
      }
    }
  });
});
