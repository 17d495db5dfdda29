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
  private readonly keep = (event: MessageEvent) => {
    this.received.push(event.data);
  };

  constructor(readonly socket: WebSocket) {
    socket.addEventListener('message', this.keep);
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
