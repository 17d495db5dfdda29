// The Electron transport: calls and events go through the functions the preload exposes on window.tuningBench.
import { createClient, eventNames } from '../../../electron/shared/api.js';
import type { PreloadApi } from '../../../electron/shared/protocol.js';
import { EventHub } from './eventHub.js';
import type { Bridge } from './types.js';

export function createIpcBridge(preload: PreloadApi): Bridge {
  const hub = new EventHub();
  // Subscribed once for the page's lifetime: the hub, not the preload, tracks the UI's listeners.
  for (const name of eventNames) preload.on(name, (payload) => hub.emit(name, payload));
  return {
    api: createClient((method, input) => preload.methods[method](input)),
    on: (event, listener) => hub.on(event, listener),
    face: 'electron',
    // IPC to the main process cannot drop while the window lives.
    connectionState: () => 'open',
    onConnectionState: () => () => {},
  };
}
