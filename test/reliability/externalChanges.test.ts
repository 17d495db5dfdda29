// One database, two processes: a UI's engine notices a run the CLI starts and ends in the same file, without a reload.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { Run, Sweep } from '../../electron/shared/api.js';
import { CLI_ENTRY, TSX_LOADER } from '../helpers/cli.js';
import { tempCore, type TempCore } from '../helpers/tempCore.js';

let harness: TempCore | null = null;
afterEach(async () => {
  await harness?.cleanup();
  harness = null;
});

describe('changes made by another process', () => {
  it('a run the CLI starts and ends appears in an open engine as running, then as succeeded', async () => {
    harness = tempCore();
    const h = harness;
    const seen: Run[] = [];
    h.core.subscribe((event, payload) => {
      if (event === 'runs.onDidChange') seen.push(payload as Run);
    });
    const cli = spawn(process.execPath, ['--import', TSX_LOADER, CLI_ENTRY, '--db', h.dbPath, 'run', '--', 'sh', '-c', 'echo from the cli; sleep 2'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise((resolve) => cli.once('exit', resolve));
    await expect.poll(() => seen.some((run) => run.status === 'running' && run.command.includes('echo from the cli; sleep 2')), { timeout: 15_000 }).toBe(true);
    await exited;
    await expect.poll(() => seen.some((run) => run.status === 'succeeded'), { timeout: 5_000 }).toBe(true);
    // Only one engine reports each change: the open one never claimed the CLI's run as its own.
    expect(h.core.runner.activeRunIds()).toEqual([]);
  }, 40_000);

  it('a sweep the CLI runs shows its progress and its end in an open engine', async () => {
    harness = tempCore();
    const h = harness;
    const seen: Sweep[] = [];
    h.core.subscribe((event, payload) => {
      if (event === 'sweeps.onDidChange') seen.push(payload as Sweep);
    });
    const cli = spawn(
      process.execPath,
      [
        '--import',
        TSX_LOADER,
        CLI_ENTRY,
        '--db',
        h.dbPath,
        'sweep',
        '--vary',
        'n=1,2',
        '--repeats',
        '1',
        '--no-wait-idle',
        '--',
        'sh',
        '-c',
        'sleep 1; echo {n}',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise((resolve) => cli.once('exit', resolve));
    await expect.poll(() => seen.some((sweep) => sweep.status === 'running'), { timeout: 15_000 }).toBe(true);
    await exited;
    await expect.poll(() => seen.at(-1)?.status, { timeout: 5_000 }).toBe('succeeded');
    expect(seen.at(-1)!.configs.map((config) => config.runIds.length)).toEqual([1, 1]);
  }, 40_000);
});
