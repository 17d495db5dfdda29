// A live run's channel is read at the clock's pace, and a line without its own stamp is placed at the clock's time.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../electron/core/clock.js';
import { EventHub } from '../../../electron/core/events.js';
import { RunMetrics } from '../../../electron/core/metrics/runMetrics.js';
import type { MetricStore } from '../../../electron/core/store/metricStore.js';
import { tempCore, type TempCore } from '../../helpers/tempCore.js';

let harness: TempCore | null = null;
afterEach(async () => {
  await harness?.cleanup();
  harness = null;
});

describe('RunMetrics on a manual clock', () => {
  it('reads the channel every 250 ms of the clock; stamped lines keep their time, the rest take the time they were read', async () => {
    harness = tempCore();
    const { store } = harness.core;
    const run = await harness.core.handlers['runs.import']({ name: 'holder', text: 'a run to hold the samples\n' }, { subscriberId: null });
    const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
    const startedAtMs = clock.wallMs() - 5000;
    const channelFile = path.join(harness.dir, 'channel.jsonl');
    fs.writeFileSync(channelFile, '');
    const limits: number[] = [];
    const metrics = new RunMetrics(
      { runId: run.id, startedAtMs, channelFile, maxSteps: 20, tokensPerStep: null, samplesPerStep: null, onStepLimit: (step) => limits.push(step), clock },
      store.metrics,
      new EventHub(),
    );

    fs.appendFileSync(channelFile, `${JSON.stringify({ t: (startedAtMs + 2000) / 1000, step: 10, loss: 2.5 })}\n${JSON.stringify({ step: 20, loss: 2.25 })}\n`);
    clock.advance(249);
    await store.flush();
    expect(store.metrics.forRun(run.id)).toEqual([]);
    clock.advance(1);
    await store.flush();
    expect(store.metrics.forRun(run.id).map((s) => [s.step, s.tMs, s.value])).toEqual([
      [10, 2000, 2.5],
      [20, 5250, 2.25],
    ]);
    expect(limits).toEqual([20]);
    metrics.finish();
    expect(fs.existsSync(channelFile)).toBe(false);
  });
});

/** A live run's metrics with a step limit and no channel to read: what the parser hands them is all they see. */
function limitedRun(maxSteps: number, minStepSeconds: number | null, limits: number[]): RunMetrics {
  return new RunMetrics(
    {
      runId: 1,
      startedAtMs: 0,
      channelFile: '/nonexistent/channel.jsonl',
      maxSteps,
      minStepSeconds,
      tokensPerStep: null,
      samplesPerStep: null,
      onStepLimit: (step) => limits.push(step),
      clock: new ManualClock(new Date('2026-03-01T12:00:00Z')),
    },
    { append: () => undefined } as unknown as MetricStore,
    new EventHub(),
  );
}

describe('the step limit', () => {
  it('counts logged steps where the log counts samples done (pytorch/examples MNIST): its step numbers are samples', () => {
    const limits: number[] = [];
    const metrics = limitedRun(3, null, limits);
    // `Train Epoch: 1 [640/6000 (11%)]`: step 640 is the second line, not step 640 of 3.
    const line = (step: number) =>
      ['epoch', 'samples_seen', 'samples_total', 'loss'].map((name) => ({
        step,
        tMs: step,
        name,
        value: name === 'samples_seen' ? step : 1,
        source: 'text' as const,
        kind: 'train' as const,
      }));
    metrics.acceptParsed(line(0));
    metrics.acceptParsed(line(640));
    expect(limits).toEqual([]);
    metrics.acceptParsed(line(1280));
    expect(limits).toEqual([1280]);
    metrics.acceptParsed(line(1920));
    expect(limits).toEqual([1280]);
    metrics.close();
  });
});

describe('the step limit with a shortest measured stretch', () => {
  const progressStep = (step: number, tMs: number) => [{ step, tMs, name: 'progress_step', value: step, source: 'text' as const, kind: 'progress' as const }];

  it('goes on past its step limit while its steps span less than the shortest stretch (a Lightning bar at 300 steps/s: 30 steps are 0.1 s, all warm-up)', () => {
    const limits: number[] = [];
    const metrics = limitedRun(30, 8, limits);
    // The first step comes after 4 s of imports: the stretch counts from it, not from the run's start.
    for (let step = 1; step <= 4000 && limits.length === 0; step++) metrics.acceptParsed(progressStep(step, 4000 + 3 * (step - 1)));
    expect(limits).toEqual([2668]);
    metrics.close();
  });

  it('stops at the step limit where its steps already span the stretch (nanoGPT on a CPU: a step a second)', () => {
    const limits: number[] = [];
    const metrics = limitedRun(30, 8, limits);
    for (let step = 1; step <= 40; step++) metrics.acceptParsed(progressStep(step, 4000 + 1000 * (step - 1)));
    expect(limits).toEqual([30]);
    metrics.close();
  });

  it('stops at the step limit itself without a stretch', () => {
    const limits: number[] = [];
    const metrics = limitedRun(30, null, limits);
    for (let step = 1; step <= 40; step++) metrics.acceptParsed(progressStep(step, 4000 + 3 * (step - 1)));
    expect(limits).toEqual([30]);
    metrics.close();
  });
});
