// A long run's summary from a bounded sample of its steps, against the summary of every step, from a real SQLite file.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MetricSample } from '../../electron/core/metrics/samples.js';
import { samplingRankError, summarizeMetrics, type TrainingSummary } from '../../electron/core/metrics/summary.js';
import { summaryInput, type SamplingLimits } from '../../electron/core/metrics/summaryInput.js';
import { Store } from '../../electron/core/store/store.js';
import { importLogText } from '../../electron/core/ingest/importLog.js';
import { capturedTrainingLogs } from '../helpers/fixtures.js';
import { makeTempDir, tempCore } from '../helpers/tempCore.js';

const store = new Store(path.join(makeTempDir(), 'runs.db'));
afterAll(() => store.close());

/** Small limits, so a run of 120,000 steps is sampled 1 in 15 (the defaults sample past 150,000 steps). */
const LIMITS: SamplingLimits = { headSteps: 2048, sampledSteps: 8192, exactSteps: 20_000 };

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface SyntheticRun {
  samples: MetricSample[];
  /** Each step's printed time, warm-up left out: what the medians are ranked against. */
  steadyStepTimes: number[];
}

/**
 * A dense log's run: a step time printed each step (a 5-step warm-up, evals every 5,000 steps that take 4x, spikes,
 * a slow stretch at 60,000-60,499), loss and gradient norm each step, lr every 1,000 steps, one NaN gradient norm,
 * a lowest loss at a step off any grid, and lines that come 2 ms after the step each prints.
 */
function syntheticRun(steps: number, seed = 7): SyntheticRun {
  const random = mulberry32(seed);
  const samples: MetricSample[] = [];
  const steadyStepTimes: number[] = [];
  const warmup = [500, 320, 210, 160, 130];
  let tMs = 0;
  for (let step = 1; step <= steps; step++) {
    let ms = 100 * (1 + 0.08 * (random() - 0.5) + 0.04 * (random() - 0.5));
    if (step <= warmup.length) ms = warmup[step - 1]!;
    else if (step % 5000 === 0) ms = 400;
    else if (step >= 60_000 && step < 60_500) ms *= 1.5;
    else if (random() < 0.001) ms *= 3;
    ms = Math.round(ms * 100) / 100;
    if (step > warmup.length) steadyStepTimes.push(ms);
    tMs += ms + 2;
    const loss = step === 100_001 ? 0.123 : 1 + 3 * Math.exp(-step / 30_000) + 0.05 * random();
    samples.push({ step, tMs, name: 'loss', value: loss, source: 'text', kind: 'train' });
    samples.push({ step, tMs, name: 'step_time_ms', value: ms, source: 'text', kind: 'train' });
    samples.push({ step, tMs, name: 'grad_norm', value: step === 77_777 ? Number.NaN : 0.5 + random(), source: 'text', kind: 'train' });
    if (step % 1000 === 0) samples.push({ step, tMs, name: 'lr', value: 3e-4 * (1 - step / steps), source: 'text', kind: 'train' });
    if (step % 5000 === 0) samples.push({ step, tMs: tMs + 1, name: 'eval_loss', value: 1.5 + 2 * Math.exp(-step / 30_000), source: 'text', kind: 'eval' });
  }
  return { samples, steadyStepTimes };
}

function stored(samples: readonly MetricSample[]): number {
  const run = store.runs.insert({
    workloadId: null,
    workloadName: 'sampling',
    command: ['train'],
    cwd: '/tmp',
    config: {},
    env: {},
    startedAt: new Date('2026-11-28T10:00:00Z'),
    enginePid: process.pid,
  });
  for (let from = 0; from < samples.length; from += 50_000) store.metrics.insertNow(run.id, samples.slice(from, from + 50_000));
  return run.id;
}

/** Where `value` ranks among `sorted` (the share below it). */
function rank(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo / sorted.length;
}

describe('a long run summarized from a sample of its steps', () => {
  const run = syntheticRun(120_000);
  const id = stored(run.samples);
  const exactInput = summaryInput(store.metrics, id, { exact: true });
  const exact = summarizeMetrics(exactInput.columns, { sampling: exactInput.sampling });
  const sampledInput = summaryInput(store.metrics, id, { limits: LIMITS });
  const sampled = summarizeMetrics(sampledInput.columns, { sampling: sampledInput.sampling });

  it('reads a bounded sample: the head whole, then every 15th step with the step before it, and sparse series whole', () => {
    expect(exactInput.sampling).toBeNull();
    const sampling = sampledInput.sampling!;
    expect(sampling.steps).toBe(120_000);
    expect(sampling.every).toBe(Math.ceil((120_000 - LIMITS.headSteps) / LIMITS.sampledSteps));
    expect(sampling.headLastStep).toBe(LIMITS.headSteps);
    // Three per-step series, lr's 120 samples and 24 evals whole.
    const perStep = LIMITS.headSteps + 2 * Math.ceil((120_000 - LIMITS.headSteps) / sampling.every);
    expect(sampledInput.columns.length).toBeLessThanOrEqual(3 * perStep + 120 + 24);
    expect(sampledInput.columns.length).toBeGreaterThan(3 * (perStep - 2));
    expect(exactInput.columns.length).toBe(run.samples.length);
  });

  it('takes what one sample could get wrong from every step: last step, final, lowest and eval loss, a NaN, last values', () => {
    expect(sampled.steps).toBe(120_000);
    expect(sampled.finalLoss).toBe(exact.finalLoss);
    expect(sampled.bestLoss).toBe(0.123);
    expect(exact.bestLoss).toBe(0.123);
    expect(sampled.evalLoss).toBe(exact.evalLoss);
    expect(sampled.nanDetected).toBe(true);
    expect(sampled.finalMetrics).toEqual(exact.finalMetrics);
    expect(sampled.lossFell).toBe(true);
  });

  it('finds the same warm-up among the first steps, read whole', () => {
    expect(sampled.warmup).toEqual(exact.warmup);
    // The slow stretch later on is as slow as the first steps: the first step alone is warm-up, in both.
    expect(sampled.warmup!.steps).toBe(1);
  });

  it("puts the medians within the stated share of ranks of every step's, and counts steps within a few percent", () => {
    const times = Float64Array.from(run.steadyStepTimes).sort();
    const allowed = samplingRankError(Math.round(120_000 / sampledInput.sampling!.every));
    expect(allowed).toBeLessThan(0.015);
    expect(Math.abs(rank(times, sampled.stepTimeMs.median!) - rank(times, exact.stepTimeMs.median!))).toBeLessThanOrEqual(allowed);
    const rates = Float64Array.from(run.steadyStepTimes, (ms) => 1000 / ms).sort();
    expect(Math.abs(rank(rates, sampled.throughput.median!) - rank(rates, exact.throughput.median!))).toBeLessThanOrEqual(allowed);
    expect(sampled.throughput.unit).toBe('steps/s');
    expect(sampled.throughput.blocks).toHaveLength(20);
    expect(Math.abs(sampled.steadySteps! / exact.steadySteps! - 1)).toBeLessThan(0.01);
    // The clock between lines: 102 ms a step against the printed 100.
    expect(Math.abs(sampled.stepTimeMs.betweenLines! / exact.stepTimeMs.betweenLines! - 1)).toBeLessThan(0.01);
    expect(sampled.throughput.overall! / exact.throughput.overall!).toBeCloseTo(1, 2);
    expect(sampled.throughput.resolution! / exact.throughput.resolution!).toBeCloseTo(1, 2);
    // Steps left out by the rule (spikes, the slow stretch, evals) estimated from the grid's: within sampling noise.
    expect(Math.abs(sampled.outliers!.byRule - exact.outliers!.byRule)).toBeLessThanOrEqual(
      3 * Math.sqrt(exact.outliers!.byRule * sampledInput.sampling!.every),
    );
  });

  it('still sees the slow stretch and the evals, with steps counted for the whole run', () => {
    const stretch = (summary: TrainingSummary) => summary.slowStretches.find((s) => s.fromStep >= 59_000 && s.toStep <= 61_000)!;
    expect(stretch(exact).steps).toBe(500);
    const every = sampledInput.sampling!.every;
    expect(Math.abs(stretch(sampled).fromStep - 60_000)).toBeLessThanOrEqual(every);
    expect(Math.abs(stretch(sampled).steps - 500)).toBeLessThanOrEqual(every);
    expect(stretch(sampled).slowerBy).toBeCloseTo(stretch(exact).slowerBy, 1);
    // 24 evals, each marking its step and (by its time, after the step's line) the next one.
    expect(exact.outliers!.marked).toBe(47);
    // Scaled counts never pass the run's steps (the grid's every-th steps and its head's spacing are not exact).
    expect(sampled.steadySteps! + sampled.outlierSteps).toBeLessThanOrEqual(120_000);
    expect(Math.abs(sampled.outliers!.marked - 47)).toBeLessThanOrEqual(3 * Math.sqrt(47 * every) + every);
    expect(sampled.notes.at(-1)).toMatch(/^This run logged 120,000 steps: its step statistics are from every 15th step/u);
    expect(exact.notes.some((note) => note.includes('logged 120,000 steps'))).toBe(false);
  });

  it('reads a run at the limit whole, with the very summary of every sample', () => {
    const short = stored(syntheticRun(LIMITS.exactSteps, 11).samples);
    const input = summaryInput(store.metrics, short, { limits: LIMITS });
    expect(input.sampling).toBeNull();
    const whole = summaryInput(store.metrics, short, { exact: true });
    expect(summarizeMetrics(input.columns, { sampling: input.sampling })).toEqual(summarizeMetrics(whole.columns));
  });
});

describe('a bar redrawn for a step after the next step has printed its line', () => {
  // tqdm's redraw of step s often lands after the line of step s + 1: a sampled read keeps or drops it with its step.
  const samples: MetricSample[] = [];
  for (let step = 1; step <= 60_000; step++) {
    samples.push({ step, tMs: step * 100, name: 'loss', value: 2 + 1 / step, source: 'text', kind: 'train' });
    if (step > 1) samples.push({ step: step - 1, tMs: step * 100 + 1, name: 'bar_loss', value: 2 + 1 / (step - 1), source: 'text', kind: 'progress' });
  }
  const input = summaryInput(store.metrics, stored(samples), { limits: LIMITS });

  it("keeps each kept step's late redraw, and no redraw of a step it dropped", () => {
    expect(input.sampling).not.toBeNull();
    const columns = input.columns;
    const stepsOf = (name: string) => {
      const steps = new Set<number>();
      for (let i = 0; i < columns.length; i++) if (columns.sample(i).name === name) steps.add(columns.step[i]!);
      return steps;
    };
    const lines = stepsOf('loss');
    const bars = stepsOf('bar_loss');
    lines.delete(60_000);
    expect(lines.size).toBeLessThan(20_000);
    expect([...bars].sort((a, b) => a - b)).toEqual([...lines].sort((a, b) => a - b));
  });
});

describe('every captured training log, sampled hard', () => {
  const harness = tempCore();
  afterAll(() => harness.cleanup());

  // The logs are short (10 to 450 steps), so at the real limits each is read whole: here a tenth of each is head and a
  // quarter sampled, to put the sampled path through every framework's output.
  it('keeps the facts taken from every sample (steps, losses, NaNs, last values, warm-up, unit) equal to the exact summary', async () => {
    let sampledLogs = 0;
    for (const [name, text] of capturedTrainingLogs()) {
      const run = await importLogText(harness.core, text, { name, now: new Date('2026-11-28T12:00:00Z') });
      const metrics = harness.core.store.metrics;
      const steps = Math.max(
        0,
        ...metrics
          .seriesCounts(run.id, 'all')
          .filter((s) => s.kind === 'train' || s.kind === 'progress')
          .map((s) => s.samples),
      );
      if (steps < 10) continue;
      const limits = { headSteps: Math.max(2, Math.floor(steps / 10)), sampledSteps: Math.max(2, Math.floor(steps / 4)), exactSteps: 5 };
      const input = summaryInput(metrics, run.id, { limits });
      const whole = summaryInput(metrics, run.id, { exact: true });
      expect(input.sampling, name).not.toBeNull();
      const facts = (summary: TrainingSummary) => [
        summary.steps,
        summary.finalLoss,
        summary.bestLoss,
        summary.evalLoss,
        summary.nanDetected,
        summary.finalMetrics,
        summary.warmup?.steps,
        summary.throughput.unit,
      ];
      const sampled = summarizeMetrics(input.columns, { sampling: input.sampling });
      expect(facts(sampled), name).toEqual(facts(summarizeMetrics(whole.columns)));
      // Counts scaled from the grid stay within the run's logged steps.
      expect((sampled.steadySteps ?? 0) + sampled.outlierSteps, name).toBeLessThanOrEqual(input.sampling!.steps);
      sampledLogs++;
    }
    expect(sampledLogs).toBeGreaterThanOrEqual(9);
  });
});
