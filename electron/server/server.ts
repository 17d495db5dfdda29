// Headless mode: the same UI and API over HTTP and a WebSocket on 127.0.0.1, behind a random token.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { ApiFailure, dispatch, logFormat, type ApiHandlers } from '../shared/api.js';
import { logFileName } from '../core/runner/runLog.js';
import { MAX_WS_MESSAGE_BYTES, TOKEN_PARAM, WS_PATH, type WsServerMessage } from '../shared/protocol.js';
import type { Core } from '../core/createCore.js';
import { CallQueue, MAX_QUEUED_CALLS } from './callQueue.js';

/** Loopback only: the API can start processes, so nothing but this machine may reach it. */
export const SERVER_HOST = '127.0.0.1';
/** Longest request line we try to read; Node refuses headers over 16 KiB anyway (its --max-http-header-size default). */
const MAX_URL_CHARS = 16 * 1024;

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
  /** Where a refused request or a failed handler is reported; stderr by default. */
  log?: (message: string) => void;
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
  const originIsAllowed = (origin: string | undefined) => origin !== undefined && [...allowedHosts()].some((host) => origin.toLowerCase() === `http://${host}`);
  // The token is read from the raw request line, before anything parses the URL: a malformed URL must
  // meet a 401 (or a 400 once authorised), never an exception.
  const hasToken = (rawUrl: string) => tokensEqual(readQueryParam(rawUrl, TOKEN_PARAM), token);
  const log = options.log ?? ((message: string) => process.stderr.write(`tuning-bench serve: ${message}\n`));
  const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

  // Headless mode saves a log as a browser download from the server itself.
  const handlers: ApiHandlers = {
    ...options.core.handlers,
    'runs.saveLog': async ({ id, format }, context) => {
      await options.core.handlers['runs.get']({ id }, context);
      return { path: null, downloadUrl: `/runs/${id}/log?format=${format}` };
    },
  };

  const handleRequest = (request: http.IncomingMessage, response: http.ServerResponse) => {
    const rawUrl = request.url ?? '/';
    // A foreign Host header means DNS rebinding or a proxy: neither should reach the API.
    if (!hostIsAllowed(request.headers.host)) return sendText(response, 421, 'Misdirected request: wrong Host header.\n');
    // The app's code (scripts, styles, fonts under /assets/) is public; the page, which opens the API, and the logs
    // need the token. No cookie carries it: cookies ignore the port, so every other server on 127.0.0.1 would get it.
    if (!isPublicAsset(rawUrl) && !hasToken(rawUrl)) {
      return sendText(response, 401, 'Tuning Bench needs its token. Open the URL that `tuning-bench serve` printed (it ends in ?token=...).\n');
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') return sendText(response, 405, 'Method not allowed.\n');
    const url = parseRequestUrl(rawUrl);
    if (!url) return sendText(response, 400, 'Bad request: the URL cannot be read.\n');
    const pathname = decodePath(url.pathname);
    if (pathname === null) return sendText(response, 400, 'Bad request: the path is not valid percent-encoding.\n');
    const logRoute = /^\/runs\/(\d+)\/log$/u.exec(pathname);
    if (logRoute) {
      return void serveLog(options.core, Number(logRoute[1]), url.searchParams.get('format'), response).catch((error: unknown) => {
        log(`GET ${pathname} failed: ${describe(error)}`);
        if (!response.headersSent) sendText(response, 500, `Could not read the log: ${describe(error)}\n`);
        else response.destroy();
      });
    }
    serveStatic(rendererDir, pathname, response);
  };

  const server = http.createServer((request, response) => {
    // The one error boundary of a request: whatever a handler throws becomes an answer and a log line, never a crash.
    try {
      handleRequest(request, response);
    } catch (error) {
      log(`${request.method ?? '?'} request failed: ${describe(error)}`);
      if (!response.headersSent) sendText(response, 400, 'Bad request.\n');
      else response.destroy();
    }
  });
  const CLIENT_GONE = new Set(['ECONNRESET', 'EPIPE']);
  // A client that resets its connection or sends garbage must not reach the process's 'error' handler.
  server.on('clientError', (error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
    // A client that went away (a cancelled download: EPIPE or ECONNRESET on its socket) sent nothing malformed.
    if (!CLIENT_GONE.has((error as NodeJS.ErrnoException).code ?? '')) log(`refused a malformed request: ${describe(error)}`);
  });

  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_WS_MESSAGE_BYTES });
  server.on('upgrade', (request, socket, head) => {
    socket.on('error', (error) => log(`WebSocket handshake socket failed: ${describe(error)}`));
    const refuse = (status: number, reason: string) => {
      socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    try {
      const rawUrl = request.url ?? '/';
      if (!hostIsAllowed(request.headers.host)) return refuse(421, 'Misdirected Request');
      // A page on another origin must not drive the API from the user's browser (cross-site WebSocket hijacking).
      if (!originIsAllowed(request.headers.origin)) return refuse(403, 'Forbidden');
      if (!hasToken(rawUrl)) return refuse(401, 'Unauthorized');
      const url = parseRequestUrl(rawUrl);
      if (!url) return refuse(400, 'Bad Request');
      if (url.pathname !== WS_PATH) return refuse(404, 'Not Found');
      sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit('connection', ws, request));
    } catch (error) {
      log(`WebSocket upgrade failed: ${describe(error)}`);
      refuse(400, 'Bad Request');
    }
  });

  sockets.on('connection', (ws: WebSocket) => {
    const calls = new CallQueue();
    const send = (message: WsServerMessage) => {
      if (ws.readyState !== ws.OPEN) return;
      const text = JSON.stringify(message);
      calls.messageQueued(text.length);
      ws.send(text, () => calls.messageSent(text.length));
    };
    // ws emits 'error' (then closes) for a frame over maxPayload or a broken frame; without a listener it would throw.
    ws.on('error', (error) => {
      const tooBig = (error as { code?: string }).code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH';
      log(
        tooBig
          ? `closed a WebSocket that sent a message over ${MAX_WS_MESSAGE_BYTES} bytes (the UI checks this limit before sending)`
          : `WebSocket failed: ${describe(error)}`,
      );
    });
    const subscription = options.core.subscribe((event, payload) => send({ type: 'event', event, payload }), { flowControl: true });
    let closed = false;
    ws.on('close', () => {
      closed = true;
      subscription.unsubscribe();
      calls.close();
    });
    ws.on('message', (raw) => {
      // The one error boundary of a message: a bad one closes this socket with a reason; the server and its runs go on.
      try {
        const call = parseCall(raw);
        if (typeof call === 'string') return ws.close(1003, call);
        if (calls.size >= MAX_QUEUED_CALLS) return ws.close(1008, `over ${MAX_QUEUED_CALLS} calls waiting: wait for answers`);
        calls.push(() => {
          // A client that went away has no use for the answers still queued for it.
          if (closed) return;
          dispatch(handlers, call.method, call.input, { subscriberId: subscription.id })
            .then((result) => send({ type: 'result', id: call.id, result }))
            .catch((error: unknown) => {
              log(`call ${String(call.method)} failed: ${describe(error)}`);
              send({ type: 'result', id: call.id, result: { ok: false, error: { code: 'internal', message: describe(error) } } });
            });
        });
      } catch (error) {
        log(`WebSocket message failed: ${describe(error)}`);
        ws.close(1011, 'the server could not handle this message');
      }
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
  try {
    await core.handlers['runs.get']({ id }, { subscriberId: null });
  } catch (error) {
    if (error instanceof ApiFailure && error.code === 'not_found') return sendText(response, 404, `No run ${id}.\n`);
    throw error;
  }
  response.writeHead(200, {
    'Content-Type': format.data === 'raw' ? 'application/octet-stream' : 'text/plain; charset=utf-8',
    'Content-Disposition': `attachment; filename="${logFileName(id, format.data)}"`,
    'X-Content-Type-Options': 'nosniff',
  });
  try {
    await core.writeRunLog(id, format.data, response);
  } finally {
    response.end();
  }
}

/** Vite puts the app's scripts, styles and fonts under /assets/: public code, served without the token. */
function isPublicAsset(rawUrl: string): boolean {
  return /^\/assets\/[\w.-]+(?:\?|$)/u.test(rawUrl);
}

/** `pathname` is already percent-decoded. */
function serveStatic(root: string, pathname: string, response: http.ServerResponse): void {
  const relative = pathname === '/' ? '/index.html' : pathname;
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
  const stream = fs.createReadStream(target);
  stream.on('error', () => response.destroy());
  stream.pipe(response);
}

function sendText(response: http.ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  response.end(text);
}

/** The URL of a request line, or null when it cannot be read (`//[`, `//a b`, an overlong line). */
function parseRequestUrl(rawUrl: string): URL | null {
  if (rawUrl.length > MAX_URL_CHARS || !rawUrl.startsWith('/')) return null;
  try {
    // A path starting with `//` would be read as a host; the base's origin is kept by prefixing the path itself.
    return new URL(`http://${SERVER_HOST}${rawUrl}`);
  } catch {
    return null;
  }
}

function decodePath(pathname: string): string | null {
  try {
    const decoded = decodeURIComponent(pathname);
    return decoded.includes('\0') ? null : decoded;
  } catch {
    return null;
  }
}

/** One query parameter read from a raw request line with no URL parser, so no input can throw. */
export function readQueryParam(rawUrl: string, name: string): string | null {
  const queryStart = rawUrl.indexOf('?');
  if (queryStart < 0 || rawUrl.length > MAX_URL_CHARS) return null;
  const query = rawUrl.slice(queryStart + 1).split('#', 1)[0] ?? '';
  for (const pair of query.split('&')) {
    const equals = pair.indexOf('=');
    if (equals < 0 || pair.slice(0, equals) !== name) continue;
    try {
      return decodeURIComponent(pair.slice(equals + 1).replaceAll('+', ' '));
    } catch {
      return null;
    }
  }
  return null;
}

type ParsedCall = { id: number; method: unknown; input: unknown };

/** A WebSocket call, or why it is refused (sent back as the close reason, at most 123 bytes by the protocol). */
function parseCall(raw: WebSocket.RawData): ParsedCall | string {
  let call: unknown;
  try {
    const text = Array.isArray(raw) ? Buffer.concat(raw).toString() : Buffer.isBuffer(raw) ? raw.toString() : Buffer.from(new Uint8Array(raw)).toString();
    call = JSON.parse(text);
  } catch {
    return 'messages must be JSON';
  }
  if (typeof call !== 'object' || call === null || Array.isArray(call)) return 'expected a call object';
  const fields = call as Record<string, unknown>;
  if (fields.type !== 'call' || typeof fields.id !== 'number' || !Number.isSafeInteger(fields.id)) {
    return 'expected {type:"call", id, method, input}';
  }
  return { id: fields.id, method: fields.method, input: fields.input };
}

function tokensEqual(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}
