// Preload: exposes the contract's methods and events to the renderer, and nothing else.
import { contextBridge, ipcRenderer } from 'electron';
import { eventNames, isEventName, methodNames, type ApiResult, type EventName, type MethodName } from '../shared/api.js';
import { IPC_EVENT_CHANNEL, IPC_PREFIX, type PreloadApi } from '../shared/protocol.js';

const methods = Object.fromEntries(
  methodNames.map((method) => [method, (input: unknown) => ipcRenderer.invoke(`${IPC_PREFIX}${method}`, input) as Promise<ApiResult<unknown>>]),
) as Record<MethodName, (input: unknown) => Promise<ApiResult<unknown>>>;

const api: PreloadApi = {
  methods,
  on(event: EventName, listener: (payload: unknown) => void) {
    if (!eventNames.includes(event)) throw new Error(`unknown event ${String(event)}`);
    const handler = (_event: Electron.IpcRendererEvent, message: { event: unknown; payload: unknown }) => {
      if (isEventName(message.event) && message.event === event) listener(message.payload);
    };
    ipcRenderer.on(IPC_EVENT_CHANNEL, handler);
    return () => ipcRenderer.off(IPC_EVENT_CHANNEL, handler);
  },
};

contextBridge.exposeInMainWorld('tuningBench', api);
