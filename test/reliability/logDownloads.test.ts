// Log downloads never hold the database: slow, cancelled and concurrent downloads during a live run leave the engine answering and the run recorded.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../electron/server/server.js';
import type { Run } from '../../electron/shared/api.js';
import { filledPieces, storeFinishedRun } from '../helpers/storedRuns.js';
import { tempCore } from '../helpers/tempCore.js';

const harness = tempCore();
let server: RunningServer;
let stored: Run;

beforeAll(async () => {
  const rendererDir = path.join(harness.dir, 'renderer');
  fs.mkdirSync(rendererDir, { recursive: true });
  fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Tuning Bench</title>');
  server = await startServer({ core: harness.core, rendererDir, log: () => undefined });
  // 24 MiB: far more than a socket's buffers hold, so a client that reads slowly holds the download open.
  stored = await storeFinishedRun(harness.core, filledPieces(96, 256 * 1024, 'line of output\n'));
}, 60_000);
afterAll(async () => {
  await server.close();
  await harness.cleanup();
});

/** A run that prints a numbered line every 20 ms for `seconds`, so its record can be checked line by line. */
function startTicker(seconds: number): Run {
  const lines = Math.round(seconds * 50);
  const script = `let i=0;const t=setInterval(()=>{console.log('tick '+(++i));if(i>=${lines})clearInterval(t)},20)`;
  return harness.core.startCommand({ adHoc: { command: [process.execPath, '-e', script], cwd: harness.dir } });
}

function expectEveryTick(run: Run, seconds: number): void {
  const text = Buffer.concat(harness.core.store.runs.outputAfter(run.id, -1).map((chunk) => chunk.data)).toString();
  const ticks = [...text.matchAll(/tick (\d+)/gu)].map((m) => Number(m[1]));
  expect(ticks).toEqual(Array.from({ length: Math.round(seconds * 50) }, (_, i) => i + 1));
}

/** Sends a download request and reads only what the socket buffers take, then waits: the client of a slow link. */
function stalledDownload(format: 'raw' | 'plain'): { socket: net.Socket; received: () => number } {
  const socket = net.connect(server.port, '127.0.0.1');
  let received = 0;
  socket.on('data', (chunk: Buffer) => {
    received += chunk.length;
    socket.pause();
  });
  socket.on('error', () => undefined);
  socket.write(`GET /runs/${stored.id}/log?format=${format}&token=${server.token} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: close\r\n\r\n`);
  return { socket, received: () => received };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a log download during a live run', () => {
  it('that stalls, then is cancelled, leaves every call answered and the live run wholly recorded', async () => {
    const run = startTicker(3);
    const download = stalledDownload('raw');
    await expect.poll(download.received, { timeout: 10_000 }).toBeGreaterThan(0);
    // Several of the writers' commit ticks pass while the download waits on the client.
    await sleep(1_000);
    expect(harness.core.store.runs.list(5).map((r) => r.id)).toContain(run.id);
    expect((await harness.core.handlers['runs.list']({ limit: 5 }, { subscriberId: null })).length).toBeGreaterThan(0);
    download.socket.destroy();
    await sleep(500);
    expect((await harness.core.handlers['runs.get']({ id: stored.id }, { subscriberId: null })).id).toBe(stored.id);
    const ended = await harness.core.runner.waitForExit(run.id);
    expect(ended.status).toBe('succeeded');
    expectEveryTick(run, 3);
    expect(harness.core.recording.writeStatus()).toEqual({ state: 'writing' });
  }, 60_000);

  it('that is slow, several at once, raw and plain, delivers exactly the stored log while the live run is recorded', async () => {
    const run = startTicker(2);
    const expected = Buffer.concat(harness.core.store.runs.outputAfter(stored.id, -1).map((chunk) => chunk.data));
    const slowReader = (format: 'raw' | 'plain') =>
      new Promise<Buffer>((resolve, reject) => {
        http
          .get(`http://127.0.0.1:${server.port}/runs/${stored.id}/log?format=${format}&token=${server.token}`, (response) => {
            const parts: Buffer[] = [];
            response.on('data', (chunk: Buffer) => {
              parts.push(chunk);
              // About 8 MB/s: a slow link, read in bursts.
              response.pause();
              setTimeout(() => response.resume(), Math.ceil(chunk.length / 8_000));
            });
            response.on('end', () => resolve(Buffer.concat(parts)));
            response.on('error', reject);
          })
          .on('error', reject);
      });
    const [raw, plain, raw2] = await Promise.all([slowReader('raw'), slowReader('plain'), slowReader('raw')]);
    expect(raw.equals(expected)).toBe(true);
    expect(raw2.equals(expected)).toBe(true);
    expect(plain.equals(expected)).toBe(true);
    const ended = await harness.core.runner.waitForExit(run.id);
    expect(ended.status).toBe('succeeded');
    expectEveryTick(run, 2);
  }, 120_000);

  it('to a stream that is destroyed mid-way (the desktop Save to a vanished file) ends the write and frees the store', async () => {
    const sink = new Writable({
      highWaterMark: 1024,
      write(_chunk, _encoding, callback) {
        // Never completes: a destination that hangs.
        void callback;
      },
    });
    const writing = harness.core.writeRunLog(stored.id, 'raw', sink);
    await sleep(300);
    expect(harness.core.store.runs.list(1)).toHaveLength(1);
    sink.destroy(new Error('the destination went away'));
    await expect(writing).rejects.toThrow('the destination went away');
    const pass = new PassThrough();
    pass.resume();
    await harness.core.writeRunLog(stored.id, 'raw', pass);
  }, 30_000);
});
