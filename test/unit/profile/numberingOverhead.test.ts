// Profile steps numbered as the script prints them, and the profiler's overhead spread over the phases it inflates.
import { describe, expect, it } from 'vitest';
import { scriptStepOffset } from '../../../electron/core/profile/numbering.js';
import { profilerOverhead } from '../../../electron/core/profile/overhead.js';
import type { StepRecord } from '../../../electron/core/profile/profileFile.js';

describe('scriptStepOffset', () => {
  const steps = [11, 12, 13, 14].map((step, i) => ({ step, endedAtMs: 1_000 + 100 * i }));

  it("matches each step to the number the script printed after it: nanoGPT's iter N ends the profiler's step N+1", () => {
    const marks = [10, 11, 12, 13].map((step, i) => ({ step, atMs: 1_000 + 100 * i + 3 }));
    expect(scriptStepOffset(steps, marks)).toBe(-1);
  });

  it('needs only the steps the script logged (every 2nd here)', () => {
    expect(
      scriptStepOffset(steps, [
        { step: 10, atMs: 1_002 },
        { step: 12, atMs: 1_203 },
      ]),
    ).toBe(-1);
  });

  it("matches the last step's line printed once the profiler has written its results (the window's end)", () => {
    // sleepy_loader prints every 10th step: its step 20 line comes after the trace is written, seconds after step 20 ended.
    expect(scriptStepOffset(steps, [{ step: 14, atMs: 1_300 + 2_500 }], 1_300 + 2_490)).toBe(0);
    expect(scriptStepOffset(steps, [{ step: 14, atMs: 1_300 + 2_500 }])).toBeNull();
  });

  it('gives up when nothing matches, or the matches disagree', () => {
    expect(scriptStepOffset(steps, [])).toBeNull();
    expect(
      scriptStepOffset(steps, [
        { step: 500, atMs: 1_002 },
        { step: 7, atMs: 1_103 },
        { step: 90, atMs: 1_204 },
      ]),
    ).toBeNull();
  });
});

function step(phases: Partial<StepRecord>, opCounts: StepRecord['opCounts']): StepRecord {
  return {
    step: 1,
    endedAt: null,
    stepMs: 0,
    dataLoadingMs: 0,
    inputMs: 0,
    forwardMs: 0,
    backwardMs: 0,
    optimizerMs: 0,
    otherMs: 0,
    noGradForwardMs: 0,
    saveMs: 0,
    kept: true,
    leftOut: null,
    opCounts,
    ...phases,
  };
}

describe('profilerOverhead', () => {
  // 78.8 ms profiled against 68.3 ms unprofiled (issue 29's MLP): backward recorded most operators.
  const phases = { stepMs: 78.8, dataLoadingMs: 20.9, inputMs: 0, forwardMs: 15, backwardMs: 30, optimizerMs: 8, otherMs: 4.9 };
  const kept = [step({}, { data: 100, input: 0, forward: 300, backward: 1200, optimizer: 400, other: 100 })];

  it('spreads the added time over the operators each phase recorded, and scales the rest to the unprofiled step', () => {
    const overhead = profilerOverhead(phases, kept, { stepMs: 68.3, source: 'this run' })!;
    expect(overhead.addedMs).toBeCloseTo(10.5, 6);
    expect(overhead.pct).toBeCloseTo((100 * 10.5) / 68.3, 6);
    expect(overhead.perOpUs).toBeCloseTo((10.5 / 2100) * 1000, 6);
    const estimated = overhead.estimatedPhases!;
    const total = estimated.dataLoadingMs! + estimated.inputMs! + estimated.forwardMs! + estimated.backwardMs! + estimated.optimizerMs! + estimated.otherMs!;
    expect(total).toBeCloseTo(68.3, 6);
    // Data loading recorded few operators: its share of the step grows once the profiler's cost is taken out.
    expect(estimated.dataLoadingMs! / 68.3).toBeGreaterThan(phases.dataLoadingMs / phases.stepMs);
    expect(overhead.statement).toMatch(
      /^the profiler made each step 15\.4 % slower: 78\.8 ms per profiled step against 68\.3 ms unprofiled \(this run's steady median\)/u,
    );
    expect(overhead.statement).toContain('backward carries most of it (+6.0 ms of its 30.0 ms)');
  });

  it('says there is none within noise, and none when the run had no unprofiled steps', () => {
    expect(profilerOverhead(phases, kept, { stepMs: 78, source: 'this run' })!.statement).toMatch(/^no measurable profiler overhead/u);
    expect(profilerOverhead(phases, kept, null)).toBeNull();
  });
});
