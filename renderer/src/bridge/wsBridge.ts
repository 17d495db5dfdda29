// The headless transport: one WebSocket to the server's /api, reconnected with backoff when it drops.
import { createClient, type ApiResult, type MethodName } from '../../../electron/shared/api.js';
import { MAX_WS_MESSAGE_BYTES, type WsCall } from '../../../electron/shared/protocol.js';
import type { EarlySocket } from './earlySocket.js';
import { callKey } from './callKey.js';
import { EventHub } from './eventHub.js';
import type { Bridge, ConnectionState } from './types.js';

/** First retry comes quickly, since a restarted server is usually back within a second. */
const RECONNECT_MIN_DELAY_MS = 250;
/** Backoff cap: a returning server is found within a few seconds without hammering a dead port. */
const RECONNECT_MAX_DELAY_MS = 5_000;
/** How long a call made while disconnected waits for the socket before it fails. */
const QUEUED_CALL_TIMEOUT_MS = 15_000;

export { webSocketUrl } from './earlySocket.js';

function failure(code: 'unavailable' | 'internal' | 'invalid_input', message: string): ApiResult<unknown> {
  return { ok: false, error: { code, message } };
}

interface QueuedCall {
  message: WsCall;
  resolve: (result: ApiResult<unknown>) => void;
  timer: ReturnType<typeof setTimeout>;
}

class WebSocketTransport {
  readonly hub = new EventHub();
  private socket: WebSocket | null = null;
  private state: ConnectionState = 'connecting';
  private readonly stateListeners = new Set<(state: ConnectionState) => void>();
  private nextCallId = 1;
  private failedAttempts = 0;
  /** Sent and awaiting an answer; failed at once if the socket closes, since the answer can no longer come. */
  private readonly inFlight = new Map<number, (result: ApiResult<unknown>) => void>();
  /** Made while the socket was not open; sent, in order, when it opens. */
  private queued: QueuedCall[] = [];
  /** Calls the page's first script sent on the early socket (by key, with their ids), each answered to the app once. */
  private readonly earlyCalls = new Map<string, number>();
  /** Answers to early calls that came before the app asked. */
  private readonly earlyAnswers = new Map<number, ApiResult<unknown>>();
  private earlySocket: WebSocket | null = null;

  constructor(
    private readonly url: string,
    early: EarlySocket | null = null,
  ) {
    if (early) {
      // Taken over even when it has closed: the events it received before closing still reach the app.
      for (const [key, id] of early.earlyCalls()) this.earlyCalls.set(key, id);
      const socket = early.handOver((data) => this.receive(data));
      if (socket.readyState === WebSocket.CONNECTING || socket.readyState === WebSocket.OPEN) {
        this.earlySocket = socket;
        this.attach(socket);
        return;
      }
      this.earlyCalls.clear();
    }
    this.connect();
  }

  connectionState(): ConnectionState {
    return this.state;
  }

  onConnectionState(listener: (state: ConnectionState) => void): () => void {
    this.stateListeners.add(listener);
    return () => {
      this.stateListeners.delete(listener);
    };
  }

  call(method: MethodName, input: unknown): Promise<ApiResult<unknown>> {
    const early = this.takeEarlyAnswer(method, input);
    if (early) return early;
    return new Promise((resolve) => {
      const message: WsCall = { type: 'call', id: this.nextCallId++, method, input };
      if (this.socket?.readyState === WebSocket.OPEN) {
        this.send(message, resolve);
        return;
      }
      const timer = setTimeout(() => {
        this.queued = this.queued.filter((q) => q.message.id !== message.id);
        resolve(failure('unavailable', `${method}: not connected to the Tuning Bench server (gave up after ${QUEUED_CALL_TIMEOUT_MS / 1000} s)`));
      }, QUEUED_CALL_TIMEOUT_MS);
      this.queued.push({ message, resolve, timer });
    });
  }

  /**
   * The answer to a call the page sent before the app came, if this is that call and its socket is still the one in
   * use: given once, as it came or when it comes. Otherwise undefined, and the call goes out as usual.
   */
  private takeEarlyAnswer(method: MethodName, input: unknown): Promise<ApiResult<unknown>> | undefined {
    if (this.earlyCalls.size === 0) return undefined;
    const key = callKey(method, input);
    const id = this.earlyCalls.get(key);
    if (id === undefined) return undefined;
    this.earlyCalls.delete(key);
    const answer = this.earlyAnswers.get(id);
    if (answer) {
      this.earlyAnswers.delete(id);
      return Promise.resolve(answer);
    }
    if (this.socket === null || this.socket !== this.earlySocket) return undefined;
    // Answered when it comes; failed like any call in flight if the socket closes first.
    return new Promise((resolve) => this.inFlight.set(id, resolve));
  }

  private send(message: WsCall, resolve: (result: ApiResult<unknown>) => void): void {
    const json = JSON.stringify(message);
    // A UTF-16 unit is at most 3 bytes of UTF-8, so only a long message needs counting.
    const bytes = json.length * 3 <= MAX_WS_MESSAGE_BYTES ? json.length : new TextEncoder().encode(json).length;
    if (bytes > MAX_WS_MESSAGE_BYTES) {
      const limitMiB = (MAX_WS_MESSAGE_BYTES / 2 ** 20).toFixed(0);
      resolve(
        failure(
          'invalid_input',
          `${message.method}: this request is ${(bytes / 2 ** 20).toFixed(1)} MiB, over the server's ${limitMiB} MiB limit; use the CLI (tuning-bench import FILE) for bigger inputs`,
        ),
      );
      return;
    }
    this.inFlight.set(message.id, resolve);
    try {
      this.socket?.send(json);
    } catch (error) {
      this.inFlight.delete(message.id);
      resolve(failure('internal', `${message.method}: could not send: ${error instanceof Error ? error.message : String(error)}`));
    }
  }

  private setState(state: ConnectionState): void {
    if (state === this.state) return;
    this.state = state;
    for (const listener of [...this.stateListeners]) listener(state);
  }

  private connect(): void {
    const socket = new WebSocket(this.url);
    socket.addEventListener('message', (event) => this.receive(event.data));
    this.attach(socket);
  }

  /** Makes `socket` the connection: a new one, or the page's early one, whose messages it already forwards. */
  private attach(socket: WebSocket): void {
    this.socket = socket;
    const onOpen = () => {
      this.failedAttempts = 0;
      this.setState('open');
      const queued = this.queued;
      this.queued = [];
      for (const q of queued) {
        clearTimeout(q.timer);
        this.send(q.message, q.resolve);
      }
    };
    // The early socket may have opened while the app's code loaded: its 'open' event is past.
    if (socket.readyState === WebSocket.OPEN) onOpen();
    else socket.addEventListener('open', onOpen);
    // 'error' is always followed by 'close', which does the work.
    socket.addEventListener('close', () => {
      if (this.socket !== socket) return;
      this.socket = null;
      const inFlight = [...this.inFlight.values()];
      this.inFlight.clear();
      for (const resolve of inFlight) {
        resolve(failure('unavailable', 'the connection to the Tuning Bench server was lost before it answered; the call may or may not have taken effect'));
      }
      this.setState('reconnecting');
      const delay = Math.min(RECONNECT_MAX_DELAY_MS, RECONNECT_MIN_DELAY_MS * 2 ** this.failedAttempts);
      this.failedAttempts += 1;
      // Jitter keeps several tabs from reconnecting in lockstep.
      setTimeout(() => this.connect(), delay * (0.75 + Math.random() * 0.5));
    });
  }

  private receive(data: unknown): void {
    if (typeof data !== 'string') return;
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      console.warn('Tuning Bench: ignored a WebSocket message that is not JSON');
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    const m = message as Record<string, unknown>;
    if (m.type === 'event') {
      this.hub.emit(m.event, m.payload);
    } else if (m.type === 'result' && typeof m.id === 'number') {
      const result = isApiResult(m.result) ? m.result : failure('internal', 'the server sent a malformed answer');
      const resolve = this.inFlight.get(m.id);
      if (!resolve) {
        // An early call's answer that came before the app asked: kept for its first identical call.
        if (m.id < 0) this.earlyAnswers.set(m.id, result);
        return;
      }
      this.inFlight.delete(m.id);
      resolve(result);
    }
  }
}

function isApiResult(value: unknown): value is ApiResult<unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  if (r.ok === true) return true;
  if (r.ok !== false || typeof r.error !== 'object' || r.error === null) return false;
  const error = r.error as Record<string, unknown>;
  return typeof error.code === 'string' && typeof error.message === 'string';
}

/** `early`: the socket the page's first script opened (renderer/src/boot.ts), taken over with what it received. */
export function createWebSocketBridge(url: string, early: EarlySocket | null = null): Bridge {
  const transport = new WebSocketTransport(url, early);
  return {
    api: createClient((method, input) => transport.call(method, input)),
    on: (event, listener) => transport.hub.on(event, listener),
    face: 'headless',
    connectionState: () => transport.connectionState(),
    onConnectionState: (listener) => transport.onConnectionState(listener),
  };
}
