// Repeats whose noise is below the grain of their step timing read the same rounded value each time: seen in `tune`,
// where runs timed by the arrival of their lines (whole milliseconds) gave "faster 3.50x (3.50–3.50)" and a baseline
// of "15.9 (15.9–15.9)". Identical repeats say nothing about how alike runs are, so an interval is never narrower
// than the timing can resolve, and copies with no grain to go on get no verdict at all.
import { describe, expect, it } from 'vitest';
import { rowThroughput } from '../../../electron/core/compare/compare.js';
import { compareSpeeds, type RunSpeed } from '../../../electron/core/compare/verdict.js';
import type { MetricSample } from '../../../electron/core/metrics/samples.js';
import { summarizeMetrics } from '../../../electron/core/metrics/summary.js';
import { decimalGrid } from '../../../electron/core/metrics/timingResolution.js';
import { seededRandom } from '../../../electron/core/compare/random.js';

const DEFAULTS = { minEffect: 0.02 };

/** A run's lines as a pty gives them: one per step, stamped with the whole millisecond it was read at. */
function arrivalTimedRun(stepMs: number, steps: number, jitterMs: number, random: () => number): MetricSample[] {
  const list: MetricSample[] = [];
  let t = 1_732_712_345_000 + random() * 1000;
  for (let step = 1; step <= steps; step++) {
    t += stepMs + (random() - 0.5) * 2 * jitterMs;
    list.push({ step, tMs: Math.floor(t), name: 'loss', value: 3 - step / steps, source: 'text', kind: 'train' });
  }
  return list;
}

describe('the grain of a step time', () => {
  it('is the decimal grid the number was written on, at most a whole unit', () => {
    expect(decimalGrid(63)).toBe(1);
    expect(decimalGrid(60)).toBe(1);
    expect(decimalGrid(63.5)).toBeCloseTo(0.1, 12);
    expect(decimalGrid(63.21)).toBeCloseTo(0.01, 12);
    expect(decimalGrid(0.1 + 0.2)).toBeCloseTo(0.1, 12);
    expect(decimalGrid(1_732_712_345_678)).toBe(1);
    expect(decimalGrid(Math.PI)).toBeCloseTo(1e-6, 12);
  });

  it('is a millisecond in the step time for lines timed by their arrival, and the printed digit for printed step times', () => {
    const random = seededRandom(7);
    const arrival = summarizeMetrics(arrivalTimedRun(63.3, 200, 0.2, random), { warmup: { kind: 'steps', steps: 5 } });
    expect(arrival.stepTimeMs.median).toBe(63);
    expect(arrival.throughput.resolution).toBeCloseTo(1 / 63, 4);

    const printed: MetricSample[] = Array.from({ length: 200 }, (_, i) => ({
      step: i + 1,
      tMs: 1000 + i * 63,
      name: 'step_time_ms',
      value: Number((63.21 + (i % 3) * 0.01).toFixed(2)),
      source: 'text',
      kind: 'train',
    }));
    const fine = summarizeMetrics(printed, { warmup: { kind: 'steps', steps: 5 } });
    expect(fine.throughput.resolution).toBeCloseTo(0.01 / 63.22, 6);
  });
});

describe('a verdict on repeats that read the same rounded value', () => {
  const speeds = (stepMs: number, runs: number, resolution: number | null): RunSpeed[] =>
    Array.from({ length: runs }, () => ({ throughput: 1000 / stepMs, resolution }));

  it('keeps a large change, with an interval as wide as the timing allows', () => {
    const verdict = compareSpeeds(speeds(18, 3, 1 / 18), speeds(63, 3, 1 / 63), DEFAULTS);
    expect(verdict.verdict).toBe('faster');
    expect(verdict.ratio).toBeCloseTo(3.5, 6);
    expect(verdict.ci95!.low).toBeLessThan(3.3);
    expect(verdict.ci95!.high).toBeGreaterThan(3.7);
    expect(verdict.reason).toMatch(/widened to the step timing's resolution/u);
    expect(rowThroughput([1000 / 63, 1000 / 63], 1 / 63).ci95!.low).toBeCloseTo(1000 / 63 / (1 + 1 / 63), 6);
  });

  it('calls one millisecond in 63 neither faster nor slower, and says repeats cannot decide it', () => {
    const verdict = compareSpeeds(speeds(63, 3, 1 / 63), speeds(64, 3, 1 / 64), DEFAULTS);
    expect(verdict.verdict).toBe('inconclusive');
    expect(verdict.moreRepeats).toBeNull();
    expect(verdict.reason).toMatch(/only to about ±3\.1 %.*more repeats of the same timing cannot narrow it/u);
  });

  it('gives no verdict on copies with no grain to go on (the same log twice, say)', () => {
    const verdict = compareSpeeds(speeds(18, 2, null), speeds(63, 2, null), DEFAULTS);
    expect(verdict.verdict).toBe('inconclusive');
    expect(verdict.ci95).toBeNull();
    expect(verdict.reason).toMatch(/identical to the last digit.*cannot be sized/u);
  });

  it('keeps its false faster/slower rate under 5 % where the run-to-run noise is below a millisecond (A/A)', () => {
    const random = seededRandom(2026);
    const sweeps = 600;
    let falseVerdicts = 0;
    let splitCopies = 0;
    for (let sweep = 0; sweep < sweeps; sweep++) {
      // Both configs the same: a step of 63.47-63.53 ms, so the rounded median flips between 63 and 64 run to run.
      const trueMs = 63.47 + random() * 0.06;
      const side = () =>
        Array.from(
          { length: 2 },
          () =>
            summarizeMetrics(arrivalTimedRun(trueMs * (1 + (random() - 0.5) * 0.002), 120, 0.05, random), { warmup: { kind: 'steps', steps: 5 } }).throughput,
        );
      const a = side();
      const b = side();
      // Each side's repeats alike, the two sides not: a t-interval of zero width away from 1 (how the false "faster" came).
      if (a[0]!.median === a[1]!.median && b[0]!.median === b[1]!.median && a[0]!.median !== b[0]!.median) splitCopies++;
      const verdict = compareSpeeds(
        a.map((t) => ({ throughput: t.median!, resolution: t.resolution })),
        b.map((t) => ({ throughput: t.median!, resolution: t.resolution })),
        DEFAULTS,
      );
      if (verdict.verdict === 'faster' || verdict.verdict === 'slower') falseVerdicts++;
    }
    expect(splitCopies / sweeps).toBeGreaterThan(0.05);
    expect(falseVerdicts / sweeps).toBeLessThanOrEqual(0.05);
  }, 60_000);
});
