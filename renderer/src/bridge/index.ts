// Picks the transport: the preload's IPC inside Electron, a WebSocket to the serving host in headless mode.
import type { PreloadApi } from '../../../electron/shared/protocol.js';
import type { EarlySocket } from './earlySocket.js';
import { createIpcBridge } from './ipcBridge.js';
import type { Bridge } from './types.js';
import { createWebSocketBridge, webSocketUrl } from './wsBridge.js';

declare global {
  interface Window {
    /** Present only inside Electron, put there by the preload through contextBridge. */
    tuningBench?: PreloadApi;
  }
}

/** `early`: in headless mode, the WebSocket the page opened before the app loaded; the transport takes it over. */
export function createBridge(early: EarlySocket | null = null): Bridge {
  return window.tuningBench ? createIpcBridge(window.tuningBench) : createWebSocketBridge(webSocketUrl(window.location), early);
}

export type { Bridge, ConnectionState, EventListener } from './types.js';
