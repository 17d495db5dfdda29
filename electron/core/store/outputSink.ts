// What the store asks of the output writer: ingest/ runs it on its own thread, but it writes this file, so the Store passes its status, limits, flush and close on.
import type { WriterStatus } from './batchWriter.js';

export interface OutputSink {
  /** Queues a chunk of a run's output; committed with the writer's next batch. */
  append(runId: number, seq: number, tMs: number, data: Buffer): void;
  /** Resolves once everything queued so far is committed (or kept for retry). */
  flush(): Promise<void>;
  close(): Promise<void>;
  onStatus(listener: (status: WriterStatus) => void): () => void;
  currentStatus(): WriterStatus;
  onDropping(listener: (runId: number, limitBytes: number) => void): () => void;
  setHeldOutputLimit(bytes: number): void;
  setMaxPageCount(pages: number): void;
}
