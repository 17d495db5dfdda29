// Carries out the desktop menu's commands (the app.onMenuCommand event); the headless face never gets one.
import { useEffect } from 'react';
import { useBridge } from './bridge/context.js';
import { menuAction } from './menuCommands.js';
import { useView } from './route.js';

/** `openImportLog` should be stable (a useCallback), or the subscription is renewed on every render. */
export function useMenuCommands(openImportLog: () => void): void {
  const bridge = useBridge();
  const [, navigate] = useView();
  useEffect(
    () =>
      bridge.on('app.onMenuCommand', ({ command }) => {
        const action = menuAction(command);
        if (action.kind === 'import-log') openImportLog();
        else navigate(action.view);
      }),
    [bridge, navigate, openImportLog],
  );
}
