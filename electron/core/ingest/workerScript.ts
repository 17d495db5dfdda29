// Starts one of ingest's worker threads from its script beside this module: compiled (`.js`), bundled (`.cjs`), or the TypeScript source under tsx.
import fs from 'node:fs';
// A namespace: a named import of what an older Node lacks would fail this module's loading, not the optional call.
import * as nodeModule from 'node:module';
import path from 'node:path';
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

/**
 * The young generation each of these threads' heaps may grow to. V8 grows it to 64 MiB semi-spaces on this
 * work (a stream of short-lived samples, some kept a while), on every thread: capped, a 3 M-line import's peak
 * was 456-477 MiB against 519-539 (1 M lines: 407-458 against 439-447), and a `run -- cat` of 1 M lines 507-609 MiB
 * against 643-683, at the same speed.
 */
const WORKER_YOUNG_GENERATION_MB = 16;
/**
 * The task thread's: a summary keeps most of what it makes (columns, points), so a larger young generation only
 * held more memory beside the run's other threads: a 10 M-line import's summary heap 68 -> 52 MiB committed, at the
 * same speed (with the engine's idle heap handed back first, see heapRelease.ts, its peak 401-418 -> 291-321 MiB).
 */
const TASK_YOUNG_GENERATION_MB = 4;

/** The worker's script beside this module: compiled (`.js`, or `.cjs` in the Electron bundle), or its TypeScript source under tsx (tests, `npm run bench`). */
export function startIngestWorker(name: IngestWorkerName, workerData: unknown, transferList: readonly TransferListItem[] = []): Worker {
  const here = moduleUrl();
  // Where the process keeps V8's compiled code (the CLI turns it on), the thread does too: its start, which a short
  // run's summary waits for, then compiles its bundle once rather than at every command (about 35 ms a thread). Only
  // the thread's environment carries it, never the training command's.
  // (The directory Node reports holds its version's folder, which Node adds again below NODE_COMPILE_CACHE.)
  const compileCache = nodeModule.getCompileCacheDir?.();
  const options = {
    workerData,
    ...(compileCache ? { env: { ...process.env, NODE_COMPILE_CACHE: path.dirname(compileCache) } } : {}),
    transferList: [...transferList],
    resourceLimits: { maxYoungGenerationSizeMb: name === 'ingestTaskWorker' ? TASK_YOUNG_GENERATION_MB : WORKER_YOUNG_GENERATION_MB },
  };
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
