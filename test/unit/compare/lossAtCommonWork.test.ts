// A tune's loss column, read at the work every row's runs reached: runs of fast steps stop after a stretch of time,
// so a faster config goes further and its final loss is lower for that alone. The figures are the Lightning backbone
// example's tune (torch 2.15, CPU): a baseline run on a busy machine stopped at step 146 at 1.51, the workers runs at
// steps 753-766 at 0.443.
import { describe, expect, it } from 'vitest';
import { lossesAtCommonWork } from '../../../electron/core/compare/compare.js';
import type { Run } from '../../../electron/shared/api.js';
import { recordedRun } from '../../helpers/runRecord.js';

let nextId = 1;
function runWithCurve(curve: Array<[number, number]>, config: Record<string, string> = {}, samplesPerStep: number | null = null): Run {
  return recordedRun(nextId++, {
    config,
    summary: {
      steps: curve.at(-1)?.[0] ?? 0,
      throughput: { median: 200, iqr: 10, unit: 'steps/s', blocks: [] },
      stepTimeMs: { median: 5 },
      finalLoss: curve.at(-1)?.[1] ?? null,
      nanDetected: false,
      gpu: null,
      host: null,
      samplesPerStep,
      lossCurve: curve,
    },
  });
}

describe('losses at the work every row reached', () => {
  it("reads each row's runs at the furthest step of its shortest row, between the points of its curve", () => {
    const baseline = [
      runWithCurve([
        [50, 2.0],
        [100, 1.8],
        [146, 1.51],
      ]),
    ];
    const workers = [
      runWithCurve([
        [50, 2.1],
        [150, 1.3],
        [766, 0.443],
      ]),
      runWithCurve([
        [50, 2.1],
        [150, 1.5],
        [753, 0.443],
      ]),
    ];
    const common = lossesAtCommonWork([baseline, workers]);
    expect(common?.at).toBe('step 146');
    // 2.1 + (1.3 - 2.1) * 96/100 = 1.332, 2.1 + (1.5 - 2.1) * 96/100 = 1.524: their median 1.428.
    expect(common?.losses[0]).toBeCloseTo(1.51, 10);
    expect(common?.losses[1]).toBeCloseTo(1.428, 10);
  });

  it('a row without a loss neither limits the work nor gets one; a single row with a loss keeps its final one', () => {
    const withLoss = [
      runWithCurve([
        [10, 2],
        [30, 1],
      ]),
    ];
    const longer = [
      runWithCurve([
        [10, 2],
        [60, 0.5],
      ]),
    ];
    const common = lossesAtCommonWork([withLoss, [], [runWithCurve([])], longer]);
    // 2 + (0.5 - 2) * 20/50 = 1.4.
    expect(common).toEqual({ at: 'step 30', losses: [1, null, null, 1.4] });
    expect(lossesAtCommonWork([withLoss, [runWithCurve([])]])).toEqual({ at: null, losses: [1, null] });
  });

  it('reads batches of another size at equal samples; final losses where the work of a step is not known', () => {
    const small = [
      runWithCurve(
        [
          [100, 2],
          [400, 1],
        ],
        { batch: '32' },
        32,
      ),
    ];
    const large = [
      runWithCurve(
        [
          [50, 2],
          [100, 1.5],
        ],
        { batch: '64' },
        64,
      ),
    ];
    expect(lossesAtCommonWork([small, large])).toEqual({ at: '6,400 samples', losses: [2 - 100 / 300, 1.5] });
    const unknown = [runWithCurve([[100, 1]], { batch: '64' })];
    expect(lossesAtCommonWork([[runWithCurve([[100, 1.2]], { batch: '32' })], unknown])).toEqual({ at: null, losses: [1.2, 1] });
  });
});
