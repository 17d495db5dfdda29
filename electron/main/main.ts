// Electron main: one hardened window over the shared renderer, the engine behind IPC.
import path from 'node:path';
import { app, BrowserWindow, dialog, session, shell } from 'electron';
import { createCore, type Core } from '../core/createCore.js';
import { DatabaseCorruptError, DatabaseTooNewError, ForeignDatabaseError, setAsideDatabase } from '../core/store/open.js';
import { bindIpc, forwardEvents } from './ipc.js';
import { installMenu } from './menu.js';
import { notifySweeps } from './sweepNotifications.js';
import { loadWindowState, rememberWindowState } from './windowState.js';
import { isAllowedExternalUrl } from './externalLinks.js';
import { installProcessGuards } from '../core/processGuards.js';

// Electron's main process would log and go on anyway; this says it the same way as the CLI and the server.
installProcessGuards((message) => console.error(`tuning-bench: ${message}`));

/** The renderer's CSP, also sent as a header (the meta tag covers file:// loads, the header the dev server). */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

let core: Core | null = null;
let mainWindow: BrowserWindow | null = null;

function resourcesDir(): string {
  // Packaged: electron-builder copies resources/ next to app.asar; in development it is in the project.
  return app.isPackaged ? path.join(process.resourcesPath, 'resources') : path.join(app.getAppPath(), 'resources');
}

function rendererUrl(): string {
  if (MAIN_WINDOW_VITE_DEV_SERVER_URL) return MAIN_WINDOW_VITE_DEV_SERVER_URL;
  return new URL(`file://${path.join(__dirname, `../renderer/${MAIN_WINDOW_VITE_NAME}/index.html`)}`).href;
}

function isTrustedUrl(url: string): boolean {
  const trusted = new URL(rendererUrl());
  try {
    const candidate = new URL(url);
    if (trusted.protocol === 'file:') return candidate.protocol === 'file:' && candidate.pathname === trusted.pathname;
    return candidate.origin === trusted.origin;
  } catch {
    return false;
  }
}

function createWindow(engine: Core): BrowserWindow {
  const saved = loadWindowState();
  const window = new BrowserWindow({
    ...saved.bounds,
    minWidth: 900,
    minHeight: 600,
    title: 'Tuning Bench',
    show: false,
    webPreferences: {
      preload: path.join(__dirname, 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
      // A middle click on a link would open a new window outside the handlers below.
      disableBlinkFeatures: 'Auxclick',
    },
  });
  window.once('ready-to-show', () => {
    if (saved.maximized) window.maximize();
    window.show();
  });
  rememberWindowState(window);
  // The app never opens pages of its own accord: links go to the user's browser, navigation is refused.
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (isAllowedExternalUrl(url, engine.mlflowUiOrigins()))
      void shell.openExternal(url).catch((error: unknown) => console.error(`tuning-bench: could not open ${url}: ${String(error)}`));
    else
      console.error(
        `tuning-bench: refused to open ${url} (only https links to the documentation hosts, and the MLflow servers this database publishes to, open in the browser)`,
      );
    return { action: 'deny' };
  });
  window.webContents.on('will-navigate', (event, url) => {
    if (!isTrustedUrl(url)) event.preventDefault();
  });
  forwardEvents(engine, window.webContents);
  void window.loadURL(rendererUrl());
  return window;
}

function hardenSession(): void {
  // Only copying from the terminal to the clipboard is allowed; every other permission is refused.
  session.defaultSession.setPermissionRequestHandler((_contents, permission, callback) => callback(permission === 'clipboard-sanitized-write'));
  session.defaultSession.setPermissionCheckHandler((_contents, permission) => permission === 'clipboard-sanitized-write');
  // Vite's dev server needs an inline script and its own WebSocket for hot reload; its page keeps the meta CSP.
  if (MAIN_WINDOW_VITE_DEV_SERVER_URL) return;
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] },
    });
  });
}

async function start(): Promise<void> {
  await app.whenReady();
  hardenSession();
  const open = () =>
    createCore({
      face: 'electron',
      version: app.getVersion(),
      resourcesDir: resourcesDir(),
      // `{node}` in a workload runs Electron as plain Node, so the synthetic workload needs no Node install.
      nodePath: process.execPath,
      nodeEnv: { ELECTRON_RUN_AS_NODE: '1' },
      // Before any window: a terminal that started the app says why its first start waits.
      onMigrating: (message) => console.warn(message),
    });
  try {
    core = open();
  } catch (error) {
    if (error instanceof ForeignDatabaseError || error instanceof DatabaseTooNewError) {
      // Not ours to rename: the person points the app at another file.
      dialog.showErrorBox('Tuning Bench', error.message);
      app.exit(1);
      return;
    }
    if (!(error instanceof DatabaseCorruptError)) throw error;
    // Nothing recorded is deleted: the damaged file is renamed, and only if the person agrees.
    const { response } = await dialog.showMessageBox({
      type: 'error',
      title: 'Tuning Bench',
      message: 'The run database cannot be read',
      detail: `${error.message}\n\nStart fresh keeps the damaged file beside the new one, renamed to *.damaged-<time>.`,
      buttons: ['Start with a fresh database', 'Quit'],
      defaultId: 1,
      cancelId: 1,
    });
    if (response !== 0) {
      app.exit(1);
      return;
    }
    setAsideDatabase(error.file);
    core = open();
  }
  bindIpc(core, isTrustedUrl, (contents) => BrowserWindow.fromWebContents(contents));
  notifySweeps(core);
  installMenu(core, () => mainWindow);
  mainWindow = createWindow(core);
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0 && core) mainWindow = createWindow(core);
  });
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (mainWindow?.isMinimized()) mainWindow.restore();
    mainWindow?.focus();
  });
  app.on('window-all-closed', () => app.quit());
  let closing = false;
  app.on('before-quit', (event) => {
    if (!core || closing) return;
    // Runs are stopped and their records completed before the process goes.
    event.preventDefault();
    closing = true;
    void core.close().finally(() => {
      core = null;
      app.quit();
    });
  });
  start().catch((error: unknown) => {
    console.error('Tuning Bench could not start:', error);
    app.exit(1);
  });
}
