// A tune is kept as it goes: started without waiting, followed step by step, found again by a page that reloads,
// cancelled between or inside steps, kept as interrupted when its engine stops, and resumed from the step it reached
// with the steps it had decided (their sweeps are not run again). A real pty, a real SQLite file, plain Python.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { contractClient } from '../../electron/cli/contract.js';
import type { EngineCore } from '../../electron/core/createCore.js';
import { tuneRequest, type TuneRecord } from '../../electron/shared/api.js';
import { tempCore, type TempCore } from '../helpers/tempCore.js';

let temp: TempCore | null = null;
afterEach(async () => {
  await temp?.cleanup();
  temp = null;
});

/** A training script as plain as they come (no torch: the knobs say they had nothing to act on): 30 steps of 10 ms. */
const SCRIPT = ['import time', 'for step in range(1, 31):', '    time.sleep(0.01)', '    print(f"step {step} loss {3 - step / 30:.4f}", flush=True)'].join(
  '\n',
);

function open(): { core: EngineCore; dir: string } {
  temp = tempCore({ env: { ...process.env, TUNING_BENCH_NVIDIA_SMI: '/nonexistent/nvidia-smi' } });
  fs.writeFileSync(path.join(temp.dir, 'train.py'), SCRIPT);
  return { core: temp.core, dir: temp.dir };
}

const request = (dir: string) => ({
  command: { template: ['/usr/bin/python3', 'train.py'], mode: 'argv' as const, cwd: dir },
  steps: ['workers' as const, 'autocast' as const],
  maxSteps: 30,
  waitForIdle: false,
});

/** Resolves with the first tune record the engine announces that `done` accepts. */
function announced(core: EngineCore, done: (tune: TuneRecord) => boolean): Promise<TuneRecord> {
  return new Promise((resolve) => {
    const subscription = core.subscribe((event, payload) => {
      if (event !== 'tunes.onDidChange' || !done(payload)) return;
      subscription.unsubscribe();
      resolve(payload);
    });
  });
}

describe('a tune kept by the engine', () => {
  it('answers at once, is listed while it runs, stops at Cancel, and resumes from the step it reached', async () => {
    const { core, dir } = open();
    const api = contractClient(core);
    const firstStepDecided = announced(core, (tune) => tune.result.steps.some((s) => s.name === '+workers=4'));
    const started = await api['tune.start']({ request: request(dir) });
    expect(started).toMatchObject({ status: 'running', endedAt: null, sourceRunId: null, result: { steps: [] } });
    expect((await api['tune.list']({})).map((t) => t.id)).toEqual([started.id]);

    // Cancelled once the first step is decided: the second step's sweep is stopped, or never starts.
    const afterFirst = await firstStepDecided;
    expect(afterFirst.status).toBe('running');
    expect(afterFirst.result.steps.map((s) => s.name)).toEqual(['baseline', '+workers=4']);
    const firstSweeps = afterFirst.result.steps.find((s) => s.name === '+workers=4')!.sweepIds;
    await api['tune.cancel']({ id: started.id });
    const cancelled = await core.tunes.waitForEnd(started.id);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.endedAt).not.toBeNull();
    expect(cancelled.result.steps.filter((s) => s.status !== 'cancelled').map((s) => s.name)).toEqual(['baseline', '+workers=4']);
    // As a page that reloads finds it.
    expect(await api['tune.get']({ id: started.id })).toMatchObject({ status: 'cancelled', result: { status: 'cancelled' } });

    const sweepsBefore = (await api['sweeps.list']({})).length;
    const resumed = await api['tune.resume']({ id: started.id });
    expect(resumed.status).toBe('running');
    const ended = await core.tunes.waitForEnd(started.id);
    expect(ended.status).toBe('succeeded');
    expect(ended.result.steps.map((s) => s.name)).toEqual(['baseline', '+workers=4', '+autocast=bf16']);
    // The decided step stands as measured: its sweeps are the first ones, and only the next step ran now.
    expect(ended.result.steps.find((s) => s.name === '+workers=4')!.sweepIds).toEqual(firstSweeps);
    const sweepsAfter = await api['sweeps.list']({});
    expect(sweepsAfter.length).toBeGreaterThan(sweepsBefore);
    expect(sweepsAfter.slice(0, sweepsAfter.length - sweepsBefore).every((s) => s.name === 'tune: +autocast=bf16')).toBe(true);
    await expect(api['tune.resume']({ id: started.id })).rejects.toThrow(/has ended \(succeeded\): there is nothing left to run/u);
  }, 240_000);

  it('is kept as interrupted when its engine stops, and another engine resumes it', async () => {
    const { core, dir } = open();
    const sweepStarted = new Promise<void>((resolve) => {
      const subscription = core.subscribe((event, payload) => {
        if (event === 'sweeps.onDidChange' && payload.progress.done >= 1) {
          subscription.unsubscribe();
          resolve();
        }
      });
    });
    const started = core.tunes.start(tuneRequest.parse(request(dir)), null);
    await sweepStarted;
    await core.close();

    const again = temp!.reopen();
    expect(again.tunes.get(started.id).status).toBe('interrupted');
    const api = contractClient(again);
    await expect(api['tune.cancel']({ id: started.id })).resolves.toMatchObject({ status: 'interrupted' });
    await api['tune.resume']({ id: started.id });
    const ended = await again.tunes.waitForEnd(started.id);
    expect(ended.status).toBe('succeeded');
    expect(ended.result.steps.map((s) => s.name)).toEqual(['baseline', '+workers=4', '+autocast=bf16']);
  }, 240_000);

  // nanoGPT makes no DataLoader: its +workers step ran all four runs before saying the knob had nothing to act on.
  it('ends a step at the first candidate run whose knob did not act, without the rest of its runs', async () => {
    const { core, dir } = open();
    const api = contractClient(core);
    const started = await api['tune.start']({ request: { ...request(dir), steps: ['workers'], repeats: 3, maxRepeats: 3 } });
    const ended = await core.tunes.waitForEnd(started.id);
    expect(ended.status).toBe('succeeded');
    const step = ended.result.steps.find((s) => s.name === '+workers=4')!;
    expect(step).toMatchObject({ status: 'skipped', kept: false });
    expect(step.reason).toMatch(/^the knob was unused/u);
    const [sweep] = await Promise.all(step.sweepIds.map((id) => api['sweeps.get']({ id })));
    // Three runs a side would be six: the step ends with the candidate's first (baseline, candidate), cutting no run.
    expect(sweep!.configs.map((config) => config.runIds.length)).toEqual([1, 1]);
    // Its status says cancelled, as it is; the note says who ended it and why, where a person reads the sweep.
    expect(sweep!.status).toBe('cancelled');
    expect(sweep!.endedNote).toMatch(/^Ended by its tune: the knob was unused in run \d+, so its other runs would have measured the same command again/u);
    expect(step.runIds).toEqual(sweep!.configs[1]!.runIds);
    const baseline = ended.result.steps.find((s) => s.name === 'baseline')!;
    expect(baseline.runIds).toEqual(sweep!.configs[0]!.runIds);
    expect(baseline.throughput.median).toBeGreaterThan(0);
  }, 240_000);

  it('measures fast steps past their step limit until they span the stretch asked (30 steps of a 300 steps/s bar are 0.1 s)', async () => {
    const { core, dir } = open();
    // A bar that never ends on its own, 3 ms a step, as Lightning's quick-start draws on a CPU.
    fs.writeFileSync(
      path.join(dir, 'fast.py'),
      ['import time', 'step = 0', 'while True:', '    step += 1', '    time.sleep(0.003)', '    print(f"step {step} loss 1.0", flush=True)'].join('\n'),
    );
    const api = contractClient(core);
    const fast = { ...request(dir), command: { ...request(dir).command, template: ['/usr/bin/python3', 'fast.py'] } };
    const started = await api['tune.start']({ request: { ...fast, steps: ['workers'], minStepSeconds: 1.5 } });
    const ended = await core.tunes.waitForEnd(started.id);
    const runIds = ended.result.steps.flatMap((s) => s.runIds);
    expect(runIds.length).toBeGreaterThanOrEqual(2);
    for (const id of runIds) {
      const run = await api['runs.get']({ id });
      expect(run.exitReason).toMatch(
        /^stopped at step \d+, the run's step limit \(its steps were fast: it went on past the count until they spanned 1\.5 s\)$/u,
      );
      const steps = (await api['runs.metrics']({ id })).filter((p) => p.name === 'loss');
      expect(steps.length).toBeGreaterThan(100);
      expect(steps.at(-1)!.tMs - steps[0]!.tMs).toBeGreaterThanOrEqual(1500);
    }
  }, 120_000);

  it('refuses a tune of a run that is not there, and a resume of one that is not', async () => {
    const { core, dir } = open();
    const api = contractClient(core);
    await expect(api['tune.start']({ request: request(dir), sourceRunId: 999 })).rejects.toThrow(/no run 999/u);
    await expect(api['tune.resume']({ id: 5 })).rejects.toThrow(/no tune 5/u);
  });
});
