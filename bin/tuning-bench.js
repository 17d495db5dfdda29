#!/usr/bin/env node
// Entry point of the `tuning-bench` command: runs the built CLI (`npm run build`): the bundle in dist/cli, one file
// to load where the compiled modules in dist/node are about 270 (a quarter of a second before any work, issue 18).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundled = fileURLToPath(new URL('../dist/cli/tuning-bench.js', import.meta.url));
const compiled = fileURLToPath(new URL('../dist/node/electron/cli/entry.js', import.meta.url));
const entry = existsSync(bundled) ? bundled : compiled;
if (!existsSync(entry)) {
  process.stderr.write('tuning-bench: the CLI is not built yet; run `npm run build` in the project folder first.\n');
  process.exit(1);
}
await import(entry);
