// Steady-state rules and the run summary, on series whose truth is known.
import { describe, expect, it } from 'vitest';
import type { MetricSample } from '../../electron/core/metrics/samples.js';
import { splitSteadyState, type TimedPoint } from '../../electron/core/metrics/steadyState.js';
import { summarizeMetrics } from '../../electron/core/metrics/summary.js';

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A compile phase of 10 slow steps, then 12 ms steps with 2 % noise, an eval every 50 steps. */
function series(steps: number): TimedPoint[] {
  const random = seeded(7);
  const points: TimedPoint[] = [];
  let t = 0;
  for (let step = 1; step <= steps; step++) {
    let ms = step <= 10 ? 150 : 12 * (1 + (random() - 0.5) * 0.04);
    if (step % 50 === 0) ms = 80; // an eval inside the step
    t += ms;
    points.push({ step, tMs: t, stepTimeMs: ms });
  }
  return points;
}

const sample = (step: number | null, name: string, value: number, extra: Partial<MetricSample> = {}): MetricSample => ({
  step,
  tMs: (step ?? 0) * 10,
  name,
  value,
  source: 'text',
  kind: 'train',
  ...extra,
});

describe('splitSteadyState', () => {
  it('finds the end of a compile phase by itself, and leaves out the steps marked as evals', () => {
    const evalIndexes = new Set(series(300).flatMap((p, i) => (p.step % 50 === 0 ? [i] : [])));
    const split = splitSteadyState(series(300), { kind: 'auto' }, { markedIndexes: evalIndexes });
    expect(split).toMatchObject({ rule: 'auto', stable: true, start: 10, warmupSteps: 10, marked: 6, byRule: 0 });
    expect(split.warmupSeconds).toBeCloseTo(1.5, 6);
    expect(split.outliers.map((i) => i + 1)).toEqual([50, 100, 150, 200, 250, 300]);
  });

  it('keeps slow steps nothing marks when they are more than a small share, and flags them', () => {
    const split = splitSteadyState(series(300));
    expect(split.outliers).toEqual([]);
    expect(split.flaggedKept.map((i) => i + 1)).toEqual([50, 100, 150, 200, 250, 300]);
  });

  it('applies a fixed number of steps or seconds when told to', () => {
    expect(splitSteadyState(series(100), { kind: 'steps', steps: 20 }).start).toBe(20);
    const bySeconds = splitSteadyState(series(100), { kind: 'seconds', seconds: 2 });
    expect(series(100)[bySeconds.start]!.tMs).toBeGreaterThanOrEqual(2000);
    expect(series(100)[bySeconds.start - 1]!.tMs).toBeLessThan(2000);
  });

  it('calls no warm-up in a run that only gets slower', () => {
    const drifting = Array.from({ length: 60 }, (_, i) => ({ step: i + 1, tMs: i * 100, stepTimeMs: 10 + i * 2 }));
    expect(splitSteadyState(drifting)).toMatchObject({ start: 0, warmupSteps: 0 });
  });
});

describe('summarizeMetrics', () => {
  it('recovers a known throughput from printed tok/s after excluding warm-up', () => {
    const samples: MetricSample[] = [];
    series(300).forEach((p) => {
      samples.push(sample(p.step, 'tokens_per_sec', (2048 / p.stepTimeMs) * 1000), sample(p.step, 'step_time_ms', p.stepTimeMs));
      samples.push(sample(p.step, 'loss', 4 * Math.exp(-p.step / 100) + 1));
      if (p.step % 50 === 0) samples.push(sample(p.step, 'eval_loss', 2, { kind: 'eval' }));
    });
    const summary = summarizeMetrics(samples);
    expect(summary.throughput.unit).toBe('tokens/s');
    expect(Math.abs(summary.throughput.median! / ((2048 / 12) * 1000) - 1)).toBeLessThan(0.01);
    expect(summary.stepTimeMs.median).toBeCloseTo(12, 0);
    expect(summary.outlierSteps).toBe(6);
    expect(summary).toMatchObject({ steps: 300, lossFell: true, nanDetected: false, metricsSource: 'text' });
    expect(summary.warmup).toMatchObject({ rule: 'auto', steps: 10, stable: true });
  });

  it('derives tokens/s from step times and the tokens per step', () => {
    const samples = series(100).map((p) => sample(p.step, 'step_time_ms', p.stepTimeMs));
    const summary = summarizeMetrics(samples, { tokensPerStep: 8 * 256 });
    expect(summary.throughput.unit).toBe('tokens/s');
    expect(summary.throughput.median).toBeCloseTo((2048 / 12) * 1000, -3);
  });

  it('falls back to steps/s from the time between step lines', () => {
    const samples = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120].map((step) => sample(step, 'loss', 2, { tMs: step * 25 }));
    const summary = summarizeMetrics(samples);
    expect(summary.throughput).toMatchObject({ unit: 'steps/s' });
    expect(summary.throughput.median).toBeCloseTo(40, 5);
  });

  it('lets the structured channel win over parsed text', () => {
    const summary = summarizeMetrics([sample(1, 'loss', 9), sample(1, 'loss', 3, { source: 'channel' }), sample(2, 'loss', 2, { source: 'channel' })]);
    expect(summary).toMatchObject({ metricsSource: 'channel', finalLoss: 2, bestLoss: 2 });
  });

  it('reports NaN in the loss, keeps the last finite loss, and reads eval loss', () => {
    const summary = summarizeMetrics([
      sample(1, 'loss', 3),
      sample(2, 'loss', 2.5),
      sample(3, 'loss', Number.NaN),
      sample(3, 'eval_loss', 2.7, { kind: 'eval' }),
    ]);
    expect(summary).toMatchObject({ nanDetected: true, finalLoss: 2.5, bestLoss: 2.5, evalLoss: 2.7 });
  });

  it('has nothing to say about a run without metrics', () => {
    expect(summarizeMetrics([])).toMatchObject({ steps: null, throughput: { median: null }, nanDetected: null, metricsSource: null });
  });
});

describe('long runs', () => {
  it('summarises millions of samples (no argument-count limits)', () => {
    const samples: MetricSample[] = [];
    for (let step = 1; step <= 1_000_000; step++) samples.push(sample(step, 'loss', 3 - step / 1_000_000));
    expect(summarizeMetrics(samples).bestLoss).toBeCloseTo(2, 6);
  });
});
