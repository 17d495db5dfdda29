// Electron's desktop runtime (its binary, about 100 MB from GitHub or ELECTRON_MIRROR) is fetched here, after npm has
// installed everything else, so a failed download leaves a working headless install instead of an empty node_modules.
// package.json's allowScripts keeps npm from running electron's own install script, which fails the whole install.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DOWNLOAD_TIMEOUT_MS = 15 * 60 * 1000; // ~100 MB on a slow link; a DNS or TLS failure ends within a second

/** Whether electron's package holds the binary its `path.txt` names (what `require('electron')` returns). */
export function electronBinaryInstalled(root) {
  const dir = path.join(root, 'node_modules', 'electron');
  try {
    const relative = fs.readFileSync(path.join(dir, 'path.txt'), 'utf8').trim();
    return relative !== '' && fs.existsSync(path.join(dir, 'dist', relative));
  } catch {
    return false;
  }
}

/** The one sentence a user reads when the desktop runtime is missing; `why` says what happened. */
export function missingRuntimeSentence(why) {
  return (
    `Tuning Bench: Electron's desktop runtime is not installed (${why}); everything else is, so ` +
    '`npm run serve` (the same UI in your browser), the CLI and `npm test` work; for the desktop app run ' +
    '`npm run install-electron` where github.com (or your ELECTRON_MIRROR) can be reached.'
  );
}

/** The first line of the download's error that says why (e.g. "getaddrinfo ENOTFOUND github.com"). */
export function downloadFailureReason(stderr) {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const first = lines.find((line) => !line.startsWith('at ')) ?? 'the download failed';
  return first.replace(/^(?:RequestError|HTTPError|Error): /u, '').slice(0, 200);
}

/** Downloads the runtime unless skipped or present; never throws. */
export function installElectronRuntime(root, env = process.env) {
  if (electronBinaryInstalled(root)) return { installed: true, message: null };
  if (env.ELECTRON_SKIP_BINARY_DOWNLOAD) return { installed: false, message: missingRuntimeSentence('ELECTRON_SKIP_BINARY_DOWNLOAD is set') };
  const script = path.join(root, 'node_modules', 'electron', 'install.js');
  if (!fs.existsSync(script)) return { installed: false, message: missingRuntimeSentence('the electron package is missing') };
  const result = spawnSync(process.execPath, [script], { cwd: path.dirname(script), env, encoding: 'utf8', timeout: DOWNLOAD_TIMEOUT_MS });
  if (result.status === 0 && electronBinaryInstalled(root)) return { installed: true, message: null };
  const why = result.error ? result.error.message : downloadFailureReason(result.stderr ?? '');
  return { installed: false, message: missingRuntimeSentence(`its download failed: ${why}`) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const { installed, message } = installElectronRuntime(root);
  if (message) process.stderr.write(`${message}\n`);
  // As npm's postinstall it must never fail the install; asked for by name, a failure is an error.
  process.exit(installed || process.argv.includes('--postinstall') ? 0 : 1);
}
