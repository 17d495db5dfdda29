// Steps a profiler was on for are left out of a run's steady-state timing, and counted.
import { describe, expect, it } from 'vitest';
import { summarizeMetrics } from '../../../electron/core/metrics/summary.js';
import type { MetricSample } from '../../../electron/core/metrics/samples.js';

/** 60 steps of 100 ms, except steps 31-40, which the profiler slowed to 400 ms. */
function samples(): MetricSample[] {
  const list: MetricSample[] = [];
  let t = 0;
  for (let step = 1; step <= 60; step++) {
    const ms = step > 30 && step <= 40 ? 400 : 100;
    t += ms;
    list.push({ step, tMs: t, name: 'step_time_ms', value: ms, source: 'channel', kind: 'train' });
  }
  return list;
}

describe('summarizeMetrics with a profiled span', () => {
  it('leaves out exactly the steps that overlap the span', () => {
    const all = samples();
    // The span opens during step 31 and closes during step 40 (as the profiler starts and stops inside steps).
    const span = { fromTMs: all[29]!.tMs + 10, toTMs: all[39]!.tMs - 10 };
    const summary = summarizeMetrics(all, { profiledSpan: span, warmup: { kind: 'steps', steps: 5 } });
    expect(summary.profiledSteps).toBe(10);
    expect(summary.stepTimeMs.median).toBe(100);
    expect(summary.outlierSteps).toBe(0);
  });

  it('keeps every step without a span', () => {
    const summary = summarizeMetrics(samples(), { warmup: { kind: 'steps', steps: 5 } });
    expect(summary.profiledSteps).toBe(0);
  });
});
