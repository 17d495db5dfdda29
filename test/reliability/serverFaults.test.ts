// The headless server under hostile input: malformed URLs, headers and WebSocket frames answer 4xx and a run it records goes on.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { MAX_UNSENT_CHARS } from '../../electron/server/callQueue.js';
import { startServer, type RunningServer } from '../../electron/server/server.js';
import { MAX_IMPORT_CHARS } from '../../electron/shared/api.js';
import { MAX_WS_MESSAGE_BYTES, type WsServerMessage } from '../../electron/shared/protocol.js';
import { storeFinishedRun } from '../helpers/storedRuns.js';
import { tempCore } from '../helpers/tempCore.js';

const harness = tempCore();
let server: RunningServer;
const logged: string[] = [];

beforeAll(async () => {
  const rendererDir = path.join(harness.dir, 'renderer');
  fs.mkdirSync(path.join(rendererDir, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Tuning Bench</title>');
  server = await startServer({ core: harness.core, rendererDir, log: (line) => logged.push(line) });
});
afterAll(async () => {
  await server.close();
  await harness.cleanup();
});

/** Sends bytes as they are (no client library normalises them) and returns the status code, or 0 if the server hung up. */
function rawRequest(head: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = net.connect(server.port, '127.0.0.1');
    let reply = '';
    socket.on('data', (chunk) => (reply += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/u.exec(reply)?.[1] ?? 0)));
    socket.end(head, 'latin1');
    // A reply comes well within this; a connection still open after it is closed by us and counts as no answer.
    setTimeout(() => socket.destroy(), 2_000);
  });
}

const host = () => `127.0.0.1:${server.port}`;
const get = (target: string, extraHeaders = '') => rawRequest(`GET ${target} HTTP/1.1\r\nHost: ${host()}\r\n${extraHeaders}Connection: close\r\n\r\n`);
const upgrade = (target: string) =>
  rawRequest(
    `GET ${target} HTTP/1.1\r\nHost: ${host()}\r\nOrigin: http://${host()}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
  );

function connect(): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${host()}/api?token=${server.token}`, { headers: { Origin: `http://${host()}` }, maxPayload: 0 });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** The server still answers an authorised call: what "not killed" means. */
async function stillServes(): Promise<void> {
  const ws = await connect();
  const answer = new Promise<WsServerMessage>((resolve) =>
    ws.on('message', (raw) => {
      const message = JSON.parse(raw.toString()) as WsServerMessage;
      if (message.type === 'result') resolve(message);
    }),
  );
  ws.send(JSON.stringify({ type: 'call', id: 1, method: 'workloads.list', input: {} }));
  expect(await answer).toMatchObject({ id: 1, result: { ok: true } });
  ws.close();
}

/** Sends a frame, then a known call, and waits for its answer or for the socket to close: one round trip per frame. */
function sendThenProbe(ws: WebSocket, frame: string | Buffer): Promise<void> {
  const probeId = 987_654_321;
  return new Promise((resolve) => {
    const onMessage = (raw: WebSocket.RawData) => {
      const message = JSON.parse(raw.toString()) as WsServerMessage;
      if (message.type === 'result' && message.id === probeId) done();
    };
    const done = () => {
      ws.off('message', onMessage);
      ws.off('close', done);
      resolve();
    };
    ws.on('message', onMessage);
    ws.once('close', done);
    ws.send(frame);
    ws.send(JSON.stringify({ type: 'call', id: probeId, method: 'workloads.list', input: {} }));
  });
}

/** A run of about 3 s that the attacks below must not disturb. */
function startWitnessRun() {
  return harness.core.startCommand({
    adHoc: { command: ['sh', '-c', 'for i in $(seq 1 30); do echo "line $i"; sleep 0.1; done'], cwd: harness.dir },
  });
}

async function expectWitnessFinished(runId: number): Promise<void> {
  await harness.core.runner.waitForExit(runId);
  expect(harness.core.store.runs.get(runId)?.status).toBe('succeeded');
  await harness.core.recording.flush();
  const output = harness.core.store.runs
    .outputAfter(runId, -1)
    .map((chunk) => chunk.data.toString())
    .join('');
  expect(output).toContain('line 30');
}

describe('the headless server never falls over', () => {
  it('answers 4xx to URLs that cannot be parsed, with or without the token, on HTTP and on the upgrade', async () => {
    const run = startWitnessRun();
    // Without the token nothing is parsed: the answer is 401 whatever the URL.
    expect(await get('//[')).toBe(401);
    expect(await get('//a%20b')).toBe(401);
    expect(await get('/%')).toBe(401);
    expect(await get('/?token=%')).toBe(401);
    expect(await get('*')).toBe(401);
    expect(await upgrade('//[')).toBe(401);
    expect(await upgrade('//a%20b')).toBe(401);
    // With it, a URL that cannot be read is a 400.
    expect(await get(`/%?token=${server.token}`)).toBe(400);
    expect(await get(`/%E0%A4%A?token=${server.token}`)).toBe(400);
    expect(await get(`*?token=${server.token}`)).toBe(400);
    expect(await get(`//[?token=${server.token}`)).toBeLessThan(500);
    expect(await upgrade(`//[?token=${server.token}`)).toBe(404);
    expect(await upgrade(`//a%20b?token=${server.token}`)).toBe(404);
    expect(await upgrade(`/%?token=${server.token}`)).toBe(404);
    await stillServes();
    await expectWitnessFinished(run.id);
  });

  it('closes a socket that sends null, a non-call or broken JSON, and answers the next socket', async () => {
    for (const frame of ['null', '42', '[]', '"call"', '{"type":"call"}', '{"type":"call","id":1e400}', '{']) {
      const ws = await connect();
      const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
      ws.send(frame);
      expect(await closed).toBe(1003);
    }
    await stillServes();
  });

  it('takes a 2 MB import over the socket, and closes one over the limit with 1009 while the server goes on', async () => {
    const ws = await connect();
    const answer = new Promise<WsServerMessage>((resolve) =>
      ws.on('message', (raw) => {
        const message = JSON.parse(raw.toString()) as WsServerMessage;
        if (message.type === 'result') resolve(message);
      }),
    );
    const log = 'step 1 loss 2.5\n'.repeat((2 * 1024 * 1024) / 16);
    ws.send(JSON.stringify({ type: 'call', id: 7, method: 'runs.import', input: { text: log } }));
    expect(await answer).toMatchObject({ id: 7, result: { ok: true } });
    ws.close();

    // The UI's largest import, every character escaped by JSON: still within the limit.
    expect(JSON.stringify({ type: 'call', id: 1, method: 'runs.import', input: { text: '\x1b'.repeat(MAX_IMPORT_CHARS) } }).length).toBeLessThanOrEqual(
      MAX_WS_MESSAGE_BYTES,
    );
    const big = await connect();
    const closed = new Promise<number>((resolve) => big.once('close', (code) => resolve(code)));
    big.on('error', () => undefined);
    big.send(Buffer.alloc(MAX_WS_MESSAGE_BYTES + 1, 0x20));
    expect(await closed).toBe(1009);
    expect(logged.some((line) => line.includes(`over ${MAX_WS_MESSAGE_BYTES} bytes`))).toBe(true);
    await stillServes();
  });

  it('survives fuzzed URLs, headers and WebSocket frames while a run it records finishes', async () => {
    const run = startWitnessRun();
    // Bounded so the test ends within the witness run's life on a slow CI machine: every case is one loopback round trip.
    const urlChars = fc.constantFrom(...'/%?#&=[]@:;.~ \\aZ0\u00e9\u0000\t+'.split(''));
    const urlArbitrary = fc
      .tuple(fc.boolean(), fc.array(urlChars, { maxLength: 40 }))
      .map(([withToken, chars]) => `/${chars.join('')}${withToken ? `?token=${server.token}` : ''}`);
    await fc.assert(
      fc.asyncProperty(urlArbitrary, fc.string({ maxLength: 60 }), async (target, headerValue) => {
        const safeHeader = headerValue.replace(/[\r\n]/gu, '');
        const status = await get(target.replace(/[\r\n ]/gu, '%20'), `X-Fuzz: ${safeHeader}\r\nCookie: ${safeHeader}\r\n`);
        expect(status === 0 || (status >= 200 && status < 500)).toBe(true);
      }),
      { numRuns: 150 },
    );
    await fc.assert(
      fc.asyncProperty(urlArbitrary, async (target) => {
        const status = await upgrade(target.replace(/[\r\n ]/gu, '%20'));
        expect(status === 0 || status === 101 || (status >= 400 && status < 500)).toBe(true);
      }),
      { numRuns: 100 },
    );
    const ws = await connect();
    let closes = 0;
    let socket = ws;
    const frameArbitrary = fc.oneof(
      fc.json(),
      fc.string(),
      fc.record({ type: fc.constant('call'), id: fc.integer(), method: fc.string(), input: fc.anything() }).map((call) => JSON.stringify(call)),
      fc
        .record({
          type: fc.constant('call'),
          id: fc.nat(),
          method: fc.constantFrom('runs.get', 'runs.list', 'runs.resize', 'metrics.testRegex'),
          input: fc.object(),
        })
        .map((call) => JSON.stringify(call)),
      fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
    );
    await fc.assert(
      fc.asyncProperty(frameArbitrary, async (frame) => {
        if (socket.readyState !== WebSocket.OPEN) {
          closes += 1;
          socket = await connect();
        }
        await sendThenProbe(socket, frame);
      }),
      { numRuns: 300 },
    );
    socket.close();
    expect(closes).toBeGreaterThan(0);
    await stillServes();
    await expectWitnessFinished(run.id);
  }, 60_000);

  it('starts no more calls for a client that stops reading once a few MB of answers wait for it, and answers all when it reads', async () => {
    // Before, every call was answered at once into the socket's queue (hundreds of MB for a burst of lists), and the
    // pile went to the kernel in one writev that held the engine's thread for up to 0.9 s.
    for (let i = 0; i < 40; i++) await storeFinishedRun(harness.core, [Buffer.from(`run ${i}\n`)], `listed ${i}`);
    const ws = await connect();
    const answered = new Set<number>();
    let answerChars = 0;
    ws.on('message', (raw) => {
      const text = raw.toString();
      const message = JSON.parse(text) as WsServerMessage;
      if (message.type !== 'result') return;
      answerChars = text.length;
      answered.add(message.id);
    });
    const listAll = (id: number) => ws.send(JSON.stringify({ type: 'call', id, method: 'runs.list', input: { limit: 500 } }));
    listAll(0);
    await expect.poll(() => answered.has(0)).toBe(true);

    const lists = vi.spyOn(harness.core.store.runs, 'list');
    try {
      ws.pause();
      // Answers of ten times the bound and the kernel's socket buffers on both sides (a few MB each on loopback).
      const calls = Math.ceil((10 * MAX_UNSENT_CHARS + 32 * 1024 * 1024) / answerChars);
      for (let id = 1; id <= calls; id++) listAll(id);
      // Calls start until the unsent answers pass the bound, then stop: wait until no call has started for a while.
      let started = -1;
      while (lists.mock.calls.length !== started) {
        started = lists.mock.calls.length;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(started).toBeGreaterThan(0);
      expect(started).toBeLessThan(calls / 2);
      ws.resume();
      await expect.poll(() => answered.size, { timeout: 60_000 }).toBe(calls + 1);
      expect(lists.mock.calls.length).toBe(calls);
    } finally {
      lists.mockRestore();
      ws.close();
    }
    await stillServes();
  }, 120_000);
});
