// The headless server: token, Host and Origin checks, and the API over a real WebSocket.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startServer, type RunningServer } from '../../electron/server/server.js';
import type { WsServerMessage } from '../../electron/shared/protocol.js';
import { tempCore } from '../helpers/tempCore.js';

const harness = tempCore();
let server: RunningServer;

beforeAll(async () => {
  const rendererDir = path.join(harness.dir, 'renderer');
  fs.mkdirSync(path.join(rendererDir, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Tuning Bench</title>');
  fs.writeFileSync(path.join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
  server = await startServer({ core: harness.core, rendererDir });
});
afterAll(async () => {
  await server.close();
  await harness.cleanup();
});

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(pathAndQuery: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port: server.port, path: pathAndQuery, headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    request.on('error', reject);
  });
}

const origin = () => `http://127.0.0.1:${server.port}`;
const withToken = (pathAndQuery: string) => `${pathAndQuery}${pathAndQuery.includes('?') ? '&' : '?'}token=${server.token}`;

function connect(headers: Record<string, string>, query = ''): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api${query}`, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
    ws.once('error', reject);
  });
}

describe('the headless server', () => {
  it('listens on loopback only and prints a URL with the token', () => {
    expect(server.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/\\?token=[\\w-]{40,}$`));
  });

  it('answers 401 without the token', async () => {
    const reply = await get('/');
    expect(reply.status).toBe(401);
    expect(reply.body).toMatch(/token/);
    expect((await get('/?token=wrong')).status).toBe(401);
  });

  it('keeps the token with its page: no cookie, the page and logs need ?token=, the public app code does not', async () => {
    const page = await get(withToken('/'));
    expect(page.status).toBe(200);
    expect(page.headers['set-cookie']).toBeUndefined();
    expect(page.body).toContain('<title>Tuning Bench</title>');
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    // A cookie named like the old one, sent by a browser, opens nothing.
    expect((await get('/', { Cookie: `tuning_bench_token=${server.token}` })).status).toBe(401);
    expect((await get('/runs', { Cookie: `tuning_bench_token=${server.token}` })).status).toBe(401);
    expect((await get('/assets/app.js')).headers['content-type']).toMatch(/javascript/);
    expect((await get('/assets/missing.js')).status).toBe(404);
    expect((await get(withToken('/../../etc/passwd'))).body).not.toContain('root:');
    expect((await get(withToken('/%2e%2e/%2e%2e/etc/passwd'))).body).not.toContain('root:');
  });

  it('refuses a foreign Host header (DNS rebinding)', async () => {
    expect((await get(`/?token=${server.token}`, { Host: 'evil.example:80' })).status).toBe(421);
  });

  it('refuses WebSocket upgrades with a foreign or missing Origin, a foreign Host, or no token', async () => {
    await expect(connect({ Origin: 'http://evil.example' }, `?token=${server.token}`)).rejects.toThrow('HTTP 403');
    await expect(connect({}, `?token=${server.token}`)).rejects.toThrow('HTTP 403');
    await expect(connect({ Origin: origin(), Host: 'evil.example' }, `?token=${server.token}`)).rejects.toThrow(/HTTP 4/);
    await expect(connect({ Origin: origin() })).rejects.toThrow('HTTP 401');
    await expect(connect({ Origin: origin(), Cookie: `tuning_bench_token=${server.token}` })).rejects.toThrow('HTTP 401');
  });

  it('serves the API and pushes events over the WebSocket', async () => {
    const ws = await connect({ Origin: origin() }, `?token=${server.token}`);
    const messages: WsServerMessage[] = [];
    ws.on('message', (raw) => messages.push(JSON.parse(raw.toString()) as WsServerMessage));
    const call = (id: number, method: string, input: unknown) => ws.send(JSON.stringify({ type: 'call', id, method, input }));

    call(1, 'workloads.list', {});
    await expect.poll(() => messages.find((m) => m.type === 'result' && m.id === 1)).toBeTruthy();
    const workloads = messages.find((m) => m.type === 'result' && m.id === 1);
    expect(JSON.stringify(workloads)).toContain('"name":"synthetic"');

    call(2, 'runs.resize', { id: 1, cols: 1 });
    await expect
      .poll(() => messages.find((m) => m.type === 'result' && m.id === 2))
      .toMatchObject({
        result: { ok: false, error: { code: 'invalid_input' } },
      });

    const synthetic = harness.core.store.workloads.getByName('synthetic')!;
    call(3, 'runs.start', { workloadId: synthetic.id, values: { steps: '20' }, cols: 100, rows: 30 });
    await expect
      .poll(() => messages.some((m) => m.type === 'event' && m.event === 'runs.onDidChange' && (m.payload as { status: string }).status === 'succeeded'), {
        timeout: 15_000,
      })
      .toBe(true);
    expect(messages.some((m) => m.type === 'event' && m.event === 'runs.onOutput')).toBe(true);
    ws.close();
  });

  it("serves a run's whole log as a download, plain or raw, behind the token", async () => {
    const run = harness.core.startCommand({ adHoc: { command: ['printf', '\\033[32mgreen\\033[0m 10%%\\r100%%\\ndone\\n'], cwd: harness.dir } });
    await harness.core.runner.waitForExit(run.id);
    expect((await get(`/runs/${run.id}/log`)).status).toBe(401);
    const plain = await get(withToken(`/runs/${run.id}/log?format=plain`));
    expect(plain.status).toBe(200);
    expect(plain.headers['content-disposition']).toBe(`attachment; filename="tuning-bench-run-${run.id}.log"`);
    expect(plain.body).toBe('100%\ndone\n');
    const raw = await get(withToken(`/runs/${run.id}/log?format=raw`));
    expect(raw.body).toBe('\x1b[32mgreen\x1b[0m 10%\r100%\ndone\n');
    expect((await get(withToken(`/runs/${run.id}/log?format=html`))).status).toBe(400);
    expect((await get(withToken('/runs/9999/log'))).status).toBe(404);
  });

  it('closes a socket that sends something other than JSON calls', async () => {
    const ws = await connect({ Origin: origin() }, `?token=${server.token}`);
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send('not json');
    expect(await closed).toBe(1003);
  });
});
