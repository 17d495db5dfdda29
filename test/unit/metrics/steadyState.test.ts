// The steady-state rules (one-sided warm-up change point, outliers only with a reason) on series whose truth is known.
import fc from 'fast-check';
import { median } from 'simple-statistics';
import { describe, expect, it } from 'vitest';
import { MetricsCollector } from '../../../electron/core/metrics/collector.js';
import type { MetricSample } from '../../../electron/core/metrics/samples.js';
import { MAX_AUTO_WARMUP_SHARE, slowStretches, splitSteadyState, type TimedPoint } from '../../../electron/core/metrics/steadyState.js';
import { summarizeMetrics } from '../../../electron/core/metrics/summary.js';
import { readCapturedFixture } from '../../helpers/fixtures.js';

function toPoints(stepTimes: readonly number[]): TimedPoint[] {
  let t = 0;
  return stepTimes.map((ms, i) => {
    t += ms;
    return { step: i + 1, tMs: t, stepTimeMs: ms };
  });
}

/** Step times around `level` with up to ±`noise` relative jitter (4 % at most, below the rule's 10 % floor): a run with no warm-up at all. */
const flatSeries = (minLength = 6) =>
  fc.record({
    level: fc.double({ min: 1, max: 5000, noNaN: true }),
    noise: fc.double({ min: 0, max: 0.04, noNaN: true }),
    jitter: fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength, maxLength: 200 }),
  });

const flat = ({ level, noise, jitter }: { level: number; noise: number; jitter: number[] }) => jitter.map((j) => level * (1 + noise * j));

describe('warm-up: a one-sided change point', () => {
  it('a flat series loses nothing', () => {
    fc.assert(
      fc.property(flatSeries(), (input) => {
        const split = splitSteadyState(toPoints(flat(input)));
        expect(split.start).toBe(0);
        expect(split.warmupSteps).toBe(0);
      }),
    );
  });

  it('finds a genuine slow start within the first 20 % of the steps', () => {
    fc.assert(
      fc.property(flatSeries(20), fc.integer({ min: 1, max: 100 }), fc.double({ min: 1.5, max: 20, noNaN: true }), (input, slow, factor) => {
        const steady = flat(input);
        const warm = Math.min(slow, Math.floor(steady.length * MAX_AUTO_WARMUP_SHARE));
        const times = steady.map((ms, i) => (i < warm ? ms * factor : ms));
        const split = splitSteadyState(toPoints(times));
        expect(split.start).toBe(warm);
      }),
    );
  });

  it('takes a slow start that lasts past 20 % of the run for load, not warm-up, and keeps its steps', () => {
    fc.assert(
      fc.property(flatSeries(20), fc.double({ min: 0.25, max: 0.6, noNaN: true }), fc.double({ min: 1.5, max: 20, noNaN: true }), (input, share, factor) => {
        const steady = flat(input);
        const slow = Math.ceil(steady.length * share) + 1;
        const times = steady.map((ms, i) => (i < slow ? ms * factor : ms));
        const split = splitSteadyState(toPoints(times));
        // The first step may still be its own start-up step when it is the slowest of all; nothing more.
        expect(split.start).toBeLessThanOrEqual(1);
        expect(split.reason).toMatch(/not warm-up|first step/u);
      }),
    );
  });

  it('never calls faster early steps warm-up', () => {
    fc.assert(
      fc.property(flatSeries(10), fc.double({ min: 0.3, max: 0.97, noNaN: true }), (input, factor) => {
        const steady = flat(input);
        const times = steady.map((ms, i) => (i < steady.length / 2 ? ms * factor : ms));
        expect(splitSteadyState(toPoints(times)).start).toBe(0);
      }),
    );
  });

  it('never calls a single blip after the first step warm-up', () => {
    fc.assert(
      fc.property(flatSeries(6), fc.nat(), fc.double({ min: 1.5, max: 50, noNaN: true }), (input, at, factor) => {
        const times = flat(input);
        const blip = 1 + (at % (times.length - 1));
        times[blip] = times[blip]! * factor;
        expect(splitSteadyState(toPoints(times)).start).toBe(0);
      }),
    );
  });

  it('reads a clean log with only a slow first step and a slightly faster first half as one step of warm-up', () => {
    // The case: 23 steps were called warm-up and the step time came out 6.3 % off.
    const times = [900, ...Array.from({ length: 14 }, (_, i) => 94 + (i % 3)), ...Array.from({ length: 15 }, (_, i) => 100 + (i % 3))];
    const split = splitSteadyState(toPoints(times));
    expect(split).toMatchObject({ start: 1, warmupSteps: 1 });
    expect(split.reason).toMatch(/slower/);
  });

  it('never calls a slow middle warm-up: it stays in, flagged as a slow stretch', () => {
    fc.assert(
      fc.property(
        flatSeries(30),
        fc.double({ min: 0.1, max: 0.5, noNaN: true }),
        fc.double({ min: 0.1, max: 0.3, noNaN: true }),
        fc.double({ min: 1.5, max: 10, noNaN: true }),
        (input, at, share, factor) => {
          const times = flat(input);
          const from = Math.max(2, Math.floor(times.length * at));
          const to = Math.min(times.length - 2, from + Math.max(3, Math.floor(times.length * share)));
          for (let i = from; i < to; i++) times[i] = times[i]! * factor;
          const points = toPoints(times);
          const split = splitSteadyState(points);
          expect(split.start).toBe(0);
          expect(slowStretches(points, split.start).some((s) => s.fromStep <= from + 1 && s.toStep >= to)).toBe(true);
        },
      ),
    );
  });

  it('never calls a late slowdown warm-up', () => {
    fc.assert(
      fc.property(flatSeries(20), fc.double({ min: 0.5, max: 0.9, noNaN: true }), fc.double({ min: 1.5, max: 10, noNaN: true }), (input, at, factor) => {
        const times = flat(input);
        const from = Math.max(1, Math.floor(times.length * at));
        for (let i = from; i < times.length; i++) times[i] = times[i]! * factor;
        expect(splitSteadyState(toPoints(times)).start).toBe(0);
      }),
    );
  });

  it('never calls contention in the first part that returns later warm-up', () => {
    fc.assert(
      fc.property(
        flatSeries(40),
        fc.double({ min: 0.05, max: 0.45, noNaN: true }),
        fc.double({ min: 0.55, max: 0.8, noNaN: true }),
        fc.double({ min: 1.5, max: 10, noNaN: true }),
        (input, first, later, factor) => {
          const times = flat(input);
          const slow = Math.max(2, Math.floor(times.length * first));
          const again = Math.floor(times.length * later);
          for (let i = 0; i < slow; i++) times[i] = times[i]! * factor;
          for (let i = again; i < Math.min(times.length, again + slow); i++) times[i] = times[i]! * factor;
          // A slow first step alone may still be start-up; none of the stretch beyond it is warm-up.
          expect(splitSteadyState(toPoints(times)).start).toBeLessThanOrEqual(1);
        },
      ),
    );
  });

  it("takes no warm-up from nanoGPT runs beside other jobs: fast first iterations, then load (the issue's 19 of 41 steps)", () => {
    // A compile step, four iterations as fast as the rest, then 15 slowed by other jobs, then quiet again.
    const times = [
      9400,
      890,
      893,
      891,
      895,
      ...Array.from({ length: 15 }, (_, i) => 1500 + (i % 5) * 40),
      ...Array.from({ length: 21 }, (_, i) => 890 + (i % 4)),
    ];
    const split = splitSteadyState(toPoints(times));
    expect(split.start).toBe(1);
    expect(split.warmupSteps).toBe(1);
  });

  it('takes the warm-up the script marks (nanoGPT: mfu -100 %) as warm-up, and says so', () => {
    const times = [9400, 890, 893, 891, 895, 890, 892];
    const split = splitSteadyState(toPoints(times), { kind: 'auto' }, { warmupHints: new Set([0]) });
    expect(split.start).toBe(1);
    expect(split.reason).toMatch(/script marks/u);
  });

  it('applies a warm-up set by hand, even past half the run', () => {
    expect(splitSteadyState(toPoints(Array(10).fill(10)), { kind: 'steps', steps: 8 }).start).toBe(8);
  });
});

describe('outliers: left out only with a reason', () => {
  it('keeps the steps of a bimodal run (two threads fighting over two cores)', () => {
    const times = Array.from({ length: 200 }, (_, i) => ((i * 7919) % 10 < 6 ? 100 + (i % 21) : 300 + (i % 41)));
    const split = splitSteadyState(toPoints(times));
    expect(split.outliers).toEqual([]);
    const samples: MetricSample[] = toPoints(times).map((p) => ({
      step: p.step,
      tMs: p.tMs,
      name: 'step_time_ms',
      value: p.stepTimeMs,
      source: 'text',
      kind: 'train',
    }));
    // Its pace is uneven (mean step 1.6× the median): the steps' time over their count, not the median step, says it.
    const summary = summarizeMetrics(samples);
    expect(summary.stepTimeMs.median).toBeCloseTo(times.reduce((a, b) => a + b, 0) / times.length, 6);
    expect(summary.notes.join(' ')).toMatch(/steps come unevenly/u);
  });

  it('leaves out the steps that carry an eval printed in the output, and says how many', () => {
    const times = Array.from({ length: 100 }, (_, i) => ((i + 1) % 25 === 0 ? 400 : 100 + (i % 3)));
    const samples: MetricSample[] = [];
    toPoints(times).forEach((p) => {
      if (p.step % 25 === 0) samples.push({ step: null, tMs: p.tMs - 1, name: 'eval_loss', value: 2, source: 'text', kind: 'eval' });
      samples.push({ step: p.step, tMs: p.tMs, name: 'step_time_ms', value: p.stepTimeMs, source: 'text', kind: 'train' });
    });
    const summary = summarizeMetrics(samples);
    expect(summary.outlierSteps).toBe(4);
    expect(summary.outliers).toMatchObject({ marked: 4, byUser: 0, byRule: 0 });
    const training = times.filter((_, i) => (i + 1) % 25 !== 0);
    expect(summary.stepTimeMs.median).toBe(median(training));
    expect(summary.stepTimeMs.medianWithOutliers).toBe(median(times));
  });

  it('leaves out steps the user names', () => {
    const split = splitSteadyState(toPoints(Array(20).fill(10)), { kind: 'auto' }, { userSteps: new Set([5, 6]) });
    expect(split.outliers.map((i) => i + 1)).toEqual([5, 6]);
  });

  it('drops at most a small fixed share by the symmetric rule, and only flags the rest', () => {
    fc.assert(
      fc.property(flatSeries(20), fc.array(fc.nat(), { minLength: 1, maxLength: 30 }), (input, at) => {
        const times = flat(input);
        for (const a of at) times[a % times.length] = times[a % times.length]! * 4;
        const split = splitSteadyState(toPoints(times), { kind: 'steps', steps: 0 });
        expect(split.outliers.length).toBeLessThanOrEqual(Math.floor(times.length * 0.02));
      }),
    );
  });
});

describe('real logs: the step time agrees with a hand count within 1 %', () => {
  /**
   * Counted by reading each log: the median of the printed step times, leaving out the first step
   * where it is a start-up step (several times the rest) and steps that also ran an eval.
   */
  const HAND_COUNTS: ReadonlyArray<{ log: string; firstIsStartUp: boolean; warmupSteps: number }> = [
    { log: 'nanogpt-1.log', firstIsStartUp: true, warmupSteps: 1 },
    { log: 'nanogpt-2.log', firstIsStartUp: false, warmupSteps: 0 },
    // Its first step is marked by the script itself (mfu -100 %), and is an eval step too.
    { log: 'nanogpt-3.log', firstIsStartUp: true, warmupSteps: 1 },
    { log: 'llmc-1.log', firstIsStartUp: true, warmupSteps: 1 },
    { log: 'keras-1.log', firstIsStartUp: false, warmupSteps: 0 },
    { log: 'megatron-1.log', firstIsStartUp: true, warmupSteps: 10 },
    { log: 'megatron-deepspeed-1.log', firstIsStartUp: false, warmupSteps: 0 },
    { log: 'torchvision-1.log', firstIsStartUp: false, warmupSteps: 0 },
  ];
  for (const { log, firstIsStartUp, warmupSteps } of HAND_COUNTS) {
    it(log, () => {
      const collector = new MetricsCollector({ metricRegex: '' });
      const text = readCapturedFixture('training-logs', log);
      const samples = [...collector.push(text, 0), ...collector.end(0)];
      const evalSteps = new Set(samples.filter((s) => s.kind === 'eval' && s.step !== null).map((s) => s.step));
      const printed = samples.filter((s) => s.kind === 'train' && s.name === 'step_time_ms' && s.step !== null);
      const hand = median(printed.filter((s, i) => !(firstIsStartUp && i === 0) && !evalSteps.has(s.step)).map((s) => s.value));
      const summary = summarizeMetrics(samples);
      expect(Math.abs(summary.stepTimeMs.median! / hand - 1)).toBeLessThan(0.01);
      expect(summary.warmup?.steps).toBe(warmupSteps);
    });
  }
});
