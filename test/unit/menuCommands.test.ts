// The desktop menu's commands as the window carries them out: each opens its view (Compare the runs table, where runs
// are picked), Import Log its dialog; and the address with no view, where the first-run view lives, stays apart from New run.
import { describe, expect, it } from 'vitest';
import { events } from '../../electron/shared/api.js';
import { menuAction, type MenuCommand } from '../../renderer/src/menuCommands.js';
import { parseHash, viewHash } from '../../renderer/src/route.js';

describe('menuAction', () => {
  it.each<[MenuCommand, string]>([
    ['new-run', '#/new'],
    ['new-sweep', '#/sweeps/new'],
    ['runs', '#/runs'],
    ['sweeps', '#/sweeps'],
    ['compare', '#/runs'],
    ['gpu-control', '#/gpu'],
  ])('%s opens %s', (command, hash) => {
    const action = menuAction(command);
    expect(action.kind).toBe('navigate');
    if (action.kind !== 'navigate') return;
    expect(viewHash(action.view)).toBe(hash);
    expect(parseHash(hash)).toEqual(action.view);
  });

  it('import-log opens the Import log dialog, not a view', () => {
    expect(menuAction('import-log')).toEqual({ kind: 'import-log' });
  });

  it('has an action for every command the contract declares', () => {
    for (const command of events['app.onMenuCommand'].shape.command.options) {
      expect(menuAction(command)).toBeDefined();
    }
  });
});

describe('the home address', () => {
  it('is its own view, apart from New run', () => {
    expect(parseHash('')).toEqual({ kind: 'home' });
    expect(parseHash('#/')).toEqual({ kind: 'home' });
    expect(parseHash(viewHash({ kind: 'home' }))).toEqual({ kind: 'home' });
    expect(parseHash('#/new')).toEqual({ kind: 'new' });
    // An address that names nothing known still opens New run, as before.
    expect(parseHash('#/nonsense')).toEqual({ kind: 'new' });
  });
});
