// The runner against a real pty and a real SQLite file.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Run } from '../../electron/shared/api.js';
import { SYNTHETIC_TRAIN, tempCore, type TempCore } from '../helpers/tempCore.js';

let harness: TempCore;
afterEach(async () => harness?.cleanup());

function storedBytes(h: TempCore, id: number): Buffer {
  return Buffer.concat(h.core.store.runs.outputAfter(id, -1).map((chunk) => chunk.data));
}

async function runToEnd(h: TempCore, command: string[], cwd = h.dir): Promise<Run> {
  const run = h.core.startCommand({ adHoc: { command, cwd } });
  return h.core.runner.waitForExit(run.id);
}

describe('a run of the synthetic workload', () => {
  it('goes from start to a stored, succeeded run with every byte it wrote', async () => {
    harness = tempCore();
    const workload = harness.core.store.workloads.getByName('synthetic')!;
    const events: string[] = [];
    harness.core.subscribe((event, _payload) => {
      events.push(event);
    });

    const started = harness.core.runner.start({ workload, values: { steps: '40', batch: '16' } });
    expect(started.status).toBe('running');
    expect(started.config).toMatchObject({ batch: '16', steps: '40', amp: 'off' });
    const finished = await harness.core.runner.waitForExit(started.id);

    expect(finished).toMatchObject({ status: 'succeeded', exitCode: 0, exitClass: 'ok', signal: null });
    const bytes = storedBytes(harness, finished.id);
    expect(finished.outputBytes).toBe(bytes.length);
    const text = bytes.toString('utf8');
    expect(text).toContain('step 40: loss');
    expect(text).toMatch(/\r/u); // the progress bar was drawn with carriage returns, as on a terminal
    expect(text).toContain('eval: loss');
    expect(events).toContain('runs.onOutput');
    expect(events.at(-1)).toBe('runs.onDidChange');
  });

  it('stores exactly the bytes the program wrote (no CRLF added by the pty)', async () => {
    harness = tempCore();
    const loadFile = path.join(harness.dir, 'load.json');
    const run = harness.core.startCommand({
      adHoc: { command: [process.execPath, SYNTHETIC_TRAIN, '--steps', '50'], cwd: harness.dir, env: { TUNING_BENCH_LOAD_FILE: loadFile } },
    });
    const finished = await harness.core.runner.waitForExit(run.id);
    const reported = JSON.parse(fs.readFileSync(loadFile, 'utf8')) as { bytesWritten: number; phase: string };
    expect(reported.phase).toBe('done');
    expect(finished.outputBytes).toBe(reported.bytesWritten);
    expect(storedBytes(harness, run.id).length).toBe(reported.bytesWritten);
  });

  it('keeps binary and invalid UTF-8 output byte for byte', async () => {
    harness = tempCore();
    const finished = await runToEnd(harness, ['/usr/bin/printf', 'ok\\n\\377\\376\\000bin\\n\\342\\202']);
    expect(finished.status).toBe('succeeded');
    expect([...storedBytes(harness, finished.id)]).toEqual([0x6f, 0x6b, 0x0a, 0xff, 0xfe, 0x00, 0x62, 0x69, 0x6e, 0x0a, 0xe2, 0x82]);
    // The text view replaces what is not UTF-8 instead of failing.
    const page = harness.core.store.runs.outputPage(finished.id, { afterSeq: -1, maxBytes: 1024, fromEnd: false });
    expect(page.chunks.map((c) => c.data).join('')).toContain('\uFFFD');
  });
});

describe('how runs end', () => {
  it('records a non-zero exit with its code and last line', async () => {
    harness = tempCore();
    const finished = await runToEnd(harness, ['/bin/sh', '-c', 'echo preparing; echo "ValueError: bad lr" >&2; exit 3']);
    expect(finished).toMatchObject({ status: 'failed', exitCode: 3, exitClass: 'error', exitReason: 'ValueError: bad lr' });
  });

  it('tells a program that exits 137 or 130 by itself from one a signal ended', async () => {
    harness = tempCore();
    // Shells report both as the same $? (128 + the signal's number); the run must not.
    const exited137 = await runToEnd(harness, ['/bin/sh', '-c', 'echo about to exit; exit 137']);
    expect(exited137).toMatchObject({ status: 'failed', exitCode: 137, signal: null });
    expect(exited137.exitReason).toMatch(/exited with status 137/);
    expect(exited137.exitReason).not.toMatch(/killed by SIGKILL from outside/);
    const exited130 = await runToEnd(harness, [process.execPath, '-e', 'process.exit(130)']);
    expect(exited130).toMatchObject({ status: 'failed', exitCode: 130, signal: null, exitClass: 'error' });

    const killed = await runToEnd(harness, [process.execPath, '-e', 'process.kill(process.pid, "SIGKILL")']);
    expect(killed).toMatchObject({ status: 'failed', exitCode: null, signal: 'SIGKILL', exitClass: 'host_oom' });
    const interrupted = await runToEnd(harness, [process.execPath, '-e', 'process.kill(process.pid, "SIGINT")']);
    expect(interrupted).toMatchObject({ status: 'failed', exitCode: null, signal: 'SIGINT' });
  });

  it('leaves the program the environment it was given (nothing of the wrapper leaks in)', async () => {
    harness = tempCore();
    const envFile = path.join(harness.dir, 'env.json');
    // A NODE_OPTIONS meant for the program (a Node training script) must reach it, and only it.
    const preload = path.join(harness.dir, 'preload.cjs');
    fs.writeFileSync(preload, "process.stdout.write('preloaded\\n');\n");
    const run = harness.core.startCommand({
      adHoc: {
        command: [process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(envFile)}, JSON.stringify(process.env))`],
        cwd: harness.dir,
        env: { NODE_OPTIONS: `--require ${preload}` },
      },
    });
    const finished = await harness.core.runner.waitForExit(run.id);
    expect(finished.status).toBe('succeeded');
    const env = JSON.parse(fs.readFileSync(envFile, 'utf8')) as Record<string, string>;
    expect(Object.keys(env).filter((key) => key.startsWith('TUNING_BENCH_WRAPPER'))).toEqual([]);
    expect(env.TUNING_BENCH_RUN_ID).toBeDefined();
    expect(env.NODE_OPTIONS).toBe(`--require ${preload}`);
    expect(storedBytes(harness, run.id).toString()).toBe('preloaded\n');
  });

  it('records a command that does not exist as not_found, with a message', async () => {
    harness = tempCore();
    const finished = await runToEnd(harness, ['definitely-not-a-command-xyz', '--flag']);
    expect(finished).toMatchObject({ status: 'failed', exitClass: 'not_found', outputBytes: 0 });
    expect(finished.exitReason).toMatch(/command not found: definitely-not-a-command-xyz/);
  });

  it('refuses a working directory that does not exist, before creating a run', async () => {
    harness = tempCore();
    expect(() => harness.core.startCommand({ adHoc: { command: ['true'], cwd: '/nonexistent/dir' } })).toThrow(
      /working directory \/nonexistent\/dir does not exist/,
    );
    expect(harness.core.store.runs.list(10)).toHaveLength(0);
  });

  it('classifies a CUDA out-of-memory from the synthetic workload', async () => {
    harness = tempCore();
    const finished = await runToEnd(harness, [process.execPath, SYNTHETIC_TRAIN, '--batch-size', '64', '--max-batch', '32']);
    expect(finished).toMatchObject({ status: 'failed', exitCode: 1, exitClass: 'cuda_oom' });
    expect(finished.exitReason).toMatch(/CUDA out of memory/);
  });

  it('stops the whole process group, DataLoader-style workers included', async () => {
    harness = tempCore();
    const run = harness.core.startCommand({
      adHoc: { command: [process.execPath, SYNTHETIC_TRAIN, '--steps', '100000', '--workers', '2'], cwd: harness.dir },
    });
    // Every process in the run's process group (the pty's session): the trainer and its workers.
    const groupMembers = () =>
      fs
        .readdirSync('/proc')
        .filter((entry) => /^\d+$/u.test(entry))
        .filter((pid) => {
          try {
            const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
            return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === run.pid;
          } catch {
            return false;
          }
        });
    const workersOf = () =>
      groupMembers().filter((pid) => {
        try {
          return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('synthetic-dataloader-worker');
        } catch {
          return false;
        }
      });
    await expect.poll(() => workersOf().length, { timeout: 10_000 }).toBe(2);
    harness.core.runner.stop(run.id);
    const finished = await harness.core.runner.waitForExit(run.id);
    expect(finished).toMatchObject({ status: 'stopped', exitClass: 'killed' });
    // SIGKILL is delivered at once but takes a moment to be reaped.
    await expect.poll(groupMembers, { timeout: 5000 }).toEqual([]);
  });

  it('survives a restart: the stored output is still there', async () => {
    harness = tempCore();
    const finished = await runToEnd(harness, ['/bin/echo', 'kept across restarts']);
    await harness.core.close();
    const reopened = harness.reopen();
    expect(reopened.store.runs.get(finished.id)).toMatchObject({ status: 'succeeded', outputBytes: 21 });
    const chunks = await reopened.handlers['runs.output']({ id: finished.id, afterSeq: -1, maxBytes: 4096, fromEnd: false }, { subscriberId: null });
    expect(chunks.chunks.map((c) => c.data).join('')).toBe('kept across restarts\n');
    expect(chunks.complete).toBe(true);
  });
});
