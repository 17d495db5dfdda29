// Routes the contract over Electron IPC: one handler per method, every sender checked, every input parsed.
import fs from 'node:fs';
import { dialog, ipcMain, type BrowserWindow, type IpcMainInvokeEvent, type WebContents } from 'electron';
import type { Core } from '../core/createCore.js';
import { logFileName } from '../core/runner/runLog.js';
import { dispatch, methodNames, type ApiHandlers, type ApiResult } from '../shared/api.js';
import { IPC_EVENT_CHANNEL, IPC_PREFIX } from '../shared/protocol.js';

/** Each window's event subscription, so a call (an output acknowledgement) can name its view. */
const subscriberByContents = new Map<number, number>();

/** The desktop face's own handlers: saving a log asks the user where, with the native dialog. */
function desktopHandlers(core: Core, windowFor: (contents: WebContents) => BrowserWindow | null, sender: () => WebContents): ApiHandlers {
  return {
    ...core.handlers,
    'runs.saveLog': async ({ id, format }) => {
      await core.handlers['runs.get']({ id }, { subscriberId: null });
      const parent = windowFor(sender());
      const options = { defaultPath: logFileName(id, format), title: `Save the log of run ${id}` };
      const choice = parent ? await dialog.showSaveDialog(parent, options) : await dialog.showSaveDialog(options);
      if (choice.canceled || !choice.filePath) return { path: null, downloadUrl: null };
      const file = fs.createWriteStream(choice.filePath);
      // A destination that fails (full, unplugged) fails this save with its reason, never the process.
      let failure: Error | null = null;
      file.on('error', (error) => (failure ??= error));
      await core.writeRunLog(id, format, file);
      await new Promise<void>((resolve, reject) => file.end((error?: Error | null) => ((error ?? failure) ? reject(error ?? failure) : resolve())));
      return { path: choice.filePath, downloadUrl: null };
    },
  };
}

/** Registers the handlers; `isTrustedUrl` decides which frames may call (our renderer only). */
export function bindIpc(core: Core, isTrustedUrl: (url: string) => boolean, windowFor: (contents: WebContents) => BrowserWindow | null): () => void {
  for (const method of methodNames) {
    ipcMain.handle(`${IPC_PREFIX}${method}`, async (event: IpcMainInvokeEvent, input: unknown): Promise<ApiResult<unknown>> => {
      const frameUrl = event.senderFrame?.url ?? '';
      if (!isTrustedUrl(frameUrl)) {
        return { ok: false, error: { code: 'invalid_input', message: `refused a call from an untrusted frame (${frameUrl})` } };
      }
      const handlers = desktopHandlers(core, windowFor, () => event.sender);
      return dispatch(handlers, method, input, { subscriberId: subscriberByContents.get(event.sender.id) ?? null });
    });
  }
  return () => {
    for (const method of methodNames) ipcMain.removeHandler(`${IPC_PREFIX}${method}`);
  };
}

/** Forwards engine events to one window for as long as it lives, holding back output it does not keep up with. */
export function forwardEvents(core: Core, contents: WebContents): void {
  const subscription = core.subscribe(
    (event, payload) => {
      if (!contents.isDestroyed()) contents.send(IPC_EVENT_CHANNEL, { event, payload });
    },
    { flowControl: true },
  );
  const id = contents.id;
  subscriberByContents.set(id, subscription.id);
  contents.once('destroyed', () => {
    subscription.unsubscribe();
    subscriberByContents.delete(id);
  });
}
