// How a run's metric charts may be drawn (issue 28, item 5): smoothed as TensorBoard smooths, against steps, tokens or
// time; and New run's address that copies a run (item 12).
import { describe, expect, it } from 'vitest';
import { hasTimes, MetricSeriesSet, onXAxis, type StepPoint } from '../../renderer/src/shared/runRecord/metricSeries.js';
import { smoothLine } from '../../renderer/src/shared/lineChart.js';
import { parseHash, viewHash } from '../../renderer/src/route.js';

describe('smoothLine', () => {
  it('is the line itself at 0, and a debiased moving average above: a constant stays constant from the first point', () => {
    const flat = [1, 2, 3].map((x) => ({ x, y: 5 }));
    expect(smoothLine(flat, 0)).toEqual(flat);
    for (const point of smoothLine(flat, 0.9)) expect(point.y).toBeCloseTo(5, 12);
  });

  it('follows a step change slowly, in proportion to its weight, and lets a NaN pass without spoiling the average', () => {
    const points = [0, 0, 10, Number.NaN, 10].map((y, i) => ({ x: i, y }));
    const smoothed = smoothLine(points, 0.5);
    // After (0, 0, 10): 0.5·(0.5·0 + 0.5·0) + 0.5·10 = 5, debiased by 1 − 0.5³ = 0.875.
    expect(smoothed[2]!.y).toBeCloseTo(5 / 0.875, 12);
    expect(smoothed[3]!.y).toBeNaN();
    expect(smoothed[4]!.y).toBeGreaterThan(smoothed[2]!.y);
    expect(smoothed[4]!.y).toBeLessThan(10);
  });
});

describe('onXAxis', () => {
  const data: StepPoint[] = [
    { x: 1, y: 3, t: 0.5 },
    { x: 2, y: 2.9, t: 1.5 },
    // A restarted counter counted on by the engine still prints in time order; a clock that stands still keeps one point.
    { x: 3, y: 2.8, t: 1.5 },
  ];

  it('draws against steps, tokens (step × tokens per step) or seconds since the start', () => {
    expect(onXAxis(data, 'step', null).map((p) => p.x)).toEqual([1, 2, 3]);
    expect(onXAxis(data, 'tokens', 4096).map((p) => p.x)).toEqual([4096, 8192, 12288]);
    expect(onXAxis(data, 'seconds', null)).toEqual([
      { x: 0.5, y: 3 },
      { x: 1.5, y: 2.8 },
    ]);
  });

  it('a log without times (an import of unstamped lines) has no time axis', () => {
    const set = new MetricSeriesSet();
    set.add([
      { step: 1, name: 'loss', value: 3, kind: 'train', source: 'text', tMs: 0 },
      { step: 2, name: 'loss', value: 2, kind: 'train', source: 'text', tMs: 0 },
    ]);
    expect(hasTimes(set.view())).toBe(false);
  });
});

describe("New run's address that copies a run", () => {
  it('round-trips, and anything else is a plain New run', () => {
    expect(parseHash('#/new?from=12')).toEqual({ kind: 'new', from: 12 });
    expect(viewHash({ kind: 'new', from: 12 })).toBe('#/new?from=12');
    expect(parseHash('#/new?from=0')).toEqual({ kind: 'new' });
    expect(viewHash({ kind: 'new' })).toBe('#/new');
  });
});

describe('MetricSeriesSet of a long run fetched thinned', () => {
  it('says how many points each metric has in all, live points counted on top, while drawing the thinned ones', () => {
    const set = new MetricSeriesSet();
    const point = (step: number, name = 'grad_norm') => ({ step, tMs: step, name, value: 1, kind: 'train' as const, source: 'text' as const });
    set.add([point(1), point(500_000), point(1_000_000)]);
    set.setStored([{ name: 'grad_norm', kind: 'train', source: 'text', samples: 1_000_000 }]);
    expect(set.view().metrics.find((entry) => entry.name === 'grad_norm')).toMatchObject({ samples: 1_000_000 });
    expect(set.view().metrics.find((entry) => entry.name === 'grad_norm')!.data).toHaveLength(3);
    set.add([point(1_000_001)]);
    expect(set.view().metrics.find((entry) => entry.name === 'grad_norm')!.samples).toBe(1_000_001);
    expect(set.size).toBe(1_000_001);
    // Fetched whole (a short run), a metric's count is its points.
    const whole = new MetricSeriesSet();
    whole.add([point(1), point(2)]);
    expect(whole.view().metrics[0]!.samples).toBe(2);
  });
});
