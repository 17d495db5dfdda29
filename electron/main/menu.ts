// The application menu: the views by keyboard, the About dialog with versions, and the usual roles.
import { app, dialog, Menu, type BrowserWindow, type MenuItemConstructorOptions } from 'electron';
import type { Core } from '../core/createCore.js';
import { SCHEMA_VERSION } from '../core/store/migrations/index.js';
import type { EventPayload } from '../shared/api.js';
import { IPC_EVENT_CHANNEL } from '../shared/protocol.js';

type MenuCommand = EventPayload<'app.onMenuCommand'>['command'];

function send(window: () => BrowserWindow | null, command: MenuCommand): void {
  const contents = window()?.webContents;
  if (contents && !contents.isDestroyed()) contents.send(IPC_EVENT_CHANNEL, { event: 'app.onMenuCommand', payload: { command } });
}

export function aboutText(core: Core): string {
  return [
    `Tuning Bench ${app.getVersion()}`,
    `Electron ${process.versions.electron}, Chromium ${process.versions.chrome}, Node ${process.versions.node}, V8 ${process.versions.v8}`,
    `Database ${core.dbPath} (schema ${SCHEMA_VERSION})`,
    `${process.platform}-${process.arch}`,
  ].join('\n');
}

export function installMenu(core: Core, window: () => BrowserWindow | null): void {
  const go = (label: string, command: MenuCommand, accelerator: string): MenuItemConstructorOptions => ({
    label,
    accelerator,
    click: () => send(window, command),
  });
  const template: MenuItemConstructorOptions[] = [
    {
      label: '&File',
      submenu: [
        go('New Run…', 'new-run', 'CmdOrCtrl+N'),
        go('New Sweep…', 'new-sweep', 'CmdOrCtrl+Shift+N'),
        go('Import Log…', 'import-log', 'CmdOrCtrl+O'),
        { type: 'separator' },
        { role: 'quit', accelerator: 'CmdOrCtrl+Q' },
      ],
    },
    { label: '&Edit', submenu: [{ role: 'copy' }, { role: 'paste' }, { role: 'selectAll' }] },
    {
      label: '&View',
      submenu: [
        go('Runs', 'runs', 'CmdOrCtrl+1'),
        go('Sweeps', 'sweeps', 'CmdOrCtrl+2'),
        go('Compare', 'compare', 'CmdOrCtrl+3'),
        go('GPU Control', 'gpu-control', 'CmdOrCtrl+G'),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { role: 'togglefullscreen' },
        ...(app.isPackaged ? [] : ([{ type: 'separator' }, { role: 'reload' }, { role: 'toggleDevTools' }] as MenuItemConstructorOptions[])),
      ],
    },
    {
      label: '&Help',
      submenu: [
        {
          label: 'About Tuning Bench',
          click: () => {
            const parent = window();
            const options = { type: 'info' as const, title: 'About Tuning Bench', message: 'Tuning Bench', detail: aboutText(core), buttons: ['Close'] };
            void (parent ? dialog.showMessageBox(parent, options) : dialog.showMessageBox(options));
          },
        },
      ],
    },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}
