// Runs before `electron-forge start`: says what is about to happen to the native modules, and puts back their Electron
// build from the cache when one is there, so Forge's rebuild check finds them up to date instead of recompiling.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBinaryInstalled, missingRuntimeSentence } from './electronRuntime.mjs';
import { builtFor, electronBuildKey, NATIVE_MODULES, nodeBuildKey, restoreBuild, stashBuild } from './nativeBuildCache.mjs';

/** Brings every native module to the Electron build where a cached one exists; returns the lines to print. */
export function prepareNativeModulesForElectron(root) {
  const electron = electronBuildKey(root);
  // Checked before anything is rebuilt: without the runtime a rebuild for it is minutes spent for nothing.
  if (electron === null) return { ok: false, lines: [missingRuntimeSentence('the electron package is missing')] };
  if (!electronBinaryInstalled(root)) return { ok: false, lines: [missingRuntimeSentence('its binary was not downloaded')] };
  const upToDate = [];
  const restored = [];
  const toRebuild = [];
  for (const name of NATIVE_MODULES) {
    const current = builtFor(root, name);
    if (current === electron.key) {
      upToDate.push(name);
      continue;
    }
    // The build in place is Node's (no Electron marker) or another Electron's: keep it for the way back.
    stashBuild(root, name, current ?? nodeBuildKey());
    if (restoreBuild(root, name, electron.key)) restored.push(name);
    else toRebuild.push(name);
  }
  const lines = [];
  if (upToDate.length > 0) lines.push(`npm start: ${upToDate.join(', ')} already built for Electron ${electron.version}; no rebuild.`);
  if (restored.length > 0)
    lines.push(`npm start: ${restored.join(', ')}: put back their Electron ${electron.version} build from node_modules/.cache; no rebuild.`);
  if (toRebuild.length > 0) {
    lines.push(
      `npm start: Electron Forge now rebuilds ${toRebuild.join(', ')} for Electron ${electron.version} (about 2 minutes on 2 cores, once: ` +
        'the build is kept in node_modules/.cache, and `npm run serve` / the tests swap back to the Node build without compiling).',
    );
  }
  lines.push('npm start: then Forge builds main, preload and the renderer with Vite and opens the window.');
  return { ok: true, lines };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const { ok, lines } = prepareNativeModulesForElectron(root);
  process.stderr.write(`${lines.join('\n')}\n`);
  if (!ok) process.exit(1);
}
