// `tuning-bench serve` as its own process, as a user starts it, and a WebSocket client of its API: for tests that load the server from outside.
import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import WebSocket from 'ws';
import type { WsServerMessage } from '../../electron/shared/protocol.js';
import { CLI_ENTRY, TSX_LOADER } from './cli.js';

export interface ServeProcess {
  server: ChildProcess;
  /** The address serve printed, with its token. */
  url: URL;
  exited: Promise<void>;
}

/** Starts serve on `db` and waits for the address it prints; the caller kills `server` (keep it in a list its afterEach kills). */
export async function startServeProcess(db: string): Promise<ServeProcess> {
  const server = spawn(process.execPath, ['--import', TSX_LOADER, CLI_ENTRY, '--db', db, 'serve'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const address = /Open (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/u;
  await expect.poll(() => address.test(output), { timeout: 30_000 }).toBe(true);
  return { server, url: new URL(address.exec(output)![1]!), exited };
}

export interface ApiClient {
  /** Resolves with the result message of the call. */
  call: (method: string, input: unknown) => Promise<WsServerMessage>;
  close: () => void;
}

/** A WebSocket client of the API, as the UI is. */
export async function connectApiClient(url: URL): Promise<ApiClient> {
  const ws = new WebSocket(`ws://${url.host}/api${url.search}`, { headers: { Origin: url.origin }, maxPayload: 0 });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  ws.on('error', () => undefined);
  const waiting = new Map<number, (message: WsServerMessage) => void>();
  ws.on('message', (raw) => {
    const message = JSON.parse(raw.toString()) as WsServerMessage;
    if (message.type === 'result') {
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    }
  });
  let nextId = 1;
  return {
    call: (method, input) =>
      new Promise<WsServerMessage>((resolve) => {
        const id = nextId++;
        waiting.set(id, resolve);
        ws.send(JSON.stringify({ type: 'call', id, method, input }));
      }),
    close: () => ws.terminate(),
  };
}
