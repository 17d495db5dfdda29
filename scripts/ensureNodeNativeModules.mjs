// Rebuilds node-pty and better-sqlite3 for plain Node when they were last built for Electron.
// `npm start` (Electron Forge) rebuilds them for Electron's ABI; the CLI, server and tests need Node's. Each build is kept
// in node_modules/.cache (scripts/nativeBuildCache.mjs), so switching back and forth swaps files instead of compiling.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtFor, nodeBuildKey, restoreBuild, stashBuild } from './nativeBuildCache.mjs';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const modules = ['better-sqlite3', 'node-pty'];

function loadError(name) {
  try {
    if (name === 'better-sqlite3') new (require(name))(':memory:').close();
    else require(name);
    return null;
  } catch (error) {
    return error;
  }
}

const isStale = (name) => /NODE_MODULE_VERSION|was compiled against a different Node/.test(String(loadError(name)?.message));
const stale = modules.filter(isStale);
const restored = [];
for (const name of stale) {
  // Keep the Electron build for the next `npm start`, then try this Node's build from the cache.
  const electronKey = builtFor(root, name);
  if (electronKey !== null) stashBuild(root, name, electronKey);
  // The swapped file is a new inode, so loading it again maps the new build (as after `npm rebuild` below).
  if (restoreBuild(root, name, nodeBuildKey()) && !isStale(name)) restored.push(name);
}
if (restored.length > 0) process.stderr.write(`Put back the Node build of ${restored.join(', ')} from node_modules/.cache (they were built for Electron).\n`);
const toRebuild = stale.filter((name) => !restored.includes(name));
if (toRebuild.length > 0) {
  process.stderr.write(`Rebuilding ${toRebuild.join(', ')} for Node ${process.version} (they were built for Electron)...\n`);
  execFileSync('npm', ['rebuild', ...toRebuild], { stdio: 'inherit' });
  for (const name of toRebuild) if (!isStale(name)) stashBuild(root, name, nodeBuildKey());
}
for (const name of modules) {
  const error = loadError(name);
  if (error) {
    process.stderr.write(`${name} does not load: ${error.message}\nInstall build tools (make, g++, python3) and run \`npm rebuild ${name}\`.\n`);
    process.exit(1);
  }
}
