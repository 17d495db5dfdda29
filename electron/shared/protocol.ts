// Wire shapes of the two transports (Electron IPC through the preload, WebSocket in headless mode).
import { MAX_IMPORT_CHARS, type ApiResult, type EventName, type MethodName } from './api.js';

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

export { TOKEN_PARAM, WS_PATH } from './wsAddress.js';

/**
 * Largest WebSocket message either side accepts. The biggest call the UI makes is `runs.import` of up to
 * MAX_IMPORT_CHARS UTF-16 units; JSON writes one unit as at most 6 bytes (`\u001b`), plus 64 KiB of envelope.
 * The UI checks a call against this before sending, so the person sees why instead of a dropped connection.
 */
export const MAX_WS_MESSAGE_BYTES = MAX_IMPORT_CHARS * 6 + 64 * 1024;

/** Prefix of the IPC channels: `tb:runs.start`, `tb:event`. */
export const IPC_PREFIX = 'tb:';
export const IPC_EVENT_CHANNEL = `${IPC_PREFIX}event`;

/** What the preload exposes on `window.tuningBench`: functions generated from the contract, nothing else. */
export interface PreloadApi {
  methods: Record<MethodName, (input: unknown) => Promise<ApiResult<unknown>>>;
  on(event: EventName, listener: (payload: unknown) => void): () => void;
}
