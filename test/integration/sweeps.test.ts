// Sweeps over the synthetic workload: a ladder in the right order with the formula's speedups, an OOM
// config marked and skipped, the batch-size finder, pause/skip/cancel, resumption after a crash, and a
// sweep's GPU settings held for every run on the fake nvidia-smi.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineCore } from '../../electron/core/createCore.js';
import type { Sweep, SweepRequest } from '../../electron/shared/api.js';
import { compareRequest, sweepRequest } from '../../electron/shared/api.js';
import { CLI_ENTRY, runCli, TSX_LOADER } from '../helpers/cli.js';
import { makeTempDir, REPO_ROOT, tempCore, type TempCore } from '../helpers/tempCore.js';

const FAKE = path.join(REPO_ROOT, 'test/fixtures/fake-nvidia-smi');

/** The synthetic workload's documented formula (resources/workloads/synthetic/train.js), tokens/s. */
function expectedThroughput(values: Record<string, string>): number {
  const batch = Number(values.batch);
  const workers = Number(values.workers);
  const compute = (2 + 0.75 * batch) * (values.amp === 'on' ? 0.55 : 1) * (values.compile === 'on' ? 0.7 : 1);
  const data = 0.5 * batch;
  const stepMs = workers === 0 ? compute + data : Math.max(compute, data / workers) + 0.2;
  return (batch * 256) / (stepMs / 1000);
}

let temp: TempCore | null = null;
afterEach(async () => {
  await temp?.cleanup();
  temp = null;
});

function open(env: Record<string, string> = {}): EngineCore {
  // No nvidia-smi on these machines' PATH unless a test gives the fake.
  temp = tempCore({ env: { ...process.env, TUNING_BENCH_NVIDIA_SMI: '/nonexistent/nvidia-smi', ...env } });
  return temp.core;
}

/**
 * Fields as a face sends them (GPU values as text), parsed by the contract. No waiting for fair conditions unless a
 * test asks: this machine is shared, so its host is never quiet, and a wait would only spend the bound each run.
 */
function request(core: EngineCore, fields: Partial<SweepRequest> & Pick<SweepRequest, 'vary'>): SweepRequest {
  const synthetic = core.store.workloads.getByName('synthetic')!;
  return sweepRequest.parse({ workloadId: synthetic.id, waitForIdle: false, ...fields });
}

/** Vitest's poll, at the pace the sweep's state changes. */
function until(predicate: () => boolean, timeout = 20_000): Promise<void> {
  return expect.poll(predicate, { timeout, interval: 50 }).toBe(true);
}

describe('a ladder sweep over the synthetic workload', () => {
  it('runs the seed plan interleaved, and its speedups follow the formula', async () => {
    const core = open();
    const plan = {
      values: { steps: '80' },
      vary: [
        { name: 'batch', values: ['8', '16'] },
        { name: 'workers', values: ['0', '4'] },
        { name: 'amp', values: ['off', 'on'] },
        { name: 'compile', values: ['off', 'on'] },
      ],
      plan: 'ladder' as const,
      repeats: 2,
    };
    const preview = core.sweeps.preview(request(core, plan));
    expect(preview.runCount).toBe(10);
    expect(preview.configs[1]!.command).toEqual(expect.arrayContaining(['--batch-size', '16', '--workers', '0']));
    expect(preview.estimateSeconds).toBeNull();

    const started = await core.sweeps.start(request(core, plan));
    const changes: Sweep[] = [];
    const subscription = core.subscribe((event, payload) => {
      if (event === 'sweeps.onDidChange') changes.push(payload as Sweep);
    });
    const sweep = await core.sweeps.waitForEnd(started.id);
    subscription.unsubscribe();

    expect(sweep.status).toBe('succeeded');
    expect(sweep.progress).toMatchObject({ done: 10, total: 10, currentRunId: null });
    // Progress was reported all along, with an ETA once a run had ended.
    expect(changes.some((c) => c.progress.current?.startsWith('config 3 of 5 (+workers=4), repeat 1 of 2'))).toBe(true);
    expect(changes.some((c) => c.progress.etaSeconds !== null && c.progress.done > 0 && c.progress.done < 10)).toBe(true);

    const runs = core.store.runs.forSweep(sweep.id);
    // Interleaved, each round the other way: drift falls on every config alike.
    expect(runs.map((r) => `${r.configIndex}.${r.repeatIndex}`)).toEqual(['0.0', '1.0', '2.0', '3.0', '4.0', '4.1', '3.1', '2.1', '1.1', '0.1']);
    expect(runs.every((r) => r.exitClass === 'ok' && r.wait?.reason === 'disabled')).toBe(true);

    const baseline = sweep.configs[0]!;
    const expectedBaseline = expectedThroughput(baseline.values);
    for (const config of sweep.configs) {
      expect(config.status).toBe('done');
      expect(config.runIds).toHaveLength(2);
      const speedup = config.throughputMedian! / baseline.throughputMedian!;
      const expected = expectedThroughput(config.values) / expectedBaseline;
      expect(Math.abs(speedup / expected - 1)).toBeLessThan(0.05);
    }
    expect(sweep.configs.map((c) => c.name)).toEqual(['baseline', '+batch=16', '+workers=4', '+amp=on', '+compile=on']);
  }, 90_000);
});

describe('failures and the batch-size finder', () => {
  it('marks a config that runs out of memory, skips its repeats, and goes on', async () => {
    const core = open({ SYNTHETIC_MAX_BATCH: '12' });
    const started = await core.sweeps.start(
      request(core, { values: { steps: '30' }, vary: [{ name: 'batch', values: ['8', '16', '4'] }], plan: 'one-at-a-time', repeats: 2 }),
    );
    const sweep = await core.sweeps.waitForEnd(started.id);
    expect(sweep.status).toBe('succeeded');
    expect(sweep.configs.map((c) => [c.name, c.status, c.runIds.length])).toEqual([
      ['baseline', 'done', 2],
      ['batch=16', 'oom', 1],
      ['batch=4', 'done', 2],
    ]);
    expect(sweep.progress.done).toBe(6);
    expect(core.store.runs.get(sweep.configs[1]!.runIds[0]!)!.exitClass).toBe('cuda_oom');
  }, 60_000);

  it('tells each change which run of how many is under way, since when, and that a run failed', async () => {
    const core = open({ SYNTHETIC_MAX_BATCH: '12' });
    const started = await core.sweeps.start(
      request(core, { values: { steps: '30' }, vary: [{ name: 'batch', values: ['8', '16'] }], plan: 'one-at-a-time', repeats: 2 }),
    );
    const heard: Sweep['progress'][] = [];
    const subscription = core.subscribe((event, payload) => {
      if (event === 'sweeps.onDidChange' && (payload as Sweep).id === started.id) heard.push((payload as Sweep).progress);
    });
    const sweep = await core.sweeps.waitForEnd(started.id);
    subscription.unsubscribe();
    const runs = core.store.runs.forSweep(sweep.id);
    // Interleaved: baseline, batch=16 (out of memory), its repeat skipped, baseline again.
    expect(runs.map((run) => `${run.configIndex}.${run.repeatIndex} ${run.exitClass}`)).toEqual(['0.0 ok', '1.0 cuda_oom', '0.1 ok']);
    const running = heard.flatMap((progress) => (progress.now?.phase === 'running' ? [progress.now] : []));
    // Each run, as it runs: its place in the schedule of 4, its config and repeat, its run and when it started.
    expect(running[0]).toMatchObject({ run: 1, of: 4, config: 'baseline', repeat: 1, repeats: 2, runId: runs[0]!.id, runStartedAt: runs[0]!.startedAt });
    expect(running.map((now) => [now.run, now.config, now.repeat])).toEqual(
      expect.arrayContaining([
        [2, 'batch=16', 1],
        [4, 'baseline', 2],
      ]),
    );
    for (const now of running) expect(Date.parse(now.since)).toBeLessThanOrEqual(Date.parse(now.runStartedAt!));
    // The failure is told as soon as its run ended, while the sweep goes on...
    const told = heard.find((progress) => progress.failed > 0)!;
    expect(told.lastFailure).toMatchObject({ runId: runs[1]!.id, run: 2, config: 'batch=16', repeat: 1, exitClass: 'cuda_oom' });
    expect(told.lastFailure!.reason).toMatch(/out of memory/iu);
    expect(heard.some((progress) => progress.failed === 1 && progress.now?.run === 4)).toBe(true);
    // ...and kept once it has ended, with nothing under way.
    expect(sweep.progress).toMatchObject({ done: 4, total: 4, now: null, failed: 1, lastFailure: { run: 2 } });
  }, 60_000);

  it('the batch-size finder lands on the known limit', async () => {
    const core = open({ SYNTHETIC_MAX_BATCH: '24' });
    const synthetic = core.store.workloads.getByName('synthetic')!;
    const started = core.sweeps.findBatch({ workloadId: synthetic.id, values: { steps: '200' }, variable: 'batch', start: 1, maxSteps: 5, timeoutSeconds: 60 });
    const sweep = await core.sweeps.waitForEnd(started.id);
    expect(sweep.kind).toBe('batch-finder');
    expect(sweep.result).toMatchObject({ variable: 'batch', largestFit: 24, firstFailure: 25 });
    expect(sweep.result!.message).toMatch(/batch=24 is the largest that fits/u);
    expect(sweep.configs.map((c) => c.name)).toEqual([
      'batch=1',
      'batch=2',
      'batch=4',
      'batch=8',
      'batch=16',
      'batch=32',
      'batch=24',
      'batch=28',
      'batch=26',
      'batch=25',
    ]);
    expect(sweep.configs.filter((c) => c.status === 'oom').map((c) => c.name)).toEqual(['batch=32', 'batch=28', 'batch=26', 'batch=25']);
  }, 90_000);

  it('refuses a variable the workload does not have, before anything runs', async () => {
    const core = open();
    await expect(core.sweeps.start(request(core, { vary: [{ name: 'lr', values: ['1', '2'] }] }))).rejects.toThrow(/no variable lr/u);
    expect(core.sweeps.list(10)).toEqual([]);
  });
});

describe('controlling a sweep', () => {
  it('pauses after the current run, resumes, skips the current run, and cancels the rest', async () => {
    const core = open();
    const started = await core.sweeps.start(
      request(core, {
        values: { steps: '1000000' },
        vary: [{ name: 'batch', values: ['8', '16', '32'] }],
        plan: 'one-at-a-time',
        repeats: 1,
        timeoutSeconds: 60,
      }),
    );
    await until(() => core.sweeps.get(started.id).progress.currentRunId !== null);
    const first = core.sweeps.get(started.id).progress.currentRunId!;
    core.sweeps.control(started.id, 'pause');
    core.sweeps.control(started.id, 'skip');
    await until(() => core.sweeps.get(started.id).status === 'paused');
    expect(core.store.runs.get(first)!.status).toBe('stopped');
    // Parked, not on its way to a run: none current, none being waited for, and none started.
    expect(core.sweeps.get(started.id).progress).toMatchObject({ currentRunId: null, waiting: null });
    expect(core.store.runs.forSweep(started.id)).toHaveLength(1);

    core.sweeps.control(started.id, 'resume');
    await until(() => {
      const current = core.sweeps.get(started.id).progress.currentRunId;
      return current !== null && current !== first;
    });
    core.sweeps.control(started.id, 'cancel');
    const sweep = await core.sweeps.waitForEnd(started.id);
    expect(sweep.status).toBe('cancelled');
    expect(sweep.configs.map((c) => c.status)).toEqual(['skipped', 'skipped', 'pending']);
    expect(core.store.runs.forSweep(started.id)).toHaveLength(2);
  }, 60_000);

  it('a sweep whose engine was SIGKILLed is offered for resumption and finishes', async () => {
    const dir = makeTempDir('tb-sweep-crash-');
    const db = path.join(dir, 'runs.db');
    const child = spawn(
      process.execPath,
      [
        '--import',
        TSX_LOADER,
        CLI_ENTRY,
        '--db',
        db,
        'sweep',
        '--workload',
        'synthetic',
        '--set',
        'steps=400',
        '--vary',
        'batch=8,16',
        '--repeats',
        '1',
        '--no-wait-idle',
      ],
      { cwd: dir, env: { ...process.env, TUNING_BENCH_NVIDIA_SMI: '/nonexistent' }, stdio: 'ignore', detached: true },
    );
    try {
      temp = tempCore({ dbPath: db } as never);
      // Watch the child's database until the first run is under way.
      const probe = temp.core;
      await until(() => probe.store.runs.list(5).length > 0, 30_000);
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    } finally {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }
    const core = temp.reopen();
    expect(core.interruptedSweeps).toEqual([1]);
    expect(core.sweeps.get(1).status).toBe('interrupted');
    core.sweeps.control(1, 'resume');
    const sweep = await core.sweeps.waitForEnd(1);
    expect(sweep.status).toBe('succeeded');
    expect(sweep.configs.map((c) => c.status)).toEqual(['done', 'done']);
    // The killed run stays, interrupted, and names the run that took its place; that run names it back.
    const [killed, replacement, second] = core.store.runs.forSweep(1);
    expect([killed!.status, killed!.configIndex, killed!.repeatIndex]).toEqual(['interrupted', 0, 0]);
    expect([replacement!.status, replacement!.configIndex, replacement!.repeatIndex]).toEqual(['succeeded', 0, 0]);
    expect(killed!.replacedByRunId).toBe(replacement!.id);
    expect(replacement!.replacesRunId).toBe(killed!.id);
    expect(replacement!.replacedByRunId).toBeNull();
    // A place that was never interrupted has no replacement either way.
    expect([second!.configIndex, second!.replacesRunId, second!.replacedByRunId]).toEqual([1, null, null]);
    // Comparing the sweep counts that place once, by its replacement, not also by the partial run it replaced.
    const comparison = core.compare.compare(compareRequest.parse({ sweepIds: [1] }));
    expect(comparison.rows.map((row) => row.runIds)).toEqual([[replacement!.id], [second!.id]]);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('a run cut short because the engine closed is interrupted too, and a resume runs its place again', async () => {
    const core = open();
    const started = await core.sweeps.start(
      request(core, { values: { steps: '1000000' }, vary: [{ name: 'batch', values: ['8', '16'] }], plan: 'one-at-a-time', repeats: 1, timeoutSeconds: 60 }),
    );
    await until(() => core.sweeps.get(started.id).progress.currentRunId !== null);
    const cut = core.sweeps.get(started.id).progress.currentRunId!;
    await core.close();

    const reopened = temp!.reopen();
    const cutRun = reopened.store.runs.get(cut)!;
    // Not "stopped", which a resume would count as measured: the quit interrupted it, and says so.
    expect(cutRun.status).toBe('interrupted');
    expect(cutRun.exitReason).toBe('stopped because Tuning Bench was closing');
    expect(reopened.sweeps.get(started.id).status).toBe('interrupted');

    // The rerun only needs to start: a short one is enough to see the two runs point at each other.
    reopened.sweeps.control(started.id, 'resume');
    await until(() => reopened.store.runs.forSweep(started.id).length === 2);
    const replacement = reopened.store.runs.forSweep(started.id)[1]!;
    expect([replacement.configIndex, replacement.repeatIndex, replacement.replacesRunId]).toEqual([0, 0, cut]);
    expect(reopened.store.runs.get(cut)!.replacedByRunId).toBe(replacement.id);
    reopened.sweeps.control(started.id, 'cancel');
    await reopened.sweeps.waitForEnd(started.id);
  }, 60_000);
});

describe('a sweep on the fake GPU', () => {
  it('holds its GPU settings for every run, waits for fair conditions, and restores at the end', async () => {
    const dir = makeTempDir('tb-sweep-gpu-');
    const state = path.join(dir, 'gpu-state.json');
    const core = open({ TUNING_BENCH_NVIDIA_SMI: FAKE, FAKE_NVIDIA_SMI_STATE: state, FAKE_NVIDIA_SMI_ROOT: '1' });
    const started = await core.sweeps.start(
      request(core, {
        // Long enough (~2 s) for the fake nvidia-smi to report a few samples even on a loaded machine.
        values: { steps: '100' },
        vary: [{ name: 'amp', values: ['off', 'on'] }],
        repeats: 1,
        waitForIdle: true,
        maxWaitSeconds: 2,
        gpuSettings: { persistence: true, lockClocks: '2400' } as never,
      }),
    );
    const heard: Sweep['progress'][] = [];
    const subscription = core.subscribe((event, payload) => {
      if (event === 'sweeps.onDidChange' && (payload as Sweep).id === started.id) heard.push((payload as Sweep).progress);
    });
    const locked = JSON.parse(fs.readFileSync(state, 'utf8')).gpus['0'];
    expect(locked).toMatchObject({ persistence: true, gpuClockLock: [2400, 2400] });
    const sweep = await core.sweeps.waitForEnd(started.id);
    subscription.unsubscribe();
    // A wait is told as the place's waiting phase, with no run yet; a run, as its running phase.
    for (const progress of heard.filter((p) => p.now !== null)) {
      if (progress.waiting !== null) expect(progress.now!.phase).toBe('waiting');
      expect(progress.now!.runId === null).toBe(progress.now!.phase === 'waiting');
      expect(progress.now!.runStartedAt === null).toBe(progress.now!.phase === 'waiting');
    }
    expect(heard.some((p) => p.now?.phase === 'running' && p.now.run === 2 && p.now.of === 2)).toBe(true);
    expect(sweep.status).toBe('succeeded');
    const runs = core.store.runs.forSweep(sweep.id);
    for (const run of runs) {
      expect(run.gpuSettings).toMatchObject({ setBy: 'sweep', clockLock: { minMHz: 2400, maxMHz: 2400 }, persistenceMode: true });
      expect(['ready', 'timeout']).toContain(run.wait!.reason);
      // The host was waited for too, within the same bound, and what it saw is recorded.
      expect(['ready', 'timeout']).toContain(run.wait!.host!.reason);
      expect(run.wait!.host!.seconds).toBeLessThanOrEqual(2 + 1.5);
      expect(typeof run.wait!.host!.otherCpuCores).toBe('number');
      expect(run.summary.gpu!.smClockMeanMHz).toBe(2400);
    }
    expect(JSON.parse(fs.readFileSync(state, 'utf8')).gpus['0']).toMatchObject({ persistence: false, gpuClockLock: null });
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});

describe('tuning-bench sweep', () => {
  it('--json prints id, plan, status and each config with its runs and pooled summary', () => {
    const dir = makeTempDir('tb-sweep-cli-');
    const result = runCli(
      [
        '--db',
        path.join(dir, 'runs.db'),
        '--json',
        'sweep',
        '--workload',
        'synthetic',
        '--set',
        'steps=30',
        '--vary',
        'batch=8,16',
        '--plan',
        'one-at-a-time',
        '--repeats',
        '1',
        '--no-wait-idle',
      ],
      { env: { TUNING_BENCH_NVIDIA_SMI: '/nonexistent' }, cwd: dir },
    );
    expect(result.status, result.stderr).toBe(0);
    const sweep = JSON.parse(result.stdout);
    expect(sweep).toMatchObject({ id: 1, plan: 'one-at-a-time', status: 'succeeded' });
    expect(sweep.configs[1]).toMatchObject({ name: 'batch=16', config: { batch: '16', steps: '30' }, runIds: [2] });
    expect(sweep.configs[1].summary.throughput.median).toBeGreaterThan(sweep.configs[0].summary.throughput.median);
    expect(result.stderr).toMatch(/sweep 1 \[#+\] 2\/2/u);

    // A run that fails is counted on the progress line as soon as it has ended.
    const oom = runCli(
      [
        '--db',
        path.join(dir, 'runs.db'),
        'sweep',
        '--workload',
        'synthetic',
        '--set',
        'steps=30',
        '--vary',
        'batch=16,8',
        '--plan',
        'one-at-a-time',
        '--repeats',
        '1',
        '--no-wait-idle',
      ],
      { env: { TUNING_BENCH_NVIDIA_SMI: '/nonexistent', SYNTHETIC_MAX_BATCH: '12' }, cwd: dir },
    );
    expect(oom.status, oom.stderr).toBe(0);
    expect(oom.stderr).toMatch(/sweep 2 \[#+-+\] 1\/2, 1 failed.*running config 2 of 2 \(batch=8\)/u);

    const bad = runCli(['--db', path.join(dir, 'runs.db'), 'sweep', '--workload', 'synthetic', '--vary', 'batch'], { cwd: dir });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--vary takes VAR=V1,V2/u);
    spawnSync('rm', ['-rf', dir]);
  }, 60_000);
});
