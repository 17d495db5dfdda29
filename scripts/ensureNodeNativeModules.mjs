// Rebuilds node-pty and better-sqlite3 for plain Node when they were last built for Electron.
// `npm start` (Electron Forge) rebuilds them for Electron's ABI; the CLI, server and tests need Node's.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
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

const stale = modules.filter((name) => /NODE_MODULE_VERSION|was compiled against a different Node/.test(String(loadError(name)?.message)));
if (stale.length > 0) {
  process.stderr.write(`Rebuilding ${stale.join(', ')} for Node ${process.version} (they were built for Electron)...\n`);
  execFileSync('npm', ['rebuild', ...stale], { stdio: 'inherit' });
}
for (const name of modules) {
  const error = loadError(name);
  if (error) {
    process.stderr.write(`${name} does not load: ${error.message}\nInstall build tools (make, g++, python3) and run \`npm rebuild ${name}\`.\n`);
    process.exit(1);
  }
}
