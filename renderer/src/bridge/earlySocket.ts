// The headless WebSocket, opened by the page's first script before the app's code has loaded, and held until the
// transport takes it over. Imports nothing that pulls in the contract, so the first script stays a few hundred bytes.
import { TOKEN_PARAM, WS_PATH } from '../../../electron/shared/wsAddress.js';

/** ws(s)://host/api, carrying the page's ?token= when there is one (the cookie carries it otherwise). */
export function webSocketUrl(location: Pick<Location, 'protocol' | 'host' | 'search'>): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const token = new URLSearchParams(location.search).get(TOKEN_PARAM);
  const query = token ? `?${TOKEN_PARAM}=${encodeURIComponent(token)}` : '';
  return `${scheme}//${location.host}${WS_PATH}${query}`;
}

/**
 * A socket and every message it received before its owner came. The server pushes events from the moment the socket
 * opens (a run's output, telemetry), and those that come while the app's code loads must reach the app, in order.
 */
export class EarlySocket {
  private received: unknown[] = [];
  private handedOver = false;
  /** Calls sent before the app came, by key (compareRequests.ts callKey), with the negative ids they went out under. */
  private readonly early = new Map<string, number>();
  private readonly keep = (event: MessageEvent) => {
    this.received.push(event.data);
  };

  constructor(readonly socket: WebSocket) {
    socket.addEventListener('message', this.keep);
  }

  /**
   * Sends calls the page will make as soon as the socket opens, under ids of their own (negative: the app's are
   * positive), so the engine answers them while the app's code loads; the transport hands each answer to the app's
   * first identical call. `key` is the call's key (compareRequests.ts callKey), computed by the caller.
   */
  sendEarly(calls: ReadonlyArray<{ key: string; method: string; input: unknown }>): void {
    if (this.handedOver || calls.length === 0) return;
    const send = () => {
      if (this.handedOver) return;
      for (const call of calls) {
        if (this.early.has(call.key)) continue;
        const id = -(this.early.size + 1);
        this.early.set(call.key, id);
        this.socket.send(JSON.stringify({ type: 'call', id, method: call.method, input: call.input }));
      }
    };
    if (this.socket.readyState === WebSocket.OPEN) send();
    else this.socket.addEventListener('open', send, { once: true });
  }

  /** The calls sent early, by key, with their ids: answers to them come among the messages handed over. */
  earlyCalls(): ReadonlyMap<string, number> {
    return this.early;
  }

  /**
   * Gives the socket to its owner. The messages kept so far reach `onMessage` in a microtask, so listeners registered
   * right after the hand-over (in the same task) see them too; later ones follow them, in the order they arrive.
   */
  handOver(onMessage: (data: unknown) => void): WebSocket {
    if (this.handedOver) throw new Error('the early WebSocket was already handed over');
    this.handedOver = true;
    this.socket.removeEventListener('message', this.keep);
    let backlog: unknown[] | null = this.received;
    this.received = [];
    this.socket.addEventListener('message', (event) => {
      if (backlog) backlog.push(event.data);
      else onMessage(event.data);
    });
    queueMicrotask(() => {
      const kept = backlog ?? [];
      backlog = null;
      for (const data of kept) onMessage(data);
    });
    return this.socket;
  }
}

export function openEarlySocket(location: Pick<Location, 'protocol' | 'host' | 'search'>): EarlySocket {
  return new EarlySocket(new WebSocket(webSocketUrl(location)));
}
