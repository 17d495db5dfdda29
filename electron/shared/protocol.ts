// Wire shapes of the two transports (Electron IPC through the preload, WebSocket in headless mode).
import type { ApiResult, EventName, MethodName } from './api.js';

/** A call from the renderer to the engine over the WebSocket. */
export interface WsCall {
  type: 'call';
  id: number;
  method: MethodName;
  input: unknown;
}

/** The engine's answer to one call. */
export interface WsResult {
  type: 'result';
  id: number;
  result: ApiResult<unknown>;
}

/** An event pushed by the engine to every connected renderer. */
export interface WsEvent {
  type: 'event';
  event: EventName;
  payload: unknown;
}

export type WsServerMessage = WsResult | WsEvent;

/** Path of the WebSocket endpoint, relative to the page. */
export const WS_PATH = '/api';
/** Query parameter and cookie that carry the headless server's token. */
export const TOKEN_PARAM = 'token';
export const TOKEN_COOKIE = 'tuning_bench_token';

/** Prefix of the IPC channels: `tb:runs.start`, `tb:event`. */
export const IPC_PREFIX = 'tb:';
export const IPC_EVENT_CHANNEL = `${IPC_PREFIX}event`;

/** What the preload exposes on `window.tuningBench`: functions generated from the contract, nothing else. */
export interface PreloadApi {
  methods: Record<MethodName, (input: unknown) => Promise<ApiResult<unknown>>>;
  on(event: EventName, listener: (payload: unknown) => void): () => void;
}
