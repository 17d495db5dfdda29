// Warm-up and left-out steps set by hand, per run (after it ran: no re-run), per workload and per sweep, as the
// README promises: the summary says who set them, the summary before is kept, and a workload's apply under a run's own.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sweepRequest, workloadInput } from '../../electron/shared/api.js';
import { REPO_ROOT, tempCore } from '../helpers/tempCore.js';

const harness = tempCore({ env: { ...process.env, TUNING_BENCH_NVIDIA_SMI: '/nonexistent/nvidia-smi' } });
afterAll(() => harness.cleanup());

const STANDIN = path.join(REPO_ROOT, 'test/fixtures/standin');
/** 40 nanoGPT-style steps, the first ten times slower (start-up). */
const TRAIN = ['python3', 'train.py', '--batch', '16', '--steps', '40', '--run-sd', '0', '--step-sd', '0.01', '--seed', '1'];

describe('steps set by hand', () => {
  it('for a run that has ended: its summary made again from what it stored, the one before kept', async () => {
    const { core } = harness;
    const started = core.startCommand({ adHoc: { command: TRAIN, cwd: STANDIN } });
    const ran = await core.runner.waitForExit(started.id);
    expect(ran.summary.warmup).toMatchObject({ rule: 'auto', steps: 1, setBy: null });
    expect(ran.summary.steadySteps).toBe(39);

    const set = await core.handlers['runs.setSteps']({ id: ran.id, warmupSteps: 5, excludeSteps: [20, 21] }, { subscriberId: null });
    expect(set.steps).toEqual({ warmupSteps: 5, excludeSteps: [20, 21], setBy: 'run' });
    expect(set.summary.warmup).toMatchObject({ rule: 'steps', steps: 5, setBy: 'run' });
    expect(set.summary.outliers).toMatchObject({ byUser: 2 });
    expect(set.summary.steadySteps).toBe(40 - 5 - 2);
    const history = await core.handlers['runs.summaryHistory']({ id: ran.id }, { subscriberId: null });
    expect(history.at(-1)).toMatchObject({ reason: 'steps set by hand', summary: { steadySteps: 39 } });

    // Back to the automatic rule.
    const auto = await core.handlers['runs.setSteps']({ id: ran.id, warmupSteps: null, excludeSteps: [] }, { subscriberId: null });
    expect(auto.steps).toBeNull();
    expect(auto.summary.warmup).toMatchObject({ rule: 'auto', steps: 1 });
  }, 60_000);

  it("for a workload's runs, under a run's own choice", async () => {
    const { core } = harness;
    const workload = await core.handlers['workloads.create'](
      workloadInput.parse({
        name: 'standin',
        cwd: STANDIN,
        command: [...TRAIN.slice(0, 3), '{batch}', ...TRAIN.slice(4)],
        env: {},
        variables: [{ name: 'batch', default: '16' }],
        steps: { warmupSteps: 3, excludeSteps: [30] },
      }),
      { subscriberId: null },
    );
    const byWorkload = await core.runner.waitForExit((await core.startRun({ workload, values: {} })).id);
    expect(byWorkload.summary.warmup).toMatchObject({ rule: 'steps', steps: 3, setBy: 'workload' });
    expect(byWorkload.summary.outliers).toMatchObject({ byUser: 1 });
    const own = await core.runner.waitForExit((await core.startRun({ workload, values: {}, steps: { warmupSteps: 8, excludeSteps: [], setBy: 'run' } })).id);
    expect(own.summary.warmup).toMatchObject({ steps: 8, setBy: 'run' });
    // The workload's left-out step still stays out.
    expect(own.summary.outliers).toMatchObject({ byUser: 1 });
  }, 60_000);

  it("for a sweep's runs", async () => {
    const { core } = harness;
    const started = await core.sweeps.start(
      sweepRequest.parse({
        command: { template: ['python3 train.py --batch {batch} --steps 30 --run-sd 0 --step-sd 0.01'], mode: 'shell', cwd: STANDIN },
        vary: [{ name: 'batch', values: ['16', '32'] }],
        repeats: 1,
        waitForIdle: false,
        samplesPerStep: '{batch}',
        steps: { warmupSteps: 4, excludeSteps: [] },
      }),
    );
    const sweep = await core.sweeps.waitForEnd(started.id);
    expect(sweep.status).toBe('succeeded');
    for (const run of core.store.runs.forSweep(sweep.id)) {
      expect(run.steps).toMatchObject({ warmupSteps: 4, setBy: 'sweep' });
      expect(run.summary.warmup).toMatchObject({ steps: 4, setBy: 'sweep' });
      expect(run.unitsPerStep).toEqual({ tokens: null, samples: Number(run.config.batch) });
      expect(run.summary.throughput.unit).toBe('samples/s');
    }
  }, 60_000);
});
