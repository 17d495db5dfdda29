// The engine dates what it records by the clock createCore is given, so a test can say exactly when.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../electron/core/clock.js';
import { tempCore, type TempCore } from '../helpers/tempCore.js';

let harness: TempCore | null = null;
afterEach(async () => {
  await harness?.cleanup();
  harness = null;
});

describe('createCore({ clock })', () => {
  it('records workloads and imported runs at the times the clock gives', async () => {
    const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
    harness = tempCore({ clock });
    const { core } = harness;
    const none = { subscriberId: null };
    // Built-in workloads are written as the core opens.
    expect(core.store.workloads.getByName('synthetic')?.createdAt).toBe('2026-03-01T12:00:00.000Z');

    clock.advance(90 * 60_000);
    const workload = await core.handlers['workloads.create'](
      {
        name: 'mine',
        description: '',
        cwd: harness.dir,
        command: ['true'],
        env: {},
        variables: [],
        metricRegex: '',
        mode: 'argv',
        tokensPerStep: '',
        steps: null,
      },
      none,
    );
    expect(workload.createdAt).toBe('2026-03-01T13:30:00.000Z');

    clock.advance(60_000);
    const imported = await core.handlers['runs.import']({ name: 'pasted', text: 'step 1 loss 2.5\nstep 2 loss 2.25\n' }, none);
    expect([imported.startedAt, imported.endedAt]).toEqual(['2026-03-01T13:31:00.000Z', '2026-03-01T13:31:00.000Z']);

    // A later import of a file (the CLI's `import`) is dated by the same clock, not by the face.
    clock.setWall(new Date('2026-04-01T08:00:00Z'));
    const file = path.join(harness.dir, 'train.log');
    fs.writeFileSync(file, 'step 1 loss 2.5\n');
    const fromFile = await core.importLogFile(file, { name: 'from a file' });
    expect(fromFile.startedAt).toBe('2026-04-01T08:00:00.000Z');
  });
});

describe("a run on the engine's clock", () => {
  it('is dated by the clock, and its time limit ends it when the clock moves, not when real time passes', async () => {
    const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
    harness = tempCore({ clock });
    const { core } = harness;
    // Moving the clock fires the samplers' timers on the way (two a second): a limit of minutes keeps that small.
    const run = core.startCommand({ adHoc: { command: ['sleep', '300'], cwd: harness.dir }, timeoutSeconds: 120 });
    expect(run.startedAt).toBe('2026-03-01T12:00:00.000Z');

    clock.advance(120_000 - 1);
    expect(core.store.runs.get(run.id)!.status).toBe('running');
    clock.advance(1);
    const ended = await core.runner.waitForExit(run.id);
    expect(ended).toMatchObject({ status: 'timed_out', endedAt: '2026-03-01T12:02:00.000Z' });
    // Its samples are on the run's axis by the same clock: one host reading each half second it moved.
    expect(core.store.telemetry.hostSamples(run.id).at(-1)!.tMs).toBe(120_000);
  });
});
