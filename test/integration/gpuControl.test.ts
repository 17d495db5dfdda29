// GPU control against the fake nvidia-smi only (never a real GPU): each action through the CLI, each
// refusal, values refused before any command runs, the journal, and restores after a run, after a
// SIGKILL of the engine, and through sudo and pkexec.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, TSX_LOADER, CLI_ENTRY } from '../helpers/cli.js';
import { makeTempDir, REPO_ROOT, tempCore, type TempCore } from '../helpers/tempCore.js';

const FAKE = path.join(REPO_ROOT, 'test/fixtures/fake-nvidia-smi');
const HELPER = path.join(REPO_ROOT, 'build/gpu-helper/tuning-bench-gpu-helper');

interface FakeGpuState {
  persistence: boolean;
  gpuClockLock: [number, number] | null;
  memClockLock: [number, number] | null;
  powerLimitW: number;
}

let dir: string;
let env: Record<string, string>;

/** Every nvidia-smi call, logged by a wrapper before the fake answers: proves what ran and what did not. */
function callsLog(): string[][] {
  const file = path.join(dir, 'calls.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as string[]);
}
const CONTROL_OPTIONS = new Set(['-pm', '-lgc', '-rgc', '-lmc', '-rmc', '-pl']);
const controlCalls = () => callsLog().filter((args) => args.some((arg) => CONTROL_OPTIONS.has(arg)));

function fakeState(): FakeGpuState {
  const file = env.FAKE_NVIDIA_SMI_STATE!;
  if (!fs.existsSync(file)) return { persistence: false, gpuClockLock: null, memClockLock: null, powerLimitW: 450 };
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { gpus: Record<string, FakeGpuState> }).gpus['0']!;
}

function journal(dbFile = env.TUNING_BENCH_DB!): Array<Record<string, unknown>> {
  if (!fs.existsSync(dbFile)) return [];
  const db = new Database(dbFile, { readonly: true });
  try {
    return db.prepare('SELECT * FROM gpu_settings_journal ORDER BY id').all() as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
}

function cli(args: string[], extra: Record<string, string> = {}) {
  return runCli(args, { env: { ...env, ...extra }, cwd: dir });
}

function writeScript(name: string, body: string): string {
  const file = path.join(dir, 'bin', name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, body, { mode: 0o755 });
  return file;
}

beforeEach(() => {
  dir = makeTempDir('tb-gpu-control-');
  const wrapper = writeScript(
    'nvidia-smi-logged',
    `#!/bin/sh\nnode -e 'require("fs").appendFileSync(process.argv[1], JSON.stringify(process.argv.slice(2)) + "\\n")' ${path.join(dir, 'calls.jsonl')} "$@"\nexec ${FAKE} "$@"\n`,
  );
  env = {
    TUNING_BENCH_DB: path.join(dir, 'runs.db'),
    TUNING_BENCH_NVIDIA_SMI: wrapper,
    FAKE_NVIDIA_SMI_STATE: path.join(dir, 'gpu-state.json'),
    FAKE_NVIDIA_SMI_ROOT: '1',
    TUNING_BENCH_GPU_ELEVATION: 'auto',
    // Nothing fresh to follow: the fake reports no processes unless a test says so.
    TUNING_BENCH_LOAD_FILE: path.join(dir, 'no-load.json'),
  };
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('tuning-bench gpu', () => {
  it("status --json reports the fake's state, ranges, profiles and how changes get root", () => {
    const result = cli(['gpu', 'status', '--json']);
    expect(result.status, result.stderr).toBe(0);
    const status = JSON.parse(result.stdout);
    expect(status).toMatchObject({ available: true, gpu: '0', elevation: { mode: 'root' }, abandoned: [], manual: [] });
    expect(status.state).toMatchObject({
      name: 'NVIDIA GeForce RTX 4090',
      persistenceMode: false,
      power: { requestedLimitW: 450, defaultLimitW: 450, minLimitW: 150, maxLimitW: 600 },
      locks: { clocks: null, memoryClocks: null },
      processes: [],
    });
    expect(status.state.supportedGraphicsMHz[0]).toBe(3120);
    expect(status.state.supportedMemoryMHz).toEqual([10501, 10251, 5001, 810, 405]);
    expect(status.profiles.map((p: { id: string }) => p.id)).toEqual(['max-sustained', 'base-clock']);
  });

  it('applies each of the six manual changes, which stay, and journals prior and applied values', () => {
    expect(cli(['gpu', 'persistence', 'on']).status).toBe(0);
    expect(fakeState().persistence).toBe(true);
    expect(cli(['gpu', 'lock-clocks', '1500,2400']).status).toBe(0);
    expect(fakeState().gpuClockLock).toEqual([1500, 2400]);
    expect(cli(['gpu', 'lock-memory-clocks', '10501']).status).toBe(0);
    expect(fakeState().memClockLock).toEqual([10501, 10501]);
    const power = cli(['gpu', 'power-limit', '300']);
    expect(power.stdout).toMatch(/Power limit for GPU 00000000:01:00.0 was set to 300.00 W from 450.00 W/u);
    expect(fakeState().powerLimitW).toBe(300);

    // The app remembers the manual locks nvidia-smi cannot report.
    const status = JSON.parse(cli(['gpu', 'status', '--json']).stdout);
    expect(status.state.locks).toEqual({ clocks: { minMHz: 1500, maxMHz: 2400 }, memoryClocks: { minMHz: 10501, maxMHz: 10501 } });
    expect(status.manual.map((e: { operation: string }) => e.operation).sort()).toEqual(['lockClocks', 'lockMemoryClocks', 'persistence', 'powerLimit']);

    expect(cli(['gpu', 'reset-clocks']).status).toBe(0);
    expect(cli(['gpu', 'reset-memory-clocks']).status).toBe(0);
    expect(cli(['gpu', 'persistence', 'off']).status).toBe(0);
    expect(fakeState()).toMatchObject({ persistence: false, gpuClockLock: null, memClockLock: null });

    const rows = journal();
    expect(rows.map((r) => r.operation)).toEqual([
      'persistence',
      'lockClocks',
      'lockMemoryClocks',
      'powerLimit',
      'resetClocks',
      'resetMemoryClocks',
      'persistence',
    ]);
    expect(rows.every((r) => r.scope === 'manual' && r.state === 'applied')).toBe(true);
    expect(JSON.parse(rows[1]!.prior_json as string)).toEqual({ range: null });
    expect(JSON.parse(rows[1]!.applied_json as string)).toMatchObject({ range: { minMHz: 1500, maxMHz: 2400 }, echoed: { minMHz: 1500, maxMHz: 2400 } });
    expect(JSON.parse(rows[3]!.prior_json as string)).toEqual({ watts: 450 });
    expect(JSON.parse(rows[4]!.prior_json as string)).toEqual({ range: { minMHz: 1500, maxMHz: 2400 } });
    expect(rows[0]!.gpu).toMatch(/^GPU-/u);
  });

  it.each([
    [['gpu', 'lock-clocks', '21a0']],
    [['gpu', 'lock-clocks', '2100,2100,2100']],
    [['gpu', 'lock-clocks', '2100;reboot']],
    [['gpu', 'lock-clocks', '$(id)']],
    [['gpu', 'lock-memory-clocks', '10501 ']],
    [['gpu', 'power-limit', '300W']],
    [['gpu', 'power-limit', '300.5']],
    [['gpu', 'persistence', 'yes']],
    [['gpu', 'status', '--gpu', '0;id']],
    [['run', '--lock-clocks', '2100,', '--', 'true']],
    [['run', '--power-limit', '-5', '--', 'true']],
  ])('refuses %j before any command runs (exit 2)', (args) => {
    const result = cli(args);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/MHz as digits|whole watts|on or off|index|argument/u);
    expect(callsLog()).toEqual([]);
    expect(journal()).toEqual([]);
  });

  it('refuses values outside the GPU ranges after reading them, before any change', () => {
    const clocks = cli(['gpu', 'lock-clocks', '3500']);
    expect(clocks.status).toBe(2);
    expect(clocks.stderr).toMatch(/supports graphics clocks up to 3120 MHz/u);
    const power = cli(['gpu', 'power-limit', '9000']);
    expect(power.stderr).toMatch(/takes 150-600 W/u);
    expect(controlCalls()).toEqual([]);
    expect(journal()).toEqual([]);
  });

  it('says what to run in a terminal when nvidia-smi refuses (no root), and journals the failure', () => {
    const result = cli(['gpu', 'lock-clocks', '2100'], { FAKE_NVIDIA_SMI_ROOT: '0' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/does not have permission to change clocks/u);
    expect(result.stderr).toMatch(/sudo \S*nvidia-smi\S* -i GPU-\S+ -lgc 2100,2100/u);
    expect(fakeState().gpuClockLock).toBeNull();
    const [row] = journal();
    expect(row).toMatchObject({ operation: 'lockClocks', state: 'failed', scope: 'manual' });
    expect(row!.error).toMatch(/permission/u);

    const pm = cli(['gpu', 'persistence', 'on'], { FAKE_NVIDIA_SMI_ROOT: '0' });
    expect(pm.stderr).toMatch(/Insufficient Permissions/u);
    const pl = cli(['gpu', 'power-limit', '300'], { FAKE_NVIDIA_SMI_ROOT: '0' });
    expect(pl.stderr).toMatch(/Failed to set power management limit/u);
  });

  it('refuses a GPU the driver does not list, clearly', () => {
    const result = cli(['gpu', 'lock-clocks', '2100', '--gpu', '7']);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/cannot change GPU 7: No devices were found/u);
  });

  it('asks before changing clocks while other processes use the GPU; --yes goes ahead', () => {
    const loadFile = path.join(dir, 'load.json');
    fs.writeFileSync(loadFile, JSON.stringify({ t: Date.now(), phase: 'train', util: 0.9, vramMiB: 3000, pid: process.pid }));
    const extra = { TUNING_BENCH_LOAD_FILE: loadFile };
    const refused = cli(['gpu', 'lock-clocks', '2100'], extra);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/other processes use GPU 0: .*\(pid \d+, 3000 MiB\).*--yes/u);
    expect(controlCalls()).toEqual([]);
    // Persistence does not change anyone's speed: no question asked.
    expect(cli(['gpu', 'persistence', 'on'], extra).status).toBe(0);
    fs.writeFileSync(loadFile, JSON.stringify({ t: Date.now(), phase: 'train', util: 0.9, vramMiB: 3000, pid: process.pid }));
    expect(cli(['gpu', 'lock-clocks', '2100', '--yes'], extra).status).toBe(0);
    expect(fakeState().gpuClockLock).toEqual([2100, 2100]);
  });
});

describe('run with GPU settings', () => {
  it('applies them for the run, records them with it, and restores the prior state after', () => {
    expect(cli(['gpu', 'lock-memory-clocks', '5001']).status).toBe(0);
    const result = cli([
      '--json',
      'run',
      '--persistence',
      '--lock-clocks',
      '2400',
      '--lock-memory-clocks',
      '10501',
      '--power-limit',
      '350',
      '--workload',
      'synthetic',
      '--set',
      'steps=40',
    ]);
    expect(result.status, result.stderr).toBe(0);
    const run = JSON.parse(result.stdout);
    expect(run.status).toBe('succeeded');
    expect(run.gpuSettings).toMatchObject({
      gpu: '0',
      persistenceMode: true,
      powerLimitW: 350,
      clockLock: { minMHz: 2400, maxMHz: 2400 },
      memoryClockLock: { minMHz: 10501, maxMHz: 10501 },
      setBy: 'run',
      restored: true,
    });
    // The fake's telemetry follows the lock.
    expect(run.summary.gpu.smClockMeanMHz).toBe(2400);
    // Back to before the run, including the manual memory lock it found.
    expect(fakeState()).toEqual({ persistence: false, gpuClockLock: null, memClockLock: [5001, 5001], powerLimitW: 450 });
    const runRows = journal().filter((r) => r.scope === 'run');
    expect(runRows.map((r) => [r.operation, r.state, r.run_id])).toEqual([
      ['persistence', 'restored', run.id],
      ['powerLimit', 'restored', run.id],
      ['lockClocks', 'restored', run.id],
      ['lockMemoryClocks', 'restored', run.id],
    ]);
  });

  it("applies a sweep's settings from the CLI for every run of it, and restores them after", () => {
    const result = cli([
      '--json',
      'sweep',
      '--workload',
      'synthetic',
      '--vary',
      'batch=8,16',
      '--set',
      'steps=10',
      '--repeats',
      '1',
      '--no-wait-idle',
      '--persistence',
      '--lock-clocks',
      '2100,2400',
      '--power-limit',
      '300',
    ]);
    expect(result.status, result.stderr).toBe(0);
    const sweep = JSON.parse(result.stdout) as { status: string; configs: Array<{ runIds: number[] }> };
    expect(sweep.status).toBe('succeeded');
    for (const id of sweep.configs.flatMap((config) => config.runIds)) {
      const run = JSON.parse(cli(['--json', 'show', String(id)]).stdout);
      expect(run.gpuSettings).toMatchObject({ persistenceMode: true, powerLimitW: 300, clockLock: { minMHz: 2100, maxMHz: 2400 }, setBy: 'sweep' });
    }
    expect(fakeState()).toEqual({ persistence: false, gpuClockLock: null, memClockLock: null, powerLimitW: 450 });
  });

  it('records the settings in force for a run that asked for none', () => {
    expect(cli(['gpu', 'lock-clocks', '1800']).status).toBe(0);
    const run = JSON.parse(cli(['--json', 'run', '--workload', 'synthetic', '--set', 'steps=10']).stdout);
    expect(run.gpuSettings).toMatchObject({ persistenceMode: false, powerLimitW: 450, clockLock: { minMHz: 1800, maxMHz: 1800 }, setBy: null });
    expect(fakeState().gpuClockLock).toEqual([1800, 1800]);
  });

  it('does not start the run when a setting cannot be applied, and undoes the ones it made', () => {
    const result = cli(['run', '--persistence', '--lock-clocks', '2400', '--', 'true'], { FAKE_NVIDIA_SMI_FAULT: '', FAKE_NVIDIA_SMI_ROOT: '0' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/cannot turn persistence mode on on GPU 0: nvidia-smi refused .*Insufficient Permissions/u);
    expect(JSON.parse(cli(['--json', 'runs']).stdout)).toEqual([]);
    expect(fakeState().persistence).toBe(false);
  });

  it('SIGKILLed with clocks locked: the next start of the CLI restores them and says so', async () => {
    const child = spawn(
      process.execPath,
      ['--import', TSX_LOADER, CLI_ENTRY, 'run', '--lock-clocks', '2400', '--power-limit', '300', '--workload', 'synthetic', '--set', 'steps=100000'],
      { cwd: dir, env: { ...process.env, ...env }, stdio: 'ignore', detached: true },
    );
    try {
      // Killed once both settings are applied and journalled with their run (the journal names run 1 only
      // once the run's record exists: killed between the two, the restore says "(run)"), so the restore
      // below has both to undo and a run to name.
      await expect
        .poll(
          () => ({
            gpuClockLock: fakeState().gpuClockLock,
            powerLimitW: fakeState().powerLimitW,
            applied: journal().filter((r) => r.state === 'applied' && r.run_id !== null).length,
          }),
          { timeout: 30_000 },
        )
        .toEqual({ gpuClockLock: [2400, 2400], powerLimitW: 300, applied: 2 });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    } finally {
      // The training itself outlives the engine; end its group so it does not linger.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      // The training leads its own session (the pty's): its process group is the run's recorded pid.
      const db = new Database(env.TUNING_BENCH_DB!, { readonly: true });
      const pids = db.prepare('SELECT pid FROM runs WHERE pid IS NOT NULL').all() as Array<{ pid: number }>;
      db.close();
      for (const { pid } of pids) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    expect(fakeState()).toMatchObject({ gpuClockLock: [2400, 2400], powerLimitW: 300 });
    expect(journal().filter((r) => r.state === 'applied').length).toBe(2);

    const next = cli(['gpu', 'status', '--json']);
    expect(next.status, next.stderr).toBe(0);
    expect(next.stderr).toMatch(/restored GPU settings left by a run that did not finish: undid .*lock GPU clocks at 2400 MHz \(run 1\)/u);
    expect(next.stderr).toMatch(/set the power limit to 300 W \(run 1\)/u);
    expect(JSON.parse(next.stdout).abandoned).toEqual([]);
    expect(fakeState()).toMatchObject({ gpuClockLock: null, powerLimitW: 450 });
    expect(journal().map((r) => r.state)).toEqual(['restored', 'restored']);
  }, 60_000);
});

describe('getting root', () => {
  it('uses sudo -n where it is allowed without a password', () => {
    writeScript('sudo', '#!/bin/sh\n[ "$1" = -n ] || exit 1\nshift\n[ "$1" = -l ] && exit 0\n[ "$1" = -- ] && shift\nFAKE_NVIDIA_SMI_ROOT=1 exec "$@"\n');
    const extra = { TUNING_BENCH_GPU_ELEVATION: 'sudo', FAKE_NVIDIA_SMI_ROOT: '0', PATH: `${path.join(dir, 'bin')}:${process.env.PATH}` };
    expect(JSON.parse(cli(['gpu', 'status', '--json'], extra).stdout).elevation.mode).toBe('sudo');
    const result = cli(['gpu', 'lock-clocks', '2100'], extra);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/via sudo/u);
    expect(fakeState().gpuClockLock).toEqual([2100, 2100]);
  });

  it('falls back to the terminal command when sudo wants a password', () => {
    writeScript('sudo', '#!/bin/sh\necho "sudo: a password is required" >&2\nexit 1\n');
    const extra = { TUNING_BENCH_GPU_ELEVATION: 'sudo', FAKE_NVIDIA_SMI_ROOT: '0', PATH: `${path.join(dir, 'bin')}:${process.env.PATH}` };
    const result = cli(['gpu', 'lock-clocks', '2100'], extra);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/sudo -n is not allowed.*\n\s+sudo \S+ -i GPU-\S+ -lgc 2100,2100/su);
  });

  it('uses pkexec with the helper from build/, which re-checks the allowlist', () => {
    writeScript('pkexec', '#!/bin/sh\nFAKE_NVIDIA_SMI_ROOT=1 exec "$@"\n');
    const extra = {
      TUNING_BENCH_GPU_ELEVATION: 'pkexec',
      TUNING_BENCH_GPU_HELPER: HELPER,
      FAKE_NVIDIA_SMI_ROOT: '0',
      PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`,
    };
    const result = cli(['gpu', 'power-limit', '320'], extra);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/via pkexec/u);
    expect(fakeState().powerLimitW).toBe(320);
  });

  it('says so when the pkexec dialog is dismissed', () => {
    writeScript('pkexec', '#!/bin/sh\nexit 126\n');
    const extra = { TUNING_BENCH_GPU_ELEVATION: 'pkexec', TUNING_BENCH_GPU_HELPER: HELPER, PATH: `${path.join(dir, 'bin')}:${process.env.PATH}` };
    const result = cli(['gpu', 'persistence', 'on'], extra);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/authentication dialog was dismissed/u);
  });

  it('refuses an unknown elevation setting before opening anything', () => {
    const result = cli(['gpu', 'status'], { TUNING_BENCH_GPU_ELEVATION: 'su' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/TUNING_BENCH_GPU_ELEVATION is one of auto, root, sudo, pkexec, manual/u);
  });
});

describe('the engine (desktop and headless faces)', () => {
  let temp: TempCore;
  afterEach(async () => {
    await temp.cleanup();
  });

  it('lists abandoned changes and restores them only when asked', async () => {
    // A dead engine's run: its changes applied, never restored.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    temp = tempCore({ env: { ...process.env, ...env } });
    const setup = await temp.core.gpu.apply({ kind: 'lockClocks', range: { minMHz: 2250, maxMHz: 2250 } }, { confirmOtherProcesses: false });
    expect(setup.via).toBe('root');
    temp.core.store.db.prepare("UPDATE gpu_settings_journal SET scope = 'run', owner_pid = ?").run(Number(dead.stdout));
    await temp.core.close();
    const core = temp.reopen();
    // Opening the engine restores nothing by itself: the desktop asks first.
    expect(fakeState().gpuClockLock).toEqual([2250, 2250]);
    const status = await core.handlers['gpu.status']({}, { subscriberId: null });
    expect(status.abandoned.map((e) => e.description)).toEqual([expect.stringMatching(/lock GPU clocks at 2250 MHz/u)]);
    const restored = await core.handlers['gpu.restoreAbandoned']({}, { subscriberId: null });
    expect(restored.restored).toHaveLength(1);
    expect(restored.failed).toEqual([]);
    expect(fakeState().gpuClockLock).toBeNull();
  });

  it("refuses a second run's settings while the first holds the GPU, and restores on close", async () => {
    temp = tempCore({ env: { ...process.env, ...env } });
    const synthetic = temp.core.store.workloads.getByName('synthetic')!;
    const first = await temp.core.startRun({
      workload: synthetic,
      values: { steps: '100000' },
      gpuSettings: { lockClocks: { minMHz: 2400, maxMHz: 2400 } },
    });
    expect(first.gpuSettings).toMatchObject({ setBy: 'run', clockLock: { minMHz: 2400, maxMHz: 2400 } });
    await expect(
      temp.core.startRun({ workload: synthetic, values: { steps: '10' }, gpuSettings: { powerLimitW: 300 }, confirmOtherProcesses: true }),
    ).rejects.toThrow(/held by a run of synthetic until it ends/u);
    // Quitting stops the run and puts the clocks back.
    await temp.core.close();
    expect(fakeState().gpuClockLock).toBeNull();
    const rows = journal(temp.dbPath);
    expect(rows.map((r) => r.state)).toEqual(['restored']);
  }, 30_000);
});
