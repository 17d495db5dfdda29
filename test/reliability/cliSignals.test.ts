// The CLI under a dropped SSH session, a kill, a run that ends within a second on a GPU machine, and a timeout past 2^31 ms.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_ENTRY, runCli, TSX_LOADER } from '../helpers/cli.js';
import { FAKE_NVIDIA_SMI } from '../helpers/fakeGpu.js';
import { makeTempDir } from '../helpers/tempCore.js';

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts `tuning-bench run`, sends `signal` once the command has printed "started", and waits for the CLI to exit. */
function runThenSignal(db: string, signal: NodeJS.Signals): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX_LOADER, CLI_ENTRY, '--db', db, '--json', 'run', '--', 'sh', '-c', 'echo started; sleep 30'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!sent && stderr.includes('started')) {
        sent = true;
        child.kill(signal);
      }
    });
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the CLI did not exit after ${signal}:\n${stderr}`));
    }, 30_000);
    child.on('exit', (code, exitSignal) => {
      clearTimeout(guard);
      resolve({ code, signal: exitSignal, stdout, stderr });
    });
  });
}

describe('the CLI and signals', () => {
  for (const [signal, reason] of [
    ['SIGHUP', /terminal closed \(SIGHUP/u],
    ['SIGTERM', /SIGTERM/u],
  ] as const) {
    it(`${signal} stops the run cleanly (stopped, with the reason) and the CLI exits itself`, async () => {
      dir = makeTempDir('tb-signal-');
      const db = path.join(dir, 'runs.db');
      const finished = await runThenSignal(db, signal);
      expect(finished.signal, finished.stderr).toBeNull();
      expect(finished.code, finished.stderr).toBe(0);
      const run = JSON.parse(finished.stdout) as { status: string; exitReason: string };
      expect(run.status).toBe('stopped');
      expect(run.exitReason).toMatch(reason);
      const listed = JSON.parse(runCli(['--db', db, '--json', 'runs']).stdout) as Array<{ status: string }>;
      expect(listed[0]?.status).toBe('stopped');
    }, 40_000);
  }

  it('a command that ends at once on a GPU machine exits 0 with the GPU fingerprint stored', () => {
    dir = makeTempDir('tb-late-');
    const db = path.join(dir, 'runs.db');
    const result = runCli(['--db', db, '--json', 'run', '--', 'true'], { env: { TUNING_BENCH_NVIDIA_SMI: FAKE_NVIDIA_SMI } });
    expect(result.stderr).not.toMatch(/TypeError|not open/u);
    expect(result.status, result.stderr).toBe(0);
    const shown = JSON.parse(runCli(['--db', db, '--json', 'show', '1']).stdout) as { fingerprint: Record<string, unknown> };
    expect(shown.fingerprint.gpuName).toBeTruthy();
  }, 60_000);

  it('a --timeout past 2^31 ms does not stop the run at once', () => {
    dir = makeTempDir('tb-timeout-');
    const db = path.join(dir, 'runs.db');
    const result = runCli(['--db', db, '--json', 'run', '--timeout', '3000000', '--', 'sh', '-c', 'sleep 1; echo done']);
    expect(result.status, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { status: string }).status).toBe('succeeded');
  }, 60_000);
});

describe('a signal in the first seconds of `run`', () => {
  it('after a GPU setting is applied but before the run starts still puts the setting back, and the CLI says so', async () => {
    dir = makeTempDir('tb-early-signal-');
    const db = path.join(dir, 'runs.db');
    const gpuState = path.join(dir, 'gpu-state.json');
    // Each control answers 3 s after its change took effect: the clocks are locked while the power limit is still being set.
    const env = {
      ...process.env,
      TUNING_BENCH_NVIDIA_SMI: FAKE_NVIDIA_SMI,
      FAKE_NVIDIA_SMI_STATE: gpuState,
      FAKE_NVIDIA_SMI_ROOT: '1',
      FAKE_NVIDIA_SMI_FAULT: 'slow-control=3000',
    };
    const child = spawn(
      process.execPath,
      [
        '--import',
        TSX_LOADER,
        CLI_ENTRY,
        '--db',
        db,
        '--json',
        'run',
        '--yes',
        '--lock-clocks',
        '2250',
        '--power-limit',
        '300',
        '--',
        'sh',
        '-c',
        'echo started; sleep 30',
      ],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    const lockedClocks = () => {
      try {
        return (JSON.parse(fs.readFileSync(gpuState, 'utf8')) as { gpus: Record<string, { gpuClockLock: unknown }> }).gpus['0']!.gpuClockLock;
      } catch {
        return null;
      }
    };
    await expect.poll(lockedClocks, { timeout: 20_000, interval: 50 }).toEqual([2250, 2250]);
    child.kill('SIGHUP');
    const { code, signal } = await Promise.race([
      exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`the CLI did not exit:\n${stderr}`)), 40_000)),
    ]);
    // Not killed by the signal: the CLI handled it, put the clocks back itself, and said why it ran nothing.
    expect(signal, stderr).toBeNull();
    expect(code, stderr).toBe(1);
    expect(lockedClocks()).toBeNull();
    expect(stderr).toMatch(/SIGHUP.*before the run started.*put back/iu);
    expect(stdout).toMatch(/"code": "StoppedBeforeStart"/u);
    expect(stderr).not.toContain('started\n');
  }, 60_000);
});
