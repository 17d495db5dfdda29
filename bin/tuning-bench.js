#!/usr/bin/env node
// Entry point of the `tuning-bench` command: runs the compiled CLI (build it with `npm run build`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = fileURLToPath(new URL('../dist/node/electron/cli/main.js', import.meta.url));
if (!existsSync(compiled)) {
  process.stderr.write('tuning-bench: the CLI is not built yet; run `npm run build` in the project folder first.\n');
  process.exit(1);
}
const { main } = await import(compiled);
process.exitCode = await main(process.argv);
