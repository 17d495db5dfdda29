// A tune step's quality gate is judged over every run of its rounds, as its speed verdict is: a round of one run a
// side judged alone (no spread to weigh) failed PyTorch's Quickstart's autocast step for a loss that differs by chance.
import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../electron/core/compare/compare.js';
import { gateOverRounds } from '../../electron/core/tune/ladder.js';
import { qualityGate, type Run } from '../../electron/shared/api.js';
import { recordedRun } from '../helpers/runRecord.js';

const GATE = qualityGate.parse({});
const NOW = new Date('2026-11-29T12:00:00.000Z');
let nextId = 1;

/** A run of a round (sweep) of a step: config 0 the side it is measured against, 1 the knob; its final loss `loss`. */
function roundRun(sweepId: number, configIndex: number, repeat: number, loss: number): Run {
  return recordedRun(nextId++, {
    command: ['python', 'quickstart.py'],
    config: { 'knob.autocast': configIndex === 0 ? 'off' : 'bf16' },
    summary: {
      steps: 200,
      throughput: { median: 12_000, iqr: 100, unit: 'samples/s', blocks: [] },
      stepTimeMs: { median: 0.08 },
      finalLoss: loss,
      nanDetected: false,
      gpu: null,
      host: null,
      lossCurve: [
        [100, loss + 0.5],
        [200, loss],
      ],
    },
    sweepId,
    configIndex,
    repeatIndex: repeat,
  });
}

describe("a tune step's gate over its rounds", () => {
  // Final losses of the Quickstart's autocast step (torch 2.15, CPU): two rounds as one tune measured them (2 and 1
  // runs a side), then the last round of another tune's, which alone read +0.0935 against +0.05 and failed its step.
  const rounds = [
    [roundRun(1, 0, 0, 1.817714), roundRun(1, 1, 0, 1.889459), roundRun(1, 1, 1, 1.860882), roundRun(1, 0, 1, 1.873159)],
    [roundRun(2, 0, 0, 1.783682), roundRun(2, 1, 0, 1.865358)],
    [roundRun(3, 0, 0, 1.755), roundRun(3, 1, 0, 1.8485)],
  ];
  const all = rounds.flat();
  const compare = (request: Record<string, unknown>) => {
    const sweepIds = request.sweepIds as number[];
    return compareRuns(
      all.filter((r) => sweepIds.includes(r.sweepId!)),
      { groupBy: 'config', gate: GATE, now: NOW, baselineRunId: request.baselineRunId as number | undefined },
    );
  };
  const rowsOf = (sweepId: number) => compare({ sweepIds: [sweepId] }).rows.filter((r) => r.configIndex === 1);
  const measured = {
    sweepIds: [1, 2, 3],
    baseRunIds: all.filter((r) => r.configIndex === 0).map((r) => r.id),
    candidateRunIds: all.filter((r) => r.configIndex === 1).map((r) => r.id),
    rows: [1, 2, 3].flatMap(rowsOf),
  };

  it('weighs the spread of all its runs, where one round alone failed it', () => {
    expect(rowsOf(3)[0]!.gate).toBe('fail');
    const gate = gateOverRounds(compare, measured, { gate: GATE, minEffect: 0.02 });
    expect(gate.gate).toBe('pass');
    expect(gate.reason).toMatch(/^loss at step 200 \+0\.\d+ against the baseline \(.*; allowed \+0\.0500 and the runs' own spread, ±0\.\d+ at 95 %\)/u);
  });

  it('is the round’s own where there is one round', () => {
    const one = { ...measured, sweepIds: [3], baseRunIds: [rounds[2]![0]!.id], candidateRunIds: [rounds[2]![1]!.id], rows: rowsOf(3) };
    expect(gateOverRounds(compare, one, { gate: GATE, minEffect: 0.02 }).gate).toBe('fail');
  });
});
