// Bundles the CLI (and the output path's two workers beside it) into dist/cli: one file to load instead of about
// 270 modules, which is most of what `tuning-bench` costs before it does anything (issue 18: 0.2-0.3 s of a run).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = path.join(REPO_ROOT, 'dist/cli');

await build({
  absWorkingDir: REPO_ROOT,
  // The workers are found beside the module that starts them (electron/core/ingest/workerScript.ts): in the bundle that is the CLI's file.
  entryPoints: {
    'tuning-bench': 'electron/cli/entry.ts',
    outputWriterWorker: 'electron/core/ingest/outputWriterWorker.ts',
    outputParserWorker: 'electron/core/ingest/outputParserWorker.ts',
    ingestTaskWorker: 'electron/core/ingest/ingestTaskWorker.ts',
  },
  outdir: OUT_DIR,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  // Smaller text parses faster; the source map keeps stack traces readable (node --enable-source-maps).
  minify: true,
  // What a command loads on demand (the server) becomes its own file, parsed only when used. Chunks lie beside the
  // entry points, so the module that starts the worker (now in a chunk) still finds it beside itself.
  splitting: true,
  chunkNames: '[name]-[hash]',
  // Native addons load their own .node files from their package folders; electron is never part of the engine.
  external: ['better-sqlite3', 'node-pty', 'electron'],
  // CommonJS dependencies (ws, commander's helpers) call require() for Node's own modules; an ES bundle has none of its own.
  banner: { js: "import { createRequire as __tbCreateRequire } from 'node:module'; const require = __tbCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
