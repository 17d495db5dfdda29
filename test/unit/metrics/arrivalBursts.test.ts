// Lines timed by their arrival come in bursts: a loader with workers hands over several batches at once, and a pty
// read returns every line written since the last one. Lines read together carry one time; the steps they report
// took the time since the previous read between them. Before, the first line of each burst was given the whole gap
// for one step and the rest none: 4 steps of 15 ms read in bursts every 60 ms summed up as 60 ms steps, 16.7 steps/s
// instead of 66.7.
import { describe, expect, it } from 'vitest';
import type { MetricSample } from '../../../electron/core/metrics/samples.js';
import { summarizeMetrics } from '../../../electron/core/metrics/summary.js';

/** `steps` steps of `stepMs` each, their lines read `perRead` at a time (each read at the time its last step ended). */
function readInBursts(steps: number, stepMs: number, perRead: number): MetricSample[] {
  const list: MetricSample[] = [];
  const start = 1_732_712_345_000;
  for (let step = 1; step <= steps; step++) {
    const readAt = start + Math.ceil(step / perRead) * perRead * stepMs;
    list.push({ step, tMs: readAt, name: 'loss', value: 3 - step / steps, source: 'text', kind: 'train' });
  }
  return list;
}

describe('steps whose lines arrive in bursts', () => {
  it('share the time since the previous read, every step of the burst counted', () => {
    const summary = summarizeMetrics(readInBursts(400, 15, 4), { warmup: { kind: 'steps', steps: 8 } });
    expect(summary.stepTimeMs.median).toBe(15);
    expect(summary.throughput.median).toBeCloseTo(1000 / 15, 6);
    expect(summary.steadySteps).toBeGreaterThan(380);
  });

  it('time lines read one by one as before', () => {
    const summary = summarizeMetrics(readInBursts(400, 15, 1), { warmup: { kind: 'steps', steps: 8 } });
    expect(summary.stepTimeMs.median).toBe(15);
    expect(summary.throughput.median).toBeCloseTo(1000 / 15, 6);
  });

  it('give uneven bursts (3, then 5 lines a read) the rate they came at', () => {
    const list: MetricSample[] = [];
    let t = 1_732_712_345_000;
    let step = 0;
    for (let read = 0; read < 100; read++) {
      const lines = read % 2 === 0 ? 3 : 5;
      t += lines * 20;
      for (let k = 0; k < lines; k++) list.push({ step: ++step, tMs: t, name: 'loss', value: 1, source: 'text', kind: 'train' });
    }
    const summary = summarizeMetrics(list, { warmup: { kind: 'steps', steps: 8 } });
    expect(summary.stepTimeMs.median).toBe(20);
  });
});

describe('steps that come unevenly, each timed', () => {
  /** A loader with 4 workers feeding a fast step: 3 steps of 1 ms, then one that waits 37 ms for the next 4 batches. */
  function bursty(steps: number): MetricSample[] {
    const list: MetricSample[] = [];
    let t = 1_732_712_345_000;
    for (let step = 1; step <= steps; step++) {
      t += step % 4 === 0 ? 37 : 1;
      list.push({ step, tMs: t, name: 'loss', value: 1, source: 'text', kind: 'train' });
    }
    return list;
  }

  it('are measured by their work over their time, not by the median step, and say so', () => {
    // 4 steps every 40 ms: 100 steps/s. The median step (1 ms) would say 1,000.
    const summary = summarizeMetrics(bursty(800), { warmup: { kind: 'steps', steps: 8 } });
    expect(summary.throughput.median).toBeCloseTo(100, 0);
    expect(summary.stepTimeMs.median).toBeCloseTo(10, 1);
    expect(summary.notes.join(' ')).toMatch(/steps come unevenly.*mean step 10 ms against a median of 1 ms/u);
  });

  it('leave a run stalled for a stretch (load on the machine) to its median step: a stall is not bursts', () => {
    // nanoGPT on a busy 2-core machine: 16 steps of about 56 ms, then 5 of 1.4-4 s while something else ran.
    const stepsMs = [60, 63, 53, 56, 56, 56, 55, 55, 53, 56, 54, 55, 56, 56, 57, 55, 2130, 3305, 3333, 4049, 1364];
    const list: MetricSample[] = [];
    let t = 1_732_712_345_000;
    stepsMs.forEach((ms, i) => {
      t += ms;
      list.push({ step: i, tMs: t, name: 'loss', value: 4 - i / 10, source: 'text', kind: 'train' });
    });
    const summary = summarizeMetrics(list, { warmup: { kind: 'steps', steps: 2 } });
    expect(summary.throughput.uneven).toBe(false);
    expect(summary.stepTimeMs.median).toBeCloseTo(56, 0);
    expect(summary.slowStretches).toHaveLength(1);
    expect(summary.notes.join(' ')).not.toMatch(/unevenly/u);
    // Two slow steps at the very end (too few for a slow stretch): the same.
    const shortStall = [104, 52, 44, 47, 44, 47, 50, 46, 44, 47, 46, 45, 47, 44, 51, 47, 44, 45, 49, 1205, 2030];
    t = 1_732_712_345_000;
    const stalled = shortStall.map((ms, i) => ({ step: i, tMs: (t += ms), name: 'loss', value: 4 - i / 10, source: 'text' as const, kind: 'train' as const }));
    const short = summarizeMetrics(stalled, { warmup: { kind: 'steps', steps: 2 } });
    expect(short.throughput.uneven).toBe(false);
    expect(short.stepTimeMs.median).toBe(47);
  });

  it('leave an even run to its median step', () => {
    const list: MetricSample[] = [];
    let t = 1_732_712_345_000;
    for (let step = 1; step <= 400; step++) {
      t += step % 50 === 0 ? 90 : 15 + (step % 3);
      list.push({ step, tMs: t, name: 'loss', value: 1, source: 'text', kind: 'train' });
    }
    const summary = summarizeMetrics(list, { warmup: { kind: 'steps', steps: 8 } });
    expect(summary.stepTimeMs.median).toBe(16);
    expect(summary.notes.join(' ')).not.toMatch(/unevenly/u);
  });
});
