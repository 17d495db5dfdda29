// Keeps both builds of the native modules (one for Node, one for Electron) so switching between `npm start` and
// `npm run serve` / the tests swaps files instead of recompiling (about 2 minutes each way on 2 cores).
// @electron/rebuild (run by Electron Forge) marks its builds with build/Release/.forge-meta = "<arch>--<Electron ABI>"
// and skips modules whose marker already matches; `npm rebuild` (node-gyp) recreates build/ without the marker.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export const NATIVE_MODULES = ['better-sqlite3', 'node-pty'];
const FORGE_META = '.forge-meta';
const CACHE_DIR = 'node_modules/.cache/tuning-bench-native';

/** The marker of this Node's build in the cache (node-gyp writes none in the module itself). */
export function nodeBuildKey() {
  return `node--${process.versions.modules}`;
}

/** The marker @electron/rebuild writes for the installed Electron, or null when Electron is not installed (headless). */
export function electronBuildKey(root) {
  let version;
  try {
    version = JSON.parse(fs.readFileSync(path.join(root, 'node_modules/electron/package.json'), 'utf8')).version;
  } catch {
    return null;
  }
  // The same lookup @electron/rebuild does (node-abi, a dependency of it), so the marker matches its own.
  const { getAbi } = createRequire(import.meta.url)('node-abi');
  return { key: `${process.arch}--${getAbi(version, 'electron')}`, version };
}

function releaseDir(root, name) {
  return path.join(root, 'node_modules', name, 'build', 'Release');
}

function cacheDir(root, name, key) {
  return path.join(root, CACHE_DIR, name, key);
}

/** The Electron marker the module's build carries, or null for a build made by npm/node-gyp for Node (or none at all). */
export function builtFor(root, name) {
  try {
    return fs.readFileSync(path.join(releaseDir(root, name), FORGE_META), 'utf8');
  } catch {
    return null;
  }
}

/** The files that make the build: top-level regular files of build/Release (objects and .deps are not needed to load). */
function buildFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

/**
 * Replaces a file by a new inode rather than writing into it: a loaded .node must not change under the process that
 * mapped it, and node_modules copied with `cp -a` may share inodes with another checkout.
 */
function replaceFile(from, to) {
  fs.rmSync(to, { force: true });
  fs.copyFileSync(from, to);
}

/** Saves the module's current build under key, replacing an older copy. */
export function stashBuild(root, name, key) {
  const files = buildFiles(releaseDir(root, name));
  if (files.length === 0) return false;
  const target = cacheDir(root, name, key);
  fs.rmSync(target, { recursive: true, force: true });
  fs.mkdirSync(target, { recursive: true });
  for (const file of files) fs.copyFileSync(path.join(releaseDir(root, name), file), path.join(target, file));
  return true;
}

/** Puts the build saved under key back in place; false when none was saved. A Node build leaves no Electron marker. */
export function restoreBuild(root, name, key) {
  const source = cacheDir(root, name, key);
  const files = buildFiles(source);
  if (files.length === 0) return false;
  const release = releaseDir(root, name);
  fs.mkdirSync(release, { recursive: true });
  if (!files.includes(FORGE_META)) fs.rmSync(path.join(release, FORGE_META), { force: true });
  for (const file of files) replaceFile(path.join(source, file), path.join(release, file));
  return true;
}
