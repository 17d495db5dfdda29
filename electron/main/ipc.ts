// Routes the contract over Electron IPC: one handler per method, every sender checked, every input parsed.
import { ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron';
import type { Core } from '../core/createCore.js';
import { dispatch, methodNames, type ApiResult } from '../shared/api.js';
import { IPC_EVENT_CHANNEL, IPC_PREFIX } from '../shared/protocol.js';

/** Registers the handlers; `isTrustedUrl` decides which frames may call (our renderer only). */
export function bindIpc(core: Core, isTrustedUrl: (url: string) => boolean): () => void {
  for (const method of methodNames) {
    ipcMain.handle(`${IPC_PREFIX}${method}`, async (event: IpcMainInvokeEvent, input: unknown): Promise<ApiResult<unknown>> => {
      const frameUrl = event.senderFrame?.url ?? '';
      if (!isTrustedUrl(frameUrl)) {
        return { ok: false, error: { code: 'invalid_input', message: `refused a call from an untrusted frame (${frameUrl})` } };
      }
      return dispatch(core.handlers, method, input);
    });
  }
  return () => {
    for (const method of methodNames) ipcMain.removeHandler(`${IPC_PREFIX}${method}`);
  };
}

/** Forwards engine events to one window for as long as it lives. */
export function forwardEvents(core: Core, contents: WebContents): () => void {
  const unsubscribe = core.subscribe((event, payload) => {
    if (!contents.isDestroyed()) contents.send(IPC_EVENT_CHANNEL, { event, payload });
  });
  contents.once('destroyed', unsubscribe);
  return unsubscribe;
}
