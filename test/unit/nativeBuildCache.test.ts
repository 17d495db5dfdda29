// `npm start` and `npm run serve` / the tests need the native modules built for different ABIs: each switch swaps the
// kept build in place instead of compiling, and says what it does. Fake module folders stand in for node_modules.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtFor, electronBuildKey, NATIVE_MODULES, nodeBuildKey, restoreBuild, stashBuild } from '../../scripts/nativeBuildCache.mjs';
import { prepareNativeModulesForElectron } from '../../scripts/prepareElectronStart.mjs';

/** The Electron the project pins; node-abi maps it to the ABI that @electron/rebuild writes into .forge-meta. */
const ELECTRON_VERSION = '41.7.1';
let root: string;

function release(name: string): string {
  return path.join(root, 'node_modules', name, 'build', 'Release');
}

/** A module folder as node-gyp leaves it (no marker) or as @electron/rebuild does (marker). */
function buildInPlace(name: string, contents: string, forgeMeta: string | null): void {
  fs.rmSync(release(name), { recursive: true, force: true });
  fs.mkdirSync(path.join(release(name), 'obj.target'), { recursive: true });
  fs.writeFileSync(path.join(release(name), 'addon.node'), contents);
  if (forgeMeta !== null) fs.writeFileSync(path.join(release(name), '.forge-meta'), forgeMeta);
}

const addon = (name: string) => fs.readFileSync(path.join(release(name), 'addon.node'), 'utf8');

/** The runtime as electron's install script leaves it: `path.txt` naming the binary under `dist/`. */
function installRuntime(): void {
  const electron = path.join(root, 'node_modules', 'electron');
  fs.mkdirSync(path.join(electron, 'dist'), { recursive: true });
  fs.writeFileSync(path.join(electron, 'dist', 'electron'), '');
  fs.writeFileSync(path.join(electron, 'path.txt'), 'electron');
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-native-cache-'));
  fs.mkdirSync(path.join(root, 'node_modules', 'electron'), { recursive: true });
  fs.writeFileSync(path.join(root, 'node_modules', 'electron', 'package.json'), JSON.stringify({ name: 'electron', version: ELECTRON_VERSION }));
  installRuntime();
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('stashBuild and restoreBuild', () => {
  it('round-trips a build, and a Node build put back carries no Electron marker', () => {
    buildInPlace('m', 'node build', null);
    expect(stashBuild(root, 'm', nodeBuildKey())).toBe(true);
    buildInPlace('m', 'electron build', 'x64--145');
    expect(stashBuild(root, 'm', 'x64--145')).toBe(true);

    expect(restoreBuild(root, 'm', nodeBuildKey())).toBe(true);
    expect(addon('m')).toBe('node build');
    expect(builtFor(root, 'm')).toBeNull();

    expect(restoreBuild(root, 'm', 'x64--145')).toBe(true);
    expect(addon('m')).toBe('electron build');
    expect(builtFor(root, 'm')).toBe('x64--145');
  });

  it('says false when nothing was kept, and leaves the build in place alone', () => {
    buildInPlace('m', 'node build', null);
    expect(restoreBuild(root, 'm', 'x64--145')).toBe(false);
    expect(addon('m')).toBe('node build');
    expect(stashBuild(root, 'missing', nodeBuildKey())).toBe(false);
  });

  it('replaces files by new inodes, so a hard link elsewhere (cp -a, a loaded addon) keeps its contents', () => {
    buildInPlace('m', 'electron build', 'x64--145');
    stashBuild(root, 'm', 'x64--145');
    buildInPlace('m', 'node build', null);
    const elsewhere = path.join(root, 'other-checkout-addon.node');
    fs.linkSync(path.join(release('m'), 'addon.node'), elsewhere);
    restoreBuild(root, 'm', 'x64--145');
    expect(addon('m')).toBe('electron build');
    expect(fs.readFileSync(elsewhere, 'utf8')).toBe('node build');
  });
});

describe('prepareNativeModulesForElectron (before electron-forge start)', () => {
  it('finds the marker @electron/rebuild writes for the installed Electron', () => {
    expect(electronBuildKey(root)).toEqual({ key: `${process.arch}--145`, version: ELECTRON_VERSION });
  });

  it('first start: keeps the Node builds and says that Forge rebuilds, and for how long', () => {
    for (const name of NATIVE_MODULES) buildInPlace(name, `${name} node`, null);
    const { ok, lines } = prepareNativeModulesForElectron(root);
    expect(ok).toBe(true);
    expect(lines.join('\n')).toMatch(/Electron Forge now rebuilds better-sqlite3, node-pty for Electron 41\.7\.1 \(about 2 minutes/u);
    // Forge's build for Electron, then back to Node: the Node build comes from the cache.
    for (const name of NATIVE_MODULES) buildInPlace(name, `${name} electron`, `${process.arch}--145`);
    for (const name of NATIVE_MODULES) {
      stashBuild(root, name, builtFor(root, name)!);
      expect(restoreBuild(root, name, nodeBuildKey())).toBe(true);
      expect(addon(name)).toBe(`${name} node`);
    }
    // The next start puts the Electron build back: nothing left for Forge to rebuild.
    const second = prepareNativeModulesForElectron(root).lines.join('\n');
    expect(second).toMatch(/put back their Electron 41\.7\.1 build/u);
    expect(second).not.toMatch(/rebuilds/u);
    for (const name of NATIVE_MODULES) expect(builtFor(root, name)).toBe(`${process.arch}--145`);
  });

  it('says no rebuild when the Electron build is already in place', () => {
    for (const name of NATIVE_MODULES) buildInPlace(name, `${name} electron`, `${process.arch}--145`);
    const lines = prepareNativeModulesForElectron(root).lines.join('\n');
    expect(lines).toMatch(/already built for Electron 41\.7\.1; no rebuild/u);
    expect(lines).not.toMatch(/rebuilds/u);
  });

  it('refuses with a clear line on a headless install without the electron package', () => {
    fs.rmSync(path.join(root, 'node_modules', 'electron'), { recursive: true });
    const { ok, lines } = prepareNativeModulesForElectron(root);
    expect(ok).toBe(false);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/desktop runtime is not installed \(the electron package is missing\).*npm run serve.*npm run install-electron/u);
  });

  it('refuses in one line, before any rebuild, when the package is there but its binary was never downloaded', () => {
    for (const name of NATIVE_MODULES) buildInPlace(name, `${name} node`, null);
    fs.rmSync(path.join(root, 'node_modules', 'electron', 'dist'), { recursive: true });
    const { ok, lines } = prepareNativeModulesForElectron(root);
    expect(ok).toBe(false);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/its binary was not downloaded.*npm run install-electron/u);
    // Nothing was stashed for a rebuild that would be for nothing.
    for (const name of NATIVE_MODULES) expect(addon(name)).toBe(`${name} node`);
    expect(fs.existsSync(path.join(root, 'node_modules', '.cache'))).toBe(false);
  });
});
