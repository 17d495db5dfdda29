// The one object the UI talks to: the typed API, validated events, and the state of the transport under them.
import type { ApiClient, EventName, EventPayload } from '../../../electron/shared/api.js';

/** `open` once calls can be answered; `reconnecting` after a lost or refused connection (headless only). */
export type ConnectionState = 'connecting' | 'open' | 'reconnecting';

export type EventListener<E extends EventName> = (payload: EventPayload<E>) => void;

export interface Bridge {
  api: ApiClient;
  /** Payloads arrive already validated against the contract; returns the unsubscribe function. */
  on<E extends EventName>(event: E, listener: EventListener<E>): () => void;
  face: 'electron' | 'headless';
  connectionState(): ConnectionState;
  onConnectionState(listener: (state: ConnectionState) => void): () => void;
}
