// npm install fetches Electron's runtime in our postinstall, not in electron's own install script, so a download that
// fails (no route to github.com) leaves a complete headless install and one sentence instead of an empty node_modules.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { downloadFailureReason, electronBinaryInstalled, installElectronRuntime } from '../../scripts/electronRuntime.mjs';
import { REPO_ROOT } from '../helpers/tempCore.js';

let root: string;
const electronDir = () => path.join(root, 'node_modules', 'electron');

/** A stand-in for electron's install.js: fails as a blocked download does, or leaves the binary as the real one does. */
function fakeInstallScript(outcome: 'fails' | 'downloads'): void {
  fs.mkdirSync(electronDir(), { recursive: true });
  const body =
    outcome === 'fails'
      ? `console.error('RequestError: getaddrinfo ENOTFOUND github.com\\n    at ClientRequest.<anonymous> (got/index.js:970:111)'); process.exit(1);`
      : `const fs = require('fs'); fs.mkdirSync(__dirname + '/dist', { recursive: true });
         fs.writeFileSync(__dirname + '/dist/electron', ''); fs.writeFileSync(__dirname + '/path.txt', 'electron');`;
  fs.writeFileSync(path.join(electronDir(), 'install.js'), body);
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-electron-runtime-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('installElectronRuntime', () => {
  it('says in one sentence what failed and what still works when the download fails', () => {
    fakeInstallScript('fails');
    const { installed, message } = installElectronRuntime(root, { PATH: process.env.PATH });
    expect(installed).toBe(false);
    expect(message).toMatch(/^Tuning Bench: Electron's desktop runtime is not installed \(its download failed: getaddrinfo ENOTFOUND github\.com\)/u);
    expect(message).toMatch(/npm run serve.*the CLI and `npm test` work.*npm run install-electron/u);
    expect(message).not.toMatch(/\n/u);
  });

  it('downloads through electron’s own script and says nothing when that works', () => {
    fakeInstallScript('downloads');
    expect(installElectronRuntime(root, { PATH: process.env.PATH })).toEqual({ installed: true, message: null });
    expect(electronBinaryInstalled(root)).toBe(true);
  });

  it('does not try when ELECTRON_SKIP_BINARY_DOWNLOAD is set, and says so', () => {
    fakeInstallScript('downloads');
    const { installed, message } = installElectronRuntime(root, { PATH: process.env.PATH, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' });
    expect(installed).toBe(false);
    expect(message).toMatch(/ELECTRON_SKIP_BINARY_DOWNLOAD is set/u);
    expect(electronBinaryInstalled(root)).toBe(false);
  });

  it('takes the error line, not the stack, as the reason', () => {
    expect(downloadFailureReason('HTTPError: Response code 404 (Not Found)\n    at x (y.js:1:1)\n')).toBe('Response code 404 (Not Found)');
    expect(downloadFailureReason('')).toBe('the download failed');
  });
});

describe('the script as npm runs it', () => {
  function runScript(args: string[]) {
    fs.mkdirSync(path.join(root, 'scripts'), { recursive: true });
    fs.copyFileSync(path.join(REPO_ROOT, 'scripts', 'electronRuntime.mjs'), path.join(root, 'scripts', 'electronRuntime.mjs'));
    const env = { ...process.env };
    delete env.ELECTRON_SKIP_BINARY_DOWNLOAD;
    return spawnSync(process.execPath, [path.join(root, 'scripts', 'electronRuntime.mjs'), ...args], { env, encoding: 'utf8' });
  }

  it('never fails the install as postinstall, and fails when asked for by name (npm run install-electron)', () => {
    fakeInstallScript('fails');
    const postinstall = runScript(['--postinstall']);
    expect(postinstall.status).toBe(0);
    expect(postinstall.stderr.trim().split('\n')).toHaveLength(1);
    expect(runScript([]).status).toBe(1);
  });

  it('keeps electron’s install script out of npm’s hands (package.json allowScripts)', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      allowScripts: Record<string, boolean>;
      scripts: Record<string, string>;
    };
    expect(pkg.allowScripts.electron).toBe(false);
    expect(pkg.scripts.postinstall).toBe('node scripts/electronRuntime.mjs --postinstall');
  });
});
