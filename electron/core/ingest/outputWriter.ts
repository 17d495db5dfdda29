// The engine's side of the output writer: hands chunks to the worker thread, and waits for it when asked.
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { FLUSH_INTERVAL_MS } from '../store/batchWriter.js';
import type { MetricSample } from '../metrics/samples.js';
import type { FromOutputWriter, OutputWriterConfig, ToOutputWriter } from './outputWriterProtocol.js';
import type { WriterStatus } from '../store/batchWriter.js';

/**
 * The worker's script beside this module: compiled (`.js`, or `.cjs` in the Electron bundle), or
 * the TypeScript source under tsx when the engine itself runs from source (tests, `npm run bench`).
 */
/**
 * This module's own URL. Under ESM (the CLI, the server, tests) that is import.meta.url; in the
 * Electron main bundle, which Vite builds as CommonJS, import.meta is empty and __filename is the
 * bundle, beside which the worker's own bundle lies.
 */
function moduleUrl(): string {
  return typeof __filename === 'string' ? pathToFileURL(__filename).href : import.meta.url;
}

function startWorker(workerData: OutputWriterConfig): Worker {
  const here = moduleUrl();
  for (const extension of ['.js', '.cjs']) {
    const url = new URL(`./outputWriterWorker${extension}`, here);
    if (fs.existsSync(fileURLToPath(url))) return new Worker(url, { workerData });
  }
  const source = new URL('./outputWriterWorker.ts', here);
  if (!fs.existsSync(fileURLToPath(source))) {
    throw new Error(`the output writer's worker script is missing beside ${fileURLToPath(here)}`);
  }
  // From source (tests, benchmarks): the worker registers tsx itself; a worker's own --import is not honoured everywhere.
  const bootstrap = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}

export class OutputWriter {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, () => void>();
  private nextFlushId = 1;
  private closing: Promise<void> | null = null;
  private metricsListener: (runId: number, samples: MetricSample[]) => void = () => undefined;
  private failure: string | null = null;
  private status: WriterStatus = { state: 'writing' };
  private readonly statusListeners = new Set<(status: WriterStatus) => void>();
  private readonly droppingListeners = new Set<(runId: number, limitBytes: number) => void>();

  constructor(file: string, onError: (message: string) => void = (message) => console.error(`tuning-bench: ${message}`)) {
    this.worker = startWorker({ file, flushIntervalMs: FLUSH_INTERVAL_MS });
    // Like the batch timer: pending output must not keep a finished CLI alive; close() waits for it.
    this.worker.unref();
    this.worker.on('message', (message: FromOutputWriter) => {
      if (message.type === 'metrics') {
        this.metricsListener(message.runId, message.samples);
      } else if (message.type === 'flushed') {
        this.waiting.get(message.id)?.();
        this.waiting.delete(message.id);
      } else if (message.type === 'error') {
        onError(message.message);
      } else if (message.type === 'status') {
        this.status = message.status;
        for (const listener of [...this.statusListeners]) listener(message.status);
      } else if (message.type === 'dropping') {
        for (const listener of [...this.droppingListeners]) listener(message.runId, message.limitBytes);
      } else if (message.type === 'closed' && message.lostChunks > 0) {
        onError(`${message.lostChunks} chunks of output could not be stored before closing: ${this.status.state === 'paused' ? this.status.message : 'the database refused them'}`);
      }
    });
    this.worker.on('error', (error) => {
      this.failure = error.message;
      onError(`the output writer stopped: ${error.message}`);
      for (const resolve of this.waiting.values()) resolve();
      this.waiting.clear();
    });
  }

  onStatus(listener: (status: WriterStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  currentStatus(): WriterStatus {
    return this.status;
  }

  /** Hears when a run's output starts to be dropped: writing is paused and the held-back output reached its limit. */
  onDropping(listener: (runId: number, limitBytes: number) => void): () => void {
    this.droppingListeners.add(listener);
    return () => this.droppingListeners.delete(listener);
  }

  /** How much output may wait in memory while the file refuses it. */
  setHeldOutputLimit(bytes: number): void {
    if (!this.closing && !this.failure) this.post({ type: 'setHeldOutputLimit', bytes });
  }

  /** Caps the file at this many pages on the worker's connection (SQLite's max_page_count). */
  setMaxPageCount(pages: number): void {
    if (!this.closing && !this.failure) this.post({ type: 'setMaxPageCount', pages });
  }

  onMetrics(listener: (runId: number, samples: MetricSample[]) => void): void {
    this.metricsListener = listener;
  }

  /** A live run: parsed on the writer thread (bar floods thinned by arrival), its committed samples back through `onMetrics`. */
  startRun(runId: number, options: { metricRegex: string }): void {
    if (!this.closing && !this.failure) this.post({ type: 'startRun', runId, metricRegex: options.metricRegex });
  }

  /**
   * A run whose text the caller parses itself (an import: the engine's thread parses while this
   * thread stores, so the two halves of the work overlap): each chunk comes with its samples through
   * appendParsed, and the last through endRun; they are committed with the output and not sent back
   * (nothing listens, and copying millions of samples between threads costs both of them).
   */
  startParsedRun(runId: number): void {
    if (!this.closing && !this.failure) this.post({ type: 'startParsedRun', runId });
  }

  /** A chunk of a run started with startParsedRun, with the samples parsed from it (the buffer moves as with append). */
  appendParsed(runId: number, seq: number, tMs: number, data: Buffer, samples: MetricSample[]): void {
    if (this.closing || this.failure) return;
    this.worker.postMessage({ type: 'chunk', runId, seq, tMs, data, samples } satisfies ToOutputWriter, movable(data));
  }

  /** `samples`: the last ones parsed by the caller, for a run started with startParsedRun. */
  endRun(runId: number, tMs: number, samples?: MetricSample[]): void {
    if (!this.closing && !this.failure) this.post({ type: 'endRun', runId, tMs, ...(samples ? { samples } : {}) });
  }

  /** Hands the chunk over; a buffer that owns its whole memory is moved, not copied, and must not be used after. */
  append(runId: number, seq: number, tMs: number, data: Buffer): void {
    if (this.closing || this.failure) return;
    this.worker.postMessage({ type: 'chunk', runId, seq, tMs, data } satisfies ToOutputWriter, movable(data));
  }

  /** Resolves once everything appended so far is committed. */
  flush(): Promise<void> {
    if (this.closing || this.failure) return this.closing ?? Promise.resolve();
    const id = this.nextFlushId++;
    this.worker.ref();
    return new Promise<void>((resolve) => {
      this.waiting.set(id, () => {
        if (this.waiting.size <= 1 && !this.closing) this.worker.unref();
        resolve();
      });
      this.post({ type: 'flush', id });
    });
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      if (this.failure) return resolve();
      this.worker.ref();
      this.worker.once('exit', () => resolve());
      this.post({ type: 'close' });
    });
    return this.closing;
  }

  private post(message: ToOutputWriter): void {
    this.worker.postMessage(message);
  }
}

/** A buffer that is the whole of its memory is moved to the writer thread (the transfer list), not copied. */
function movable(data: Buffer): ArrayBuffer[] {
  const memory = data.buffer;
  return data.byteOffset === 0 && memory.byteLength === data.length && memory instanceof ArrayBuffer ? [memory] : [];
}
