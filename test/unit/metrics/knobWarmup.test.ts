// The compile knob's warm-up (torch.compile's first call) is warm-up in the summary whatever its steps' speed, never throughput.
import { describe, expect, it } from 'vitest';
import { summarizeMetrics } from '../../../electron/core/metrics/summary.js';
import { knobWarmupPoints } from '../../../electron/core/metrics/steadyState.js';
import type { MetricSample } from '../../../electron/core/metrics/samples.js';

/** A log that prints each step's own time: `stepMs(step)` ms, every `every` steps (their mean), ending at the step's end. */
function stampedLog(steps: number, stepMs: (step: number) => number, every = 1): MetricSample[] {
  const list: MetricSample[] = [];
  let t = 0;
  let sinceLine = 0;
  for (let step = 1; step <= steps; step++) {
    const ms = stepMs(step);
    t += ms;
    sinceLine += ms;
    if (step % every !== 0) continue;
    list.push({ step, tMs: t, name: 'step_time_ms', value: sinceLine / every, source: 'text', kind: 'train' });
    list.push({ step, tMs: t, name: 'loss', value: 2 - step / steps, source: 'text', kind: 'train' });
    sinceLine = 0;
  }
  return list;
}

// Step 1 compiled (2.7 s); step 20 waited 5 s on a checkpoint, so the first step is not "slower than every later step".
const compiledThenStall = (step: number) => (step === 1 ? 2700 : step === 20 ? 5000 : 66 + (step % 3));

describe('the compile knob’s warm-up', () => {
  it('makes the compiling step warm-up even where a later stall is slower (the automatic rule alone keeps it)', () => {
    const samples = stampedLog(40, compiledThenStall);
    const alone = summarizeMetrics(samples);
    expect(alone.warmup?.steps).toBe(0);

    const summary = summarizeMetrics(samples, { knobWarmupUntilTMs: 2650 });
    expect(summary.warmup).toMatchObject({ steps: 1, seconds: 2.7 });
    expect(summary.warmup?.reason).toBe("the first step only: torch.compile's first call (the compile knob) ran until 2.6 s into the run");
    expect(summary.steadySteps).toBe(alone.steadySteps! - 1);
  });

  it('takes every logged point whose steps were under way before it ended, and no more', () => {
    // One line every 10 steps; the compile ended in step 14, within the second line's steps.
    const samples = stampedLog(200, (step) => (step <= 14 ? 400 : 60), 10);
    const summary = summarizeMetrics(samples, { knobWarmupUntilTMs: 14 * 400 - 100 });
    expect(summary.warmup?.steps).toBe(20);
    expect(summary.warmup?.reason).toMatch(/^the first 2 logged steps \(steps 10–20\): torch\.compile's first call/u);
  });

  it('says so where it ended before the first timed step began (a first line is timed by the next)', () => {
    // Lines as they arrive, no time of their own: the first line, 30 ms after the compiling ended (its backward and
    // optimizer step), only starts the clock (as torch 2.15 ran tune_mlp.py).
    const samples: MetricSample[] = [];
    for (let step = 1; step <= 40; step++) samples.push({ step, tMs: 3000 + (step - 1) * 66, name: 'loss', value: 1, source: 'text', kind: 'train' });
    const summary = summarizeMetrics(samples, { knobWarmupUntilTMs: 2970 });
    expect(summary.warmup?.steps).toBe(0);
    expect(summary.warmup?.reason).toBe(
      "none among the timed steps: torch.compile's first call (the compile knob) ended 3.0 s into the run, before step 2, the first timed step, began",
    );
    expect(summary.stepTimeMs.median).toBe(66);
  });

  it('leaves a longer warm-up the automatic rule finds as it is', () => {
    // Compiling in step 1, then 8 more slow steps (the allocator, caches).
    const samples = stampedLog(100, (step) => (step === 1 ? 3000 : step <= 9 ? 300 : 60));
    const summary = summarizeMetrics(samples, { knobWarmupUntilTMs: 2900 });
    expect(summary.warmup?.steps).toBe(9);
    expect(summary.warmup?.reason).not.toMatch(/torch\.compile/u);
  });

  it('is counted from where each point’s time began: the line before it, or its steps’ own time', () => {
    const points = [
      { step: 1, tMs: 1000, stepTimeMs: 1000 },
      { step: 2, tMs: 1100, stepTimeMs: 100 },
      { step: 3, tMs: 1200, stepTimeMs: 100 },
    ];
    expect(knobWarmupPoints(points, 0)).toBe(0);
    expect(knobWarmupPoints(points, 999)).toBe(1);
    expect(knobWarmupPoints(points, 1000)).toBe(1);
    expect(knobWarmupPoints(points, 1001)).toBe(2);
    expect(knobWarmupPoints(points, 5000)).toBe(3);
    // Timed by the clock from an untimed first line (step 1 at 1000 ms): step 2 began there, whatever its step count.
    const clocked = [{ step: 2, tMs: 1061, stepTimeMs: 61, beganMs: 1000 }];
    expect(knobWarmupPoints(clocked, 970)).toBe(0);
    expect(knobWarmupPoints(clocked, 1001)).toBe(1);
  });
});
