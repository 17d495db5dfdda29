// What each command of the desktop menu (electron/main/menu.ts) does in the window: a view to open, or the Import log dialog.
import type { EventPayload } from '../../electron/shared/api.js';
import type { View } from './route.js';

export type MenuCommand = EventPayload<'app.onMenuCommand'>['command'];

export type MenuAction = { kind: 'navigate'; view: View } | { kind: 'import-log' };

const VIEWS: Record<Exclude<MenuCommand, 'import-log'>, View> = {
  'new-run': { kind: 'new' },
  'new-sweep': { kind: 'new-sweep' },
  runs: { kind: 'runs' },
  sweeps: { kind: 'sweeps' },
  // Runs are picked for a comparison by ticking them in the runs table; an empty comparison would only say so.
  compare: { kind: 'runs' },
  'gpu-control': { kind: 'gpu' },
};

export function menuAction(command: MenuCommand): MenuAction {
  return command === 'import-log' ? { kind: 'import-log' } : { kind: 'navigate', view: VIEWS[command] };
}
