// The speed verdict is calibrated: A/A sweeps (run-to-run sd 1-5 %, step sd 1-5 %, 2-10 repeats, no drift, a steady
// drift, drift between rounds) get a faster/slower verdict at most 5 % of the time at every n, and a 10 % change is
// found at 3 repeats with 2 % run-to-run noise. The table in docs/statistics.md is this simulation's (bench/statistics.ts).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AA_TRIALS,
  calibrationTable,
  gaussian,
  MEDIAN_SD_FACTOR,
  POWER_TRIALS,
  REPEATS,
  RUN_SDS,
  runScenario,
  scenarioSeed,
  simulateSweep,
  STEP_SDS,
  STEPS_PER_RUN,
  type Scenario,
} from '../../../bench/verdictSimulation.js';
import { compareRuns } from '../../../electron/core/compare/compare.js';
import { seededRandom } from '../../../electron/core/compare/random.js';
import { compareSpeeds, type RunSpeed } from '../../../electron/core/compare/verdict.js';
import { qualityGate, run as runSchema, type Run } from '../../../electron/shared/api.js';
import { REPO_ROOT } from '../../helpers/tempCore.js';

/** Two standard errors of a 5 % rate over `trials`: the simulation's own error. */
const simulationError = (trials: number) => 2 * Math.sqrt((0.05 * 0.95) / trials);

describe('calibration: A/A sweeps through the comparison’s verdict', () => {
  const table = calibrationTable();

  it('gives a false faster/slower verdict at most 5 % (± simulation error) in every cell, at every n', () => {
    for (const cell of table.aa) expect(cell.falseRate, JSON.stringify(cell.scenario)).toBeLessThanOrEqual(0.05 + simulationError(AA_TRIALS));
  });

  it('at most 5 % over all cells together', () => {
    const trials = table.aa.reduce((n, c) => n + c.trials, 0);
    const falses = table.aa.reduce((n, c) => n + c.falseRate * c.trials, 0);
    expect(falses / trials).toBeLessThanOrEqual(0.05);
  });

  it('finds a 10 % change at 3 repeats when run-to-run noise is 2 %', () => {
    const cell = table.power.find((c) => c.scenario.effect === 1.1 && c.scenario.repeats === 3 && c.scenario.runSd === 0.02)!;
    expect(cell.power).toBeGreaterThanOrEqual(0.9);
  });

  it('never calls a 5 % change "same" within ±2 % more than 5 % of the time', () => {
    for (const cell of table.power) expect(cell.falseSame, JSON.stringify(cell.scenario)).toBeLessThanOrEqual(0.05 + simulationError(POWER_TRIALS));
  });

  it('keeps runs apart in time (two sessions, sd 3 % between them) under 5 %, where judging them as interleaved would not', () => {
    const apart = table.aa.filter((c) => c.scenario.drift === 'apart');
    expect(apart).toHaveLength(RUN_SDS.length * STEP_SDS.length * REPEATS.length);
    for (const cell of apart) expect(cell.falseRate, JSON.stringify(cell.scenario)).toBeLessThanOrEqual(0.05);
    const untimed = table.apartUntimed.map((c) => c.falseRate);
    expect(untimed.reduce((a, b) => a + b, 0) / untimed.length).toBeGreaterThan(0.2);
  });

  it('still finds a change beyond the allowance across sessions: +20 % at 5 repeats, 2 % run-to-run noise', () => {
    expect(table.apartPower.find((c) => c.scenario.repeats === 5)!.power).toBeGreaterThanOrEqual(0.8);
  });

  it('is the table docs/statistics.md shows', () => {
    const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs/statistics.md'), 'utf8');
    expect(doc).toContain(table.markdown);
  });
});

describe('the simulation stands for the real thing', () => {
  it('draws a run’s steady median with the spread of a real median of real steps', () => {
    const normal = gaussian(seededRandom(7));
    const medians: number[] = [];
    for (let run = 0; run < 2000; run++) {
      const steps = Array.from({ length: STEPS_PER_RUN }, () => normal()).sort((a, b) => a - b);
      medians.push((steps[STEPS_PER_RUN / 2 - 1]! + steps[STEPS_PER_RUN / 2]!) / 2);
    }
    const sd = Math.sqrt(medians.reduce((s, m) => s + m * m, 0) / medians.length);
    expect(sd / MEDIAN_SD_FACTOR).toBeGreaterThan(0.93);
    expect(sd / MEDIAN_SD_FACTOR).toBeLessThan(1.07);
  });

  it.each<Scenario>([
    { runSd: 0.02, stepSd: 0.02, repeats: 5, drift: 'rounds', effect: 1.03 },
    { runSd: 0.02, stepSd: 0.02, repeats: 3, drift: 'apart', effect: 1.08 },
  ])('gives the verdicts compareRuns gives for the same runs: the simulation goes through the comparison’s own code (%o)', (scenario) => {
    const normal = gaussian(seededRandom(scenarioSeed(scenario)));
    const gate = qualityGate.parse({ enabled: false });
    const seen = new Set<string>();
    for (let trial = 0; trial < 100; trial++) {
      const { baseline, candidate } = simulateSweep(scenario, normal);
      let id = 0;
      const asRun =
        (config: string, configIndex: number) =>
        (speed: RunSpeed): Run =>
          runSchema.parse({
            id: ++id,
            workloadId: null,
            workloadName: 'stand-in',
            status: 'succeeded',
            exitCode: 0,
            signal: null,
            exitClass: 'ok',
            exitReason: null,
            startedAt: new Date(Date.UTC(2026, 10, 21, 10) + speed.startedAtMs!).toISOString(),
            endedAt: new Date(Date.UTC(2026, 10, 21, 10) + speed.startedAtMs! + 50_000).toISOString(),
            command: ['python', 'train.py'],
            cwd: '/tmp',
            config: { change: config },
            env: {},
            pid: null,
            outputBytes: 0,
            summary: {
              steps: 100,
              throughput: { median: speed.throughput, iqr: null, unit: 'steps/s' },
              stepTimeMs: { median: null },
              finalLoss: null,
              nanDetected: false,
              gpu: null,
              host: null,
            },
            gpuSettings: null,
            sweepId: 1,
            configIndex,
            repeatIndex: speed.round ?? null,
          });
      const runs = [...baseline.map(asRun('off', 0)), ...candidate.map(asRun('on', 1))];
      const row = compareRuns(runs, { groupBy: 'config', gate, now: new Date(0) }).rows[1]!;
      const direct = compareSpeeds(candidate, baseline, { minEffect: 0.02 });
      expect(row.speedup.verdict).toBe(direct.verdict);
      expect(row.speedup.ratio).toBeCloseTo(direct.ratio!, 12);
      seen.add(direct.verdict);
    }
    // Both ways of ending are exercised, so agreement is not agreement on one answer.
    expect(seen.size).toBeGreaterThan(1);
  });

  it('is seeded: the same scenario gives the same counts', () => {
    const scenario: Scenario = { runSd: 0.02, stepSd: 0.01, repeats: 3, drift: 'none', effect: 1 };
    expect(runScenario(scenario, 300, 11)).toEqual(runScenario(scenario, 300, 11));
  });
});
