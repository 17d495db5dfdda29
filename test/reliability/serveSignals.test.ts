// `tuning-bench serve` under a dropped SSH session: SIGHUP ends the server cleanly, and a run it records is stopped with a reason, not left running.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { defaultRendererDir } from '../../electron/core/paths.js';
import type { WsServerMessage } from '../../electron/shared/protocol.js';
import { CLI_ENTRY, runCli, TSX_LOADER } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/tempCore.js';

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

// The server serves the built UI; `npm test` builds it before the tests run.
const uiBuilt = fs.existsSync(path.join(defaultRendererDir(), 'index.html'));

describe('tuning-bench serve and SIGHUP', () => {
  it('stops the run it records with a reason and exits on its own', async () => {
    // Never a silent skip: without the built UI (`npm test` builds it first) the server has nothing to serve.
    expect(uiBuilt, 'the UI is not built: run `npm run build` (npm test does) before this test').toBe(true);
    dir = makeTempDir('tb-serve-hup-');
    const db = path.join(dir, 'runs.db');
    const server = spawn(process.execPath, ['--import', TSX_LOADER, CLI_ENTRY, '--db', db, 'serve'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      server.once('exit', (code, signal) => resolve({ code, signal })),
    );
    await expect.poll(() => /Open (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/u.test(output), { timeout: 30_000 }).toBe(true);
    const url = new URL(/Open (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/u.exec(output)![1]!);

    const ws = new WebSocket(`ws://${url.host}/api${url.search}`, { headers: { Origin: url.origin } });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const results: WsServerMessage[] = [];
    ws.on('message', (raw) => results.push(JSON.parse(raw.toString()) as WsServerMessage));
    ws.on('error', () => undefined);
    ws.send(JSON.stringify({ type: 'call', id: 1, method: 'workloads.list', input: {} }));
    await expect.poll(() => results.find((m) => m.type === 'result' && m.id === 1), { timeout: 10_000 }).toBeTruthy();
    const workloads = results.find((m) => m.type === 'result' && m.id === 1) as { result: { value: Array<{ id: number; name: string }> } };
    const synthetic = workloads.result.value.find((w) => w.name === 'synthetic')!;
    ws.send(
      JSON.stringify({ type: 'call', id: 2, method: 'runs.start', input: { workloadId: synthetic.id, values: { steps: '100000' }, cols: 80, rows: 24 } }),
    );
    await expect.poll(() => results.some((m) => m.type === 'event' && m.event === 'runs.onOutput'), { timeout: 15_000 }).toBe(true);

    server.kill('SIGHUP');
    const exit = await exited;
    expect(exit.signal, output).toBeNull();
    expect(exit.code, output).toBe(0);
    const [run] = JSON.parse(runCli(['--db', db, '--json', 'runs']).stdout) as Array<{ status: string; exitReason: string }>;
    expect(run!.status).toBe('stopped');
    expect(run!.exitReason).toMatch(/closing/u);
  }, 60_000);
});

describe('tuning-bench serve and SIGUSR1', () => {
  it("does not open Node's inspector (which would let any local user run code in the engine), and keeps serving", async () => {
    dir = makeTempDir('tb-serve-usr1-');
    const server = spawn(process.execPath, ['--import', TSX_LOADER, CLI_ENTRY, '--db', path.join(dir, 'runs.db'), 'serve'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      server.once('exit', (code, signal) => resolve({ code, signal })),
    );
    try {
      await expect.poll(() => /Open http:\/\/127\.0\.0\.1:\d+\//u.test(output), { timeout: 30_000 }).toBe(true);
      server.kill('SIGUSR1');
      await expect.poll(() => /SIGUSR1/u.test(output), { timeout: 5_000 }).toBe(true);
      expect(output).not.toMatch(/Debugger listening/u);
      expect(output).toMatch(/SIGUSR1 .*ignored/u);
      expect(server.exitCode).toBeNull();
    } finally {
      server.kill('SIGTERM');
      await exited;
    }
  }, 60_000);
});
