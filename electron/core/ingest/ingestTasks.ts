// The engine's side of the ingest task thread: long work on stored runs (parsing again, an import's summary) is sent there, so the engine's thread never holds a live run's output for it.
import type { Worker } from 'node:worker_threads';
import type { FromIngestTasks, IngestTask, IngestTaskResults, ToIngestTasks } from './ingestTaskProtocol.js';
import { ReparseRefused } from './reparse.js';
import type { SummaryOptions } from '../metrics/summary.js';
import { ApiFailure } from '../../shared/api.js';
import { startIngestWorker } from './workerScript.js';

export class IngestTasks {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly file: string,
    /** The output path's BytesFirst memory (OutputWriter.bytesFirst): the thread's long writes wait for byte commits. */
    private readonly bytesFirst: SharedArrayBuffer,
    /** Why the file is open for reading only, if it is: every task writes, so each is refused with this, no thread started. */
    private readonly readOnly: string | null = null,
  ) {}

  reparse(runId: number, now: Date): Promise<IngestTaskResults['reparse']> {
    return this.perform({ task: 'reparse', runId, nowIso: now.toISOString() });
  }

  finishImport(runId: number): Promise<IngestTaskResults['finishImport']> {
    return this.perform({ task: 'finishImport', runId });
  }

  summarizeRun(runId: number, options: SummaryOptions, stepMarks: boolean): Promise<IngestTaskResults['summarizeRun']> {
    return this.perform({ task: 'summarizeRun', runId, options, stepMarks });
  }

  numericLines(runId: number, limit: number): Promise<IngestTaskResults['numericLines']> {
    return this.perform({ task: 'numericLines', runId, limit });
  }

  /**
   * Starts the thread now, idle, for a task that will come (an import's summary): its start (loading the engine's
   * modules, opening the file) then overlaps the work before the task instead of following it. Never holds the process.
   */
  prewarm(): void {
    if (this.closed || this.readOnly !== null) return;
    this.start();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const worker = this.worker;
    if (worker === null) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    worker.postMessage({ id: this.nextId++, task: 'close' } satisfies ToIngestTasks);
    await exited;
  }

  private perform<K extends IngestTask['task']>(task: Extract<IngestTask, { task: K }>): Promise<IngestTaskResults[K]> {
    if (this.closed) return Promise.reject(new Error('the engine is closing: the task was not started'));
    if (this.readOnly !== null)
      return Promise.reject(
        new ApiFailure('conflict', `${this.file} is open for reading only (${this.readOnly}): ${task.task} writes to it, so it was not started`),
      );
    const worker = this.start();
    const id = this.nextId++;
    worker.ref();
    return new Promise<IngestTaskResults[K]>((resolve, reject) => {
      this.pending.set(id, { resolve: (value) => resolve(value as IngestTaskResults[K]), reject });
      worker.postMessage({ id, ...task } satisfies ToIngestTasks);
    });
  }

  /** Started at the first task: most commands never need it. */
  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = startIngestWorker('ingestTaskWorker', { file: this.file, bytesFirst: this.bytesFirst });
    worker.unref();
    worker.on('message', (message: FromIngestTasks) => {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (this.pending.size === 0 && !this.closed) worker.unref();
      if (!waiting) return;
      if (message.ok) waiting.resolve(message.value);
      else
        waiting.reject(
          message.name === 'ReparseRefused' ? new ReparseRefused(message.message) : Object.assign(new Error(message.message), { name: message.name }),
        );
    });
    // A thread that dies fails what waited on it; the next task starts a new one.
    const stopped = (why: string) => {
      for (const waiting of this.pending.values()) waiting.reject(new Error(`the ingest task thread stopped: ${why}`));
      this.pending.clear();
      if (this.worker === worker) this.worker = null;
    };
    worker.on('error', (error) => stopped(error.message));
    worker.on('exit', (code) => stopped(`it exited (${code})`));
    this.worker = worker;
    return worker;
  }
}
