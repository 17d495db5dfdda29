// The lint rules that keep STYLE.md's layers: each forbidden import is caught, allowed ones pass.
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/tempCore.js';

const eslint = new ESLint({ cwd: REPO_ROOT });

async function restrictedImports(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO_ROOT, file) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer rules', () => {
  it.each([
    ['electron/core/x.ts', "import { app } from 'electron';"],
    ['electron/core/x.ts', "import { startServer } from '../server/server.js';"],
    ['electron/server/x.ts', "import { BrowserWindow } from 'electron';"],
    ['electron/cli/x.ts', "import { ipcMain } from 'electron';"],
    ['electron/shared/x.ts', "import fs from 'node:fs';"],
    ['electron/shared/x.ts', "import { createCore } from '../core/createCore.js';"],
    ['electron/preload/x.ts', "import { createCore } from '../core/createCore.js';"],
    ['renderer/src/x.ts', "import fs from 'node:fs';"],
    ['renderer/src/x.ts', "import Database from 'better-sqlite3';"],
    ['renderer/src/x.ts', "import { createCore } from '../../electron/core/createCore.js';"],
  ])('refuses in %s: %s', async (file, code) => {
    expect(await restrictedImports(file, `${code}\nexport const used = 1;\n`)).toHaveLength(1);
  }, 30_000);

  it.each([
    ['electron/core/x.ts', "import { methods } from '../shared/api.js';"],
    ['electron/server/x.ts', "import { createCore } from '../core/createCore.js';"],
    ['electron/main/x.ts', "import { app } from 'electron';"],
    ['renderer/src/x.ts', "import { methods } from '../../electron/shared/api.js';"],
  ])('allows in %s: %s', async (file, code) => {
    expect(await restrictedImports(file, `${code}\nexport const used = 1;\n`)).toEqual([]);
  }, 30_000);
});
