#!/usr/bin/env node
// Entry point of the `tuning-bench` command: runs the built CLI: the bundle in dist/cli, one file to load where the
// compiled modules in dist/node are about 270 (a quarter of a second before any work, issue 18). In a checkout that
// was never built (a fresh clone put on PATH with `npm link`), the first call builds the Node part once.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import module from 'node:module';

// The build targets the Node of package.json's `engines`; an older one fails deep inside with a missing export.
const NEEDED_NODE_MAJOR = 24;
if (Number(process.versions.node.split('.')[0]) < NEEDED_NODE_MAJOR) {
  process.stderr.write(
    `tuning-bench: needs Node.js ${NEEDED_NODE_MAJOR} or newer; this is Node ${process.versions.node} (${process.execPath}). ` +
      `Install Node ${NEEDED_NODE_MAJOR} (nodejs.org, or \`nvm install ${NEEDED_NODE_MAJOR}\`) and run tuning-bench with it.\n`,
  );
  process.exit(1);
}

const bundled = fileURLToPath(new URL('../dist/cli/tuning-bench.js', import.meta.url));
const compiled = fileURLToPath(new URL('../dist/node/electron/cli/entry.js', import.meta.url));
const builder = fileURLToPath(new URL('../scripts/buildIfChanged.mjs', import.meta.url));
if (!existsSync(bundled) && !existsSync(compiled) && existsSync(builder)) {
  process.stderr.write('tuning-bench: building the CLI once (about 30 s; `npm run build` after a `git pull` builds it again)...\n');
  try {
    execFileSync(process.execPath, [builder, 'node'], { stdio: ['ignore', process.stderr, process.stderr] });
  } catch {
    process.stderr.write('tuning-bench: the build failed (above); run `npm install` in the project folder, then try again.\n');
    process.exit(1);
  }
}
const entry = existsSync(bundled) ? bundled : compiled;
if (!existsSync(entry)) {
  process.stderr.write('tuning-bench: the CLI is not built yet; run `npm run build` in the project folder first.\n');
  process.exit(1);
}
// V8's code cache on disk (os.tmpdir()/node-compile-cache; NODE_COMPILE_CACHE moves it): the bundle compiles once,
// not at every command (--help 0.13-0.15 -> 0.10-0.12 s). Silent where it cannot be written; this process only.
module.enableCompileCache?.();
await import(entry);
