// Headless mode: the same UI and API over HTTP and a WebSocket on 127.0.0.1, behind a random token.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { ApiFailure, dispatch, logFormat, type ApiHandlers } from '../shared/api.js';
import { logFileName, writeRunLog } from '../core/runner/runLog.js';
import { TOKEN_COOKIE, TOKEN_PARAM, WS_PATH, type WsCall, type WsServerMessage } from '../shared/protocol.js';
import type { Core } from '../core/createCore.js';

/** Loopback only: the API can start processes, so nothing but this machine may reach it. */
export const SERVER_HOST = '127.0.0.1';
/** Largest message a browser may send (a terminal write is at most 64 KiB; this leaves room for JSON). */
const MAX_MESSAGE_BYTES = 1024 * 1024;

const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // xterm.js sets inline styles on its elements.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

export interface ServerOptions {
  core: Core;
  rendererDir: string;
  port?: number;
  /** Fixed only in tests; otherwise 32 random bytes. */
  token?: string;
}

export interface RunningServer {
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const token = options.token ?? crypto.randomBytes(32).toString('base64url');
  const rendererDir = path.resolve(options.rendererDir);
  const indexFile = path.join(rendererDir, 'index.html');
  if (!fs.existsSync(indexFile)) {
    throw new Error(`the UI is not built (${indexFile} is missing): run \`npm run build\` first`);
  }

  let port = 0;
  const allowedHosts = () => new Set([`${SERVER_HOST}:${port}`, `localhost:${port}`]);
  const hostIsAllowed = (host: string | undefined) => host !== undefined && allowedHosts().has(host.toLowerCase());
  const originIsAllowed = (origin: string | undefined) =>
    origin !== undefined && [...allowedHosts()].some((host) => origin.toLowerCase() === `http://${host}`);
  const hasToken = (request: http.IncomingMessage, url: URL) =>
    tokensEqual(url.searchParams.get(TOKEN_PARAM), token) ||
    tokensEqual(readCookie(request.headers.cookie, TOKEN_COOKIE), token);

  // Headless mode saves a log as a browser download from the server itself.
  const handlers: ApiHandlers = {
    ...options.core.handlers,
    'runs.saveLog': ({ id, format }) => {
      if (!options.core.store.runs.get(id)) throw new ApiFailure('not_found', `no run ${id}`);
      return { path: null, downloadUrl: `/runs/${id}/log?format=${format}` };
    },
  };

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', `http://${SERVER_HOST}`);
    // A foreign Host header means DNS rebinding or a proxy: neither should reach the API.
    if (!hostIsAllowed(request.headers.host)) return sendText(response, 421, 'Misdirected request: wrong Host header.\n');
    if (!hasToken(request, url)) {
      return sendText(
        response,
        401,
        'Tuning Bench needs its token. Open the URL that `tuning-bench serve` printed (it ends in ?token=...).\n',
      );
    }
    if (url.searchParams.has(TOKEN_PARAM)) {
      // Trade the token in the URL for a cookie, so it leaves the address bar and the history.
      response.setHeader(
        'Set-Cookie',
        `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`,
      );
      url.searchParams.delete(TOKEN_PARAM);
      response.writeHead(303, { Location: url.pathname + url.search });
      return response.end();
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') return sendText(response, 405, 'Method not allowed.\n');
    const logRoute = /^\/runs\/(\d+)\/log$/u.exec(url.pathname);
    if (logRoute) return void serveLog(options.core, Number(logRoute[1]), url.searchParams.get('format'), response);
    serveStatic(rendererDir, url.pathname, response);
  });

  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  server.on('upgrade', (request, socket, head) => {
    const url = new URL(request.url ?? '/', `http://${SERVER_HOST}`);
    const refuse = (status: number, reason: string) => {
      socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (url.pathname !== WS_PATH) return refuse(404, 'Not Found');
    if (!hostIsAllowed(request.headers.host)) return refuse(421, 'Misdirected Request');
    // A page on another origin must not drive the API from the user's browser (cross-site WebSocket hijacking).
    if (!originIsAllowed(request.headers.origin)) return refuse(403, 'Forbidden');
    if (!hasToken(request, url)) return refuse(401, 'Unauthorized');
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit('connection', ws, request));
  });

  sockets.on('connection', (ws: WebSocket) => {
    const send = (message: WsServerMessage) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    const subscription = options.core.subscribe((event, payload) => send({ type: 'event', event, payload }), { flowControl: true });
    ws.on('close', () => subscription.unsubscribe());
    ws.on('message', (raw) => {
      let call: Partial<WsCall>;
      try {
        call = JSON.parse(raw.toString()) as Partial<WsCall>;
      } catch {
        return ws.close(1003, 'messages must be JSON');
      }
      if (call.type !== 'call' || typeof call.id !== 'number') return ws.close(1003, 'expected a call');
      const id = call.id;
      void dispatch(handlers, call.method, call.input, { subscriberId: subscription.id }).then((result) =>
        send({ type: 'result', id, result }),
      );
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, SERVER_HOST, () => resolve());
  });
  port = (server.address() as AddressInfo).port;

  return {
    url: `http://${SERVER_HOST}:${port}/?${TOKEN_PARAM}=${token}`,
    port,
    token,
    async close() {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A browser keeps connections open; they must not hold the process after Ctrl-C.
      server.closeAllConnections();
      await closed;
    },
  };
}

async function serveLog(core: Core, id: number, formatParam: string | null, response: http.ServerResponse): Promise<void> {
  const format = logFormat.safeParse(formatParam ?? 'plain');
  if (!format.success) return sendText(response, 400, 'format is raw or plain.\n');
  if (!core.store.runs.get(id)) return sendText(response, 404, `No run ${id}.\n`);
  await core.store.flush();
  response.writeHead(200, {
    'Content-Type': format.data === 'raw' ? 'application/octet-stream' : 'text/plain; charset=utf-8',
    'Content-Disposition': `attachment; filename="${logFileName(id, format.data)}"`,
    'X-Content-Type-Options': 'nosniff',
  });
  try {
    await writeRunLog(core.store.runs, id, format.data, response);
  } finally {
    response.end();
  }
}

function serveStatic(root: string, pathname: string, response: http.ServerResponse): void {
  const relative = decodeURIComponent(pathname === '/' ? '/index.html' : pathname);
  const file = path.resolve(root, `.${relative}`);
  if (!file.startsWith(root + path.sep)) return sendText(response, 404, 'Not found.\n');
  let target = file;
  if (!fs.existsSync(target) || !fs.statSync(target).isFile()) {
    // Unknown paths without an extension get the app (client-side views); missing assets stay 404.
    if (path.extname(relative)) return sendText(response, 404, 'Not found.\n');
    target = path.join(root, 'index.html');
  }
  response.writeHead(200, {
    'Content-Type': CONTENT_TYPES[path.extname(target)] ?? 'application/octet-stream',
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-cache',
  });
  fs.createReadStream(target).pipe(response);
}

function sendText(response: http.ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  response.end(text);
}

function readCookie(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return null;
}

function tokensEqual(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}
