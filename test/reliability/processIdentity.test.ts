// Processes are known by pid and start time: Stop and crash recovery find every descendant (double-forked, setsid,
// deaf to TERM), signal each once, and a live process that merely got an old pid is never taken for an owner.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processStartTicks } from '../../electron/core/system/procStat.js';
import { CLI_ENTRY, runCli, TSX_LOADER } from '../helpers/cli.js';
import { coreWithFakeGpu } from '../helpers/fakeGpu.js';
import { isRunning, readPid } from '../helpers/processes.js';
import { makeTempDir, tempCore, type TempCore } from '../helpers/tempCore.js';

let harness: TempCore | null = null;
let dir: string | null = null;
const started: number[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone, as it should be.
    }
  }
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await harness?.cleanup();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  harness = null;
  dir = null;
});

/**
 * A daemon the run leaves behind the way a data server or a careless launcher does: a subshell starts it under
 * setsid and exits at once, so it is nobody's child in the run, in another session, deaf to INT, TERM and HUP.
 */
const escapingDaemon = (pidFile: string) => `( setsid sh -c 'trap "" INT TERM HUP; echo $$ > ${pidFile}; while :; do sleep 1; done' & ); `;

describe('Stop', () => {
  it('reaches a double-forked setsid grandchild that ignores TERM, escalating process by process', async () => {
    harness = tempCore();
    const h = harness;
    const pidFile = path.join(h.dir, 'daemon.pid');
    const run = h.core.startCommand({ adHoc: { command: ['sh', '-c', `${escapingDaemon(pidFile)}echo started; sleep 300`], cwd: h.dir } });
    await expect.poll(() => readPid(pidFile), { timeout: 10_000 }).not.toBeNull();
    const daemon = readPid(pidFile)!;
    started.push(daemon);
    h.core.runner.stop(run.id);
    const ended = await h.core.runner.waitForExit(run.id);
    expect(ended.status).toBe('stopped');
    // INT and TERM are ignored; the escalation's SIGKILL reached it.
    await expect.poll(() => isRunning(daemon), { timeout: 15_000 }).toBe(false);
    // Nothing survived, and the record says so (no stale or missing survivors).
    expect(ended.survivorPids).toEqual([]);
  }, 40_000);

  it("sends SIGINT once: Python's KeyboardInterrupt handler finishes its checkpoint, with no second interrupt and no traceback", async () => {
    harness = tempCore();
    const h = harness;
    const trainer = [
      'import time',
      'print("training", flush=True)',
      'try:',
      '    while True: time.sleep(0.1)',
      'except KeyboardInterrupt:',
      '    time.sleep(1.5)',
      '    print("checkpoint saved", flush=True)',
    ].join('\n');
    const run = h.core.startCommand({ adHoc: { command: ['python3', '-c', trainer], cwd: h.dir } });
    await expect.poll(() => Buffer.concat(h.core.store.runs.outputAfter(run.id, -1).map((c) => c.data)).toString(), { timeout: 10_000 }).toContain('training');
    h.core.runner.stop(run.id);
    await h.core.runner.waitForExit(run.id);
    const output = Buffer.concat(h.core.store.runs.outputAfter(run.id, -1).map((c) => c.data)).toString();
    expect(output).toContain('checkpoint saved');
    expect(output).not.toContain('Traceback');
  }, 30_000);
});

describe('after the engine is killed', () => {
  it('recovery names every surviving process of the run (the double-forked one too), and kill-orphan stops them all', async () => {
    dir = makeTempDir();
    const db = path.join(dir, 'runs.db');
    const pidFile = path.join(dir, 'daemon.pid');
    // The training itself ignores the hang-up and TERM (nohup-style), and leaves an escaped daemon.
    const script = `trap "" HUP TERM; ${escapingDaemon(pidFile)}echo started; while :; do sleep 1; done`;
    const engine = spawn(process.execPath, ['--import', TSX_LOADER, CLI_ENTRY, '--db', db, 'run', '--', 'sh', '-c', script], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(engine);
    let seen = '';
    engine.stdout.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    await expect.poll(() => seen.includes('started') && readPid(pidFile) !== null, { timeout: 20_000 }).toBe(true);
    const daemon = readPid(pidFile)!;
    started.push(daemon);
    // The tree is written down as it is found (every half second): give it one look before the crash.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    engine.kill('SIGKILL');
    await new Promise((resolve) => engine.once('exit', resolve));
    expect(isRunning(daemon)).toBe(true);

    const cli = runCli(['--db', db, 'runs']);
    expect(cli.stderr).toMatch(new RegExp(`run 1 was interrupted, but its processes are still running \\(.*\\b${daemon}\\b`, 'u'));
    // The advice names every process, and goes on to SIGKILL for those that ignore SIGTERM.
    expect(cli.stderr).toMatch(/kill -9/u);

    harness = tempCore({ dbPath: db });
    const orphans = await harness.core.handlers['runs.orphans']({}, { subscriberId: null });
    expect(orphans).toHaveLength(1);
    expect(orphans[0]!.pids).toContain(daemon);
    const leader = orphans[0]!.pid;
    started.push(leader);
    await harness.core.handlers['runs.killOrphan']({ runId: 1 }, { subscriberId: null });
    await expect.poll(() => [daemon, leader].filter(isRunning), { timeout: 15_000 }).toEqual([]);
    // Read from /proc each time: under a loaded machine the last of the group can take a moment longer to be gone.
    await expect.poll(async () => harness!.core.handlers['runs.orphans']({}, { subscriberId: null }), { timeout: 10_000 }).toEqual([]);
  }, 90_000);
});

describe('a live process with an old pid', () => {
  /** Some live process that is not us: it has a pid, and a start time of its own. */
  function stranger(): number {
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(child);
    return child.pid!;
  }

  it('is not the owner of GPU changes: they are listed as unrestored, restored, and block no later lock', async () => {
    harness = coreWithFakeGpu(undefined, { FAKE_NVIDIA_SMI_ROOT: '1' });
    const core = harness.core;
    const pid = stranger();
    // A crashed engine's change, written a minute ago by a process whose pid this live stranger now has.
    const id = core.store.gpuJournal.begin({
      createdAt: new Date(Date.now() - 60_000),
      gpu: '0',
      operation: 'lockClocks',
      prior: { range: null },
      applied: { range: { minMHz: 2250, maxMHz: 2250 } },
      scope: 'run',
      ownerPid: pid,
      runId: null,
    });
    core.store.gpuJournal.markApplied(id, { range: { minMHz: 2250, maxMHz: 2250 } });
    const status = await core.handlers['gpu.status']({}, { subscriberId: null });
    expect(status.abandoned.map((entry) => entry.id)).toContain(id);
    const lease = await core.gpu.acquire({ lockClocks: { minMHz: 2100, maxMHz: 2100 } }, { scope: 'run', confirmOtherProcesses: true, label: 'a new run' });
    await lease.release();
    expect(core.store.gpuJournal.get(id)!.state).toBe('restored');
  }, 30_000);

  it('is not the engine of a run: the run is recovered as interrupted, whether its record has a start time or not', async () => {
    harness = tempCore();
    const pid = stranger();
    const insert = (engineStartTicks: number | null) =>
      harness!.core.store.runs.insert({
        workloadId: null,
        workloadName: null,
        command: ['train'],
        cwd: harness!.dir,
        config: {},
        env: {},
        // Written a minute ago by the engine that had this pid then.
        startedAt: new Date(Date.now() - 60_000),
        enginePid: pid,
        engineStartTicks,
      });
    const withWrongStart = insert(1);
    const fromBeforeStartTimes = insert(null);
    const core = harness.reopen();
    expect(core.recovery.interrupted.map((r) => r.id)).toEqual([withWrongStart.id, fromBeforeStartTimes.id]);
    expect(core.store.runs.get(withWrongStart.id)!.status).toBe('interrupted');
  }, 30_000);

  it('is not the owner of a sweep: the sweep is recovered as interrupted, and one of a live engine is left alone', async () => {
    harness = tempCore();
    const pid = stranger();
    const sweep = (owner: { pid: number; startTicks: number | null }) =>
      harness!.core.store.sweeps.insert({
        createdAt: new Date(Date.now() - 60_000),
        name: 'a sweep',
        kind: 'sweep',
        workloadId: null,
        workloadName: 'synthetic',
        plan: 'ladder',
        request: {} as never,
        configs: [],
        ownerPid: owner.pid,
        ownerStartTicks: owner.startTicks,
      });
    const ofDeadEngine = sweep({ pid, startTicks: 1 });
    // Another engine, alive and itself (its pid and its own start time), owns this one.
    const liveEngine = stranger();
    const ofLiveEngine = sweep({ pid: liveEngine, startTicks: processStartTicks(liveEngine) });
    const core = harness.reopen();
    expect(core.interruptedSweeps).toEqual([ofDeadEngine.id]);
    expect(core.store.sweeps.get(ofLiveEngine.id)!.status).toBe('queued');
  }, 30_000);
});
