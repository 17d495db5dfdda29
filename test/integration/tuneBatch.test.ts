// The batch step of `tune` and the batch-size finder on a typed command: a plain Python loop whose step takes
// 10 + 1·batch ms and which runs out of memory (CUDA's message, exit 1) above batch 12. A real pty, a real SQLite file.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { contractClient } from '../../electron/cli/contract.js';
import { tuneResult } from '../../electron/shared/api.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir, REPO_ROOT, tempCore, type TempCore } from '../helpers/tempCore.js';

const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/knobs/batch_steps.py');
/** The fixture's own default: the largest batch that fits. */
const LIMIT = 12;
/** Short runs: 20 steps of 14 to 22 ms hold a warm-up and a steady stretch. */
const STEPS = '20';
const NO_GPU = { TUNING_BENCH_NVIDIA_SMI: '/nonexistent/nvidia-smi' };

let temp: TempCore | null = null;
afterEach(async () => {
  await temp?.cleanup();
  temp = null;
});

describe('the batch-size finder on a typed command', () => {
  it('doubles then bisects the {batch} placeholder to the largest that fits, with the knobs given applied in each probe', async () => {
    temp = tempCore({ env: { ...process.env, ...NO_GPU } });
    const api = contractClient(temp.core);
    const command = { template: ['/usr/bin/python3', FIXTURE, '--batch-size', '{batch}', '--steps', '{steps}'], mode: 'argv' as const, cwd: temp.dir };
    const started = await api['sweeps.findBatch']({
      command,
      values: { steps: STEPS, 'knob.threads': '1' },
      start: 4,
      maxSteps: 20,
      samplesPerStep: '{batch}',
    });
    expect(started).toMatchObject({ kind: 'batch-finder', workloadId: null, workloadName: 'ad-hoc command' });
    const ended = await temp.core.waitForSweepEnd(started.id);
    expect(ended.status).toBe('succeeded');
    expect(ended.result).toMatchObject({ variable: 'batch', largestFit: LIMIT, firstFailure: LIMIT + 1 });
    // 4, 8, 16 (out of memory), then 12, 14, 13 between the last that fit and the first that did not.
    expect(ended.configs.map((c) => [c.name, c.status])).toEqual([
      ['batch=4', 'done'],
      ['batch=8', 'done'],
      ['batch=16', 'oom'],
      ['batch=12', 'done'],
      ['batch=14', 'oom'],
      ['batch=13', 'oom'],
    ]);
    const probe = await api['runs.get']({ id: ended.configs[0]!.runIds[0]! });
    expect(probe.command).toEqual(['/usr/bin/python3', FIXTURE, '--batch-size', '4', '--steps', STEPS]);
    expect(probe.config).toMatchObject({ batch: '4', 'knob.threads': '1' });
    expect(probe.summary.throughput.unit).toBe('samples/s');
  }, 120_000);

  it('is resumed after its engine stopped mid-probe: the workload comes from the command it stored', async () => {
    temp = tempCore({ env: { ...process.env, ...NO_GPU } });
    const command = { template: ['/usr/bin/python3', FIXTURE, '--batch-size', '{batch}', '--steps', '60'], mode: 'argv' as const, cwd: temp.dir };
    const started = await contractClient(temp.core)['sweeps.findBatch']({ command, start: 4, maxSteps: 60 });
    const deadline = Date.now() + 20_000;
    while (temp.core.sweeps.get(started.id).progress.currentRunId === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(temp.core.sweeps.get(started.id).progress.currentRunId).not.toBeNull();
    await temp.core.close();

    const reopened = temp.reopen();
    expect(reopened.sweeps.get(started.id).status).toBe('interrupted');
    reopened.sweeps.control(started.id, 'resume');
    const ended = await reopened.sweeps.waitForEnd(started.id);
    expect(ended.status).toBe('succeeded');
    expect(ended.result).toMatchObject({ largestFit: LIMIT, firstFailure: LIMIT + 1 });
  }, 120_000);

  it('refuses a command without the placeholder, and a request with both a workload and a command, saying what to give', async () => {
    temp = tempCore({ env: { ...process.env, ...NO_GPU } });
    const api = contractClient(temp.core);
    const command = { template: ['/usr/bin/python3', FIXTURE, '--batch-size', '4'], mode: 'argv' as const, cwd: temp.dir };
    await expect(api['sweeps.findBatch']({ command })).rejects.toThrow(
      'the command has no {batch} placeholder: put one where the batch size goes (e.g. --batch-size {batch})',
    );
    await expect(api['sweeps.findBatch']({ command, workloadId: 1 })).rejects.toThrow('give a workload or a command, not both');
    await expect(api['sweeps.findBatch']({})).rejects.toThrow('give a workload, or a command with {var} placeholders');
    await expect(
      api['sweeps.findBatch']({ command: { ...command, template: [...command.template.slice(0, 3), '{batch}'] }, values: { 'knob.autocast': 'fp8' } }),
    ).rejects.toThrow(/autocast/u);
  });
});

describe('tune --only batch from the CLI', () => {
  const dir = makeTempDir('tb-tune-batch-');
  const db = path.join(dir, 'runs.db');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const flags = ['--no-wait-idle', '--steps', STEPS, '--repeats', '2', '--max-repeats', '3', '--only', 'batch'];

  it('keeps +batch=<largest that fits> as faster per sample, and says the value to pass', () => {
    const ran = runCli(
      [
        '--db',
        db,
        '--json',
        'tune',
        ...flags,
        '--set',
        'batch=4',
        '--cwd',
        dir,
        '--',
        '/usr/bin/python3',
        FIXTURE,
        '--batch-size',
        '{batch}',
        '--steps',
        STEPS,
      ],
      { cwd: dir, env: NO_GPU, timeoutMs: 180_000 },
    );
    expect(ran.status, ran.stderr).toBe(0);
    const result = tuneResult.parse(JSON.parse(ran.stdout));
    expect(result.status).toBe('succeeded');
    expect(result.steps.map((s) => s.name)).toEqual(['baseline', `+batch=${LIMIT}`]);
    const [baseline, step] = result.steps;
    expect(baseline!.throughput.unit).toBe('samples/s');
    expect(step).toMatchObject({
      status: 'kept',
      kept: true,
      knobs: { batch: String(LIMIT) },
      speedup: { verdict: 'faster' },
      gate: 'pass',
      against: 'baseline',
    });
    // Per sample: 4 in 14 ms against 12 in 22 ms, about 1.9 times as many.
    expect(step!.speedup.ratio!).toBeGreaterThan(1.3);
    // The finder's sweep first, then the step's own.
    expect(step!.sweepIds.length).toBeGreaterThanOrEqual(2);
    expect(result.batch).toEqual({ variable: 'batch', from: 4, to: LIMIT });
    expect(result.suggestions).toEqual([
      expect.objectContaining({
        knobs: [`batch=${LIMIT}`],
        diff: null,
        text: `batch=${LIMIT}: pass --batch-size ${LIMIT} (it ran at 4; the largest that fits with the knobs kept)`,
      }),
    ]);
    expect(ran.stderr).toContain('tune: +batch: batch-size finder');
  }, 200_000);

  it('skips the step, with what to do, for a command without the placeholder', () => {
    const ran = runCli(['--db', db, 'tune', ...flags, '--cwd', dir, '--', '/usr/bin/python3', FIXTURE, '--batch-size', '4', '--steps', STEPS], {
      cwd: dir,
      env: NO_GPU,
      timeoutMs: 60_000,
    });
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('+batch: skipped: no {batch} placeholder in the command: give one and --set batch=N to try larger batches');
  }, 90_000);

  it('refuses a placeholder without its batch, and a --set that names no placeholder', () => {
    const missing = runCli(['--db', db, 'tune', ...flags, '--cwd', dir, '--', '/usr/bin/python3', FIXTURE, '--batch-size', '{batch}'], {
      cwd: dir,
      env: NO_GPU,
    });
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('the command has {batch}: give the batch it runs at now with --set batch=N');
    const unknown = runCli(['--db', db, 'tune', ...flags, '--set', 'bs=8', '--cwd', dir, '--', '/usr/bin/python3', FIXTURE, '--batch-size', '4'], {
      cwd: dir,
      env: NO_GPU,
    });
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toContain('--set bs=...: the command has no {bs} placeholder');
  }, 60_000);
});
