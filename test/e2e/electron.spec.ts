// The desktop shell itself: launched with Playwright's Electron driver wherever the Electron binary exists.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { _electron as electron } from '@playwright/test';
import { expect, REPO_ROOT, screenshot, test } from './serverFixture.js';

/** The binary `npm install` downloads; absent where ELECTRON_SKIP_BINARY_DOWNLOAD was set (as in CI here). */
function electronBinary(): string | null {
  try {
    const binary = createRequire(import.meta.url)('electron') as unknown;
    return typeof binary === 'string' && fs.existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

const binary = electronBinary();
if (!binary) {
  console.warn('Electron end-to-end test SKIPPED: the Electron binary is not installed (ELECTRON_SKIP_BINARY_DOWNLOAD).');
}

test.describe('the Electron app', () => {
  test.skip(!binary, 'the Electron binary is not installed here (ELECTRON_SKIP_BINARY_DOWNLOAD), so the desktop shell cannot start');

  test('opens a hardened window on the shared renderer and runs the synthetic workload', async () => {
    test.setTimeout(300_000);
    // Forge builds main, preload and renderer into .vite/ (and rebuilds native modules for Electron).
    execFileSync('npx', ['electron-forge', 'package'], { cwd: REPO_ROOT, stdio: 'inherit' });
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-electron-'));
    const app = await electron.launch({
      executablePath: binary!,
      args: [REPO_ROOT],
      env: { ...process.env, TUNING_BENCH_DB: path.join(dataDir, 'runs.db') },
    });
    try {
      const window = await app.firstWindow();
      // With context isolation, sandbox and no Node integration, the page sees only what the preload exposed.
      const exposed = await window.evaluate(() => {
        const page = globalThis as { require?: unknown; process?: unknown; tuningBench?: Record<string, unknown> };
        return { require: typeof page.require, process: typeof page.process, bridge: Object.keys(page.tuningBench ?? {}).sort() };
      });
      expect(exposed).toEqual({ require: 'undefined', process: 'undefined', bridge: ['methods', 'on'] });
      await window.getByTestId('new-run-button').click();
      await window.getByTestId('var-steps').fill('40');
      await window.getByTestId('start-run').click();
      await expect(window.getByTestId('run-status')).toHaveText('succeeded', { timeout: 60_000 });
      await expect(window.getByTestId('terminal')).toContainText('step 40: loss');
      await screenshot(window, 'electron-run-view');
    } finally {
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
