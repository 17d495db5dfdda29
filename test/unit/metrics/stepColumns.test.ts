// Samples grouped by step as columns: the same steps, times and last values a Map per step gave, and the same decimation.
import { describe, expect, it } from 'vitest';
import { decimate, decimateColumns } from '../../../electron/core/ingest/series.js';
import type { MetricSample } from '../../../electron/core/metrics/samples.js';
import { SampleColumns } from '../../../electron/core/store/sampleColumns.js';
import { groupByStep } from '../../../electron/core/metrics/stepColumns.js';

const sample = (step: number | null, tMs: number, name: string, value: number): MetricSample => ({ step, tMs, name, value, source: 'text', kind: 'train' });

/** Every sample picked. */
function grouped(samples: readonly MetricSample[], names: readonly string[]) {
  const columns = SampleColumns.from(samples);
  return groupByStep(
    columns,
    columns.where(() => true),
    names,
  );
}

describe('groupByStep', () => {
  it('gives each step once in step order, its latest time, and the last value of each name asked for', () => {
    const columns = grouped(
      [
        sample(3, 30, 'loss', 1),
        sample(1, 12, 'loss', 2),
        sample(1, 10, 'step_time_ms', 5),
        sample(null, 99, 'loss', 9),
        sample(3, 25, 'loss', 0.5),
        sample(2, 20, 'lr', 1),
      ],
      ['loss', 'step_time_ms'],
    );
    expect([...columns.step]).toEqual([1, 2, 3]);
    expect([...columns.tMs]).toEqual([12, 20, 30]);
    // Step 3's later redraw replaces its earlier loss; a step without a name's value holds NaN.
    expect([...columns.values.get('loss')!]).toEqual([2, Number.NaN, 0.5]);
    expect([...columns.values.get('step_time_ms')!]).toEqual([5, Number.NaN, Number.NaN]);
    // Names not asked for, or that no sample has, get no column.
    expect(columns.values.has('lr')).toBe(false);
  });

  it('keeps a non-finite last value (a redraw that printed nan replaces a finite one)', () => {
    const columns = grouped([sample(1, 0, 'loss', 1), sample(1, 0, 'loss', Number.NaN)], ['loss']);
    expect(Number.isNaN(columns.values.get('loss')![0]!)).toBe(true);
  });

  it('reads only the samples picked', () => {
    const all = SampleColumns.from([sample(1, 0, 'loss', 1), sample(2, 0, 'lr', 3)]);
    const columns = groupByStep(
      all,
      all.where((i) => all.names[all.name[i]!] === 'lr'),
      ['lr'],
    );
    expect([...columns.step]).toEqual([2]);
  });
});

describe('decimateColumns', () => {
  it('keeps the same points as decimate on pairs', () => {
    const points: Array<[number, number]> = Array.from({ length: 25_000 }, (_, i) => [i * 2, Math.sin(i / 97) + (i % 1013 === 0 ? 9 : 0)]);
    const x = Float64Array.from(points, (p) => p[0]);
    const y = Float64Array.from(points, (p) => p[1]);
    expect(decimateColumns(x, y)).toEqual(decimate(points));
    expect(decimateColumns(x.subarray(0, 500), y.subarray(0, 500))).toEqual(decimate(points.slice(0, 500)));
  });
});
