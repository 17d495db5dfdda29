// Starts one of ingest's worker threads from its script beside this module: compiled (`.js`), bundled (`.cjs`), or the TypeScript source under tsx.
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type TransferListItem } from 'node:worker_threads';

/**
 * The threads of the output path: the writer (stores bytes, commits), the parser (turns text into samples), and
 * the task thread (long work on stored runs: parsing again, an import's summary).
 */
export type IngestWorkerName = 'outputWriterWorker' | 'outputParserWorker' | 'ingestTaskWorker';

/**
 * This module's own URL. Under ESM (the CLI, the server, tests) that is import.meta.url; in the
 * Electron main bundle, which Vite builds as CommonJS, import.meta is empty and __filename is the
 * bundle, beside which the workers' own bundles lie.
 */
function moduleUrl(): string {
  return typeof __filename === 'string' ? pathToFileURL(__filename).href : import.meta.url;
}

/** The worker's script beside this module: compiled (`.js`, or `.cjs` in the Electron bundle), or its TypeScript source under tsx (tests, `npm run bench`). */
export function startIngestWorker(name: IngestWorkerName, workerData: unknown, transferList: readonly TransferListItem[] = []): Worker {
  const here = moduleUrl();
  const options = { workerData, transferList: [...transferList] };
  for (const extension of ['.js', '.cjs']) {
    const url = new URL(`./${name}${extension}`, here);
    if (fs.existsSync(fileURLToPath(url))) return new Worker(url, options);
  }
  const source = new URL(`./${name}.ts`, here);
  if (!fs.existsSync(fileURLToPath(source))) {
    throw new Error(`the output path's worker script ${name} is missing beside ${fileURLToPath(here)}`);
  }
  // From source (tests, benchmarks): the worker registers tsx itself; a worker's own --import is not honoured everywhere.
  const bootstrap = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
