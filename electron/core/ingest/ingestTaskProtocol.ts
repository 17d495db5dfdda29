// Messages between the engine and the ingest task thread: long work on stored runs, one task at a time.
import type { ReparseResult } from '../../shared/api.js';

export interface IngestTaskConfig {
  file: string;
  /** The output path's BytesFirst memory: the task thread's one long write waits for byte commits like the parser's. */
  bytesFirst: SharedArrayBuffer;
}

export type IngestTask =
  /** Parse a stored run again (see reparse.ts); `nowIso` dates the summary it replaces. */
  | { task: 'reparse'; runId: number; nowIso: string }
  /** An import's summary and chart series, once all its samples are stored. */
  | { task: 'finishImport'; runId: number }
  /** Lines of stored output that hold a number (what a regex could be written against). */
  | { task: 'numericLines'; runId: number; limit: number };

export interface IngestTaskResults {
  reparse: ReparseResult;
  finishImport: null;
  numericLines: { lines: string[]; scannedBytes: number };
}

export type ToIngestTasks = ({ id: number } & IngestTask) | { id: number; task: 'close' };

export type FromIngestTasks =
  | { id: number; ok: true; value: unknown }
  /** `name`: the error's class, so the engine can tell a refusal (ReparseRefused) from a fault. */
  | { id: number; ok: false; name: string; message: string };
