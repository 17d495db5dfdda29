// A comparison never measures two runs two ways: a run whose steps come unevenly is measured by its steady steps'
// work over their time (its median step would say 10× its pace), so once one is compared, every run is measured so.
import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../../electron/core/compare/compare.js';
import { qualityGate, type Run } from '../../../electron/shared/api.js';
import { recordedRun } from '../../helpers/runRecord.js';

const NOW = new Date('2026-11-27T12:00:00.000Z');
let nextId = 1;

function run(config: Record<string, string>, medianStep: number, overall: number, uneven: boolean, resolution: number | null = null): Run {
  return recordedRun(nextId++, {
    startedAt: NOW.toISOString(),
    endedAt: NOW.toISOString(),
    config,
    summary: {
      steps: 400,
      throughput: {
        median: uneven ? overall : medianStep,
        iqr: null,
        unit: 'steps/s',
        overall,
        uneven,
        resolution,
        overallResolution: resolution === null ? null : 0.0005,
      },
      stepTimeMs: { median: null },
      finalLoss: 1,
      nanDetected: false,
      gpu: null,
      host: null,
      lossCurve: [],
    },
  });
}

describe('a comparison holding a run whose steps come unevenly', () => {
  // Even runs: median step and work over time agree within a few per cent. The uneven run: 100 steps/s over its time.
  const runs = () => [
    run({ workers: '0' }, 52, 50, false),
    run({ workers: '0' }, 51.5, 49.6, false),
    run({ workers: '4' }, 1000, 100, true),
    run({ workers: '4' }, 104, 101, false),
  ];

  it('measures every run by work over time, and says why', () => {
    const comparison = compareRuns(runs(), { groupBy: 'config', gate: qualityGate.parse({}), now: NOW });
    const [base, workers] = comparison.rows;
    expect(base!.runs.map((r) => r.throughput)).toEqual([50, 49.6]);
    expect(workers!.runs.map((r) => r.throughput)).toEqual([100, 101]);
    expect(workers!.speedup.ratio).toBeCloseTo(Math.sqrt(100 * 101) / Math.sqrt(50 * 49.6), 6);
    expect(comparison.notes.join(' ')).toMatch(
      /Steps come unevenly in run \d+ \(bursts\): every run here is measured by its steady steps' work over their time/u,
    );
  });

  it('keeps the median step where no run is uneven, and work over time where asked', () => {
    const even = runs().filter((r) => !r.summary.throughput.uneven);
    const byMedian = compareRuns(even, { groupBy: 'config', gate: qualityGate.parse({}), now: NOW });
    expect(byMedian.rows[0]!.runs.map((r) => r.throughput)).toEqual([52, 51.5]);
    expect(byMedian.notes.join(' ')).not.toMatch(/unevenly/u);
    const asked = compareRuns(even, { groupBy: 'config', gate: qualityGate.parse({}), now: NOW, measureBy: 'workOverTime' });
    expect(asked.rows[0]!.runs.map((r) => r.throughput)).toEqual([50, 49.6]);
  });

  it('measures every run by work over time where whole-ms timing cannot place the median step, with the finer grain', () => {
    // 18 ms steps timed by arrival: the median is known to 1/18 (5.6 %), the 40 steps' sum to 1 ms at each end.
    const coarse = [
      run({ amp: 'off' }, 55.6, 56.2, false, 1 / 18),
      run({ amp: 'off' }, 55.6, 56.4, false, 1 / 18),
      run({ amp: 'on' }, 55.6, 60.1, false, 1 / 18),
      run({ amp: 'on' }, 55.6, 60.3, false, 1 / 18),
    ];
    const comparison = compareRuns(coarse, { groupBy: 'config', gate: qualityGate.parse({}), now: NOW });
    expect(comparison.rows[1]!.runs.map((r) => [r.throughput, r.resolution])).toEqual([
      [60.1, 0.0005],
      [60.3, 0.0005],
    ]);
    expect(comparison.rows[1]!.speedup.verdict).toBe('faster');
    expect(comparison.notes.join(' ')).toMatch(/too coarse to place a median step within ±1 %/u);
  });
});
