#!/usr/bin/env node
// Entry point of the `tuning-bench` command: runs the compiled CLI (built by `npm run build`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = fileURLToPath(new URL('../dist/node/electron/cli/entry.js', import.meta.url));
if (!existsSync(compiled)) {
  process.stderr.write('tuning-bench: the CLI is not built yet; run `npm run build` in the project folder first.\n');
  process.exit(1);
}
await import(compiled);
