// Runs compared across time: two sweeps of identical code, minutes or days apart, were read "faster" 1.24x where the
// machine had drifted between them (an A/A of a tune's own baseline sides). Runs that did not interleave are told
// apart only beyond a stated shift of the machine; runs that interleaved are judged as before.
import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../../electron/core/compare/compare.js';
import { verdictText } from '../../../electron/core/export/format.js';
import { APART_SHIFT_ALLOWANCE, compareSpeeds, type RunSpeed } from '../../../electron/core/compare/verdict.js';
import { IMPORTED_COMMAND } from '../../../electron/shared/api/runs.js';
import { qualityGate, type Run } from '../../../electron/shared/api.js';
import { recordedRun } from '../../helpers/runRecord.js';

const MINUTE = 60_000;
const MORNING = Date.UTC(2026, 10, 29, 10, 0);
const AFTERNOON = Date.UTC(2026, 10, 29, 14, 0);

/** Runs at `level` ±0.5 %, one a minute from `from`. */
const side = (level: number, from: number, startedAtMs: (i: number) => number | null = (i) => from + i * MINUTE): RunSpeed[] =>
  [0.995, 1, 1.005].map((jitter, i) => ({ throughput: level * jitter, startedAtMs: startedAtMs(i) }));

describe('the speed verdict of runs that ran apart in time', () => {
  it('does not call a shift of the machine between two sessions a speedup: identical code, 6 % apart', () => {
    const verdict = compareSpeeds(side(106, AFTERNOON), side(100, MORNING), { minEffect: 0.02 });
    expect(verdict.verdict).toBe('inconclusive');
    expect(verdict.repeatsCannotDecide).toBe(true);
    expect(verdict.moreRepeats).toBeNull();
    expect(verdict.reason).toContain('ran apart in time (2026-11-29 10:00:00-10:02:00 UTC the baseline');
    expect(verdict.reason).toContain('14:00:00-14:02:00 UTC these');
    expect(verdict.reason).toContain('run both in one sweep');
    // The interval is still the runs' own: what they show, not widened by the allowance.
    expect(verdict.ci95!.low).toBeGreaterThan(1.04);
  });

  it('judges the same runs interleaved in time as before: the sweep cancels the shift, so 6 % is a speedup', () => {
    const interleaved = (offset: number) => (i: number) => MORNING + (2 * i + offset) * MINUTE;
    const verdict = compareSpeeds(side(106, 0, interleaved(1)), side(100, 0, interleaved(0)), { minEffect: 0.02 });
    expect(verdict.verdict).toBe('faster');
    expect(verdict.reason).not.toContain('apart');
  });

  it('still tells a change larger than the allowance, both ways, and says what it cleared', () => {
    const faster = compareSpeeds(side(150, AFTERNOON), side(100, MORNING), { minEffect: 0.02 });
    expect(faster.verdict).toBe('faster');
    expect(faster.reason).toContain(`clears the ±${APART_SHIFT_ALLOWANCE * 100} % allowed`);
    expect(compareSpeeds(side(70, AFTERNOON), side(100, MORNING), { minEffect: 0.02 }).verdict).toBe('slower');
  });

  it('never says "same" across sessions: the shift could hide a change as large as it', () => {
    const verdict = compareSpeeds(side(100, AFTERNOON), side(100, MORNING), { minEffect: 0.02 });
    expect(verdict.verdict).toBe('inconclusive');
  });

  it('takes an imported log as apart: when it ran is not known', () => {
    const verdict = compareSpeeds(
      side(106, 0, () => null),
      side(100, MORNING),
      { minEffect: 0.02 },
    );
    expect(verdict.verdict).toBe('inconclusive');
    expect(verdict.reason).toContain('when some of these runs ran is not known');
  });
});

describe('a comparison of two sweeps of identical code, hours apart', () => {
  let id = 0;
  const sweepRun = (sweepId: number, at: number, throughput: number, command = ['python', 'train.py']): Run =>
    recordedRun(++id, {
      startedAt: new Date(at).toISOString(),
      endedAt: new Date(at + 50_000).toISOString(),
      command,
      config: {},
      summary: {
        steps: 100,
        throughput: { median: throughput, iqr: null, unit: 'steps/s' },
        steadySteps: 90,
        stepTimeMs: { median: 1000 / throughput },
        finalLoss: 2,
        nanDetected: false,
        gpu: null,
        host: null,
      },
      sweepId,
      configIndex: 0,
      repeatIndex: 0,
    });
  const gate = qualityGate.parse({});

  it('gives the later sweep no verdict where only the machine moved', () => {
    const runs = [
      ...[100, 99.5, 100.5].map((t, i) => sweepRun(1, MORNING + i * MINUTE, t)),
      ...[106, 105.5, 106.5].map((t, i) => sweepRun(2, AFTERNOON + i * MINUTE, t)),
    ];
    const row = compareRuns(runs, { groupBy: 'config', gate, now: new Date(AFTERNOON + 60 * MINUTE) }).rows[1]!;
    expect(row.speedup.verdict).toBe('inconclusive');
    expect(row.speedup.reason).toContain('apart in time');
    expect(row.ranApart).toContain('apart in time');
    expect(verdictText(row, 0.02)).toBe('inconclusive (more runs like these cannot decide)');
  });

  it('marks no row apart whose runs interleaved with the baseline’s, nor one whose single runs say "repeat" first', () => {
    const interleaved = [100, 106, 99.5, 105.5, 100.5, 106.5].map((t, i) => sweepRun(i % 2 === 0 ? 3 : 4, MORNING + i * MINUTE, t));
    const rows = compareRuns(interleaved, { groupBy: 'config', gate, now: new Date(AFTERNOON) }).rows;
    expect(rows[1]!.ranApart).toBeNull();
    expect(rows[1]!.speedup.verdict).toBe('faster');
    const single = compareRuns([sweepRun(5, MORNING, 100), sweepRun(6, AFTERNOON, 106)], { groupBy: 'config', gate, now: new Date(AFTERNOON) }).rows[1]!;
    expect(single.speedup.verdict).toBe('repeat to decide');
    expect(single.ranApart).toBeNull();
  });

  it('takes imported logs as runs whose time is not known', () => {
    const imported = [IMPORTED_COMMAND, 'train.log'];
    const runs = [
      ...[100, 99.5, 100.5].map((t, i) => sweepRun(1, MORNING + i * MINUTE, t, imported)),
      ...[106, 105.5, 106.5].map((t, i) => sweepRun(2, MORNING + (i + 10) * MINUTE, t, imported)),
    ];
    const row = compareRuns(runs, { groupBy: 'config', gate, now: new Date(AFTERNOON) }).rows[1]!;
    expect(row.speedup.verdict).toBe('inconclusive');
    expect(row.speedup.reason).toContain('not known (an imported log)');
  });
});
