// Messages between the engine and the ingest task thread: long work on stored runs, one task at a time.
import type { ReparseResult } from '../../shared/api.js';
import type { SummaryOptions, TrainingSummary } from '../metrics/summary.js';
import type { StoredSeries } from '../store/runStore.js';

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
  /**
   * A live run's training summary and chart series, once it has ended and its samples are stored: on a long run
   * they read millions of samples (10-22 s after a minute's flood), which on the engine's thread stalled every other
   * live run. `stepMarks`: also each training step's time (a profiled run's steps are matched to its trace).
   */
  | { task: 'summarizeRun'; runId: number; options: SummaryOptions; stepMarks: boolean }
  /** Lines of stored output that hold a number (what a regex could be written against). */
  | { task: 'numericLines'; runId: number; limit: number };

export interface IngestTaskResults {
  reparse: ReparseResult;
  finishImport: null;
  summarizeRun: StoredRunSummary;
  numericLines: { lines: string[]; scannedBytes: number };
}

/** What `summarizeRun` gives back: the training part of a run's summary, its chart series, and its steps' times when asked. */
export interface StoredRunSummary {
  summary: TrainingSummary;
  series: StoredSeries;
  stepMarks: Array<{ step: number; tMs: number }> | null;
}

export type ToIngestTasks = ({ id: number } & IngestTask) | { id: number; task: 'close' };

export type FromIngestTasks =
  | { id: number; ok: true; value: unknown }
  /** `name`: the error's class, so the engine can tell a refusal (ReparseRefused) from a fault. */
  | { id: number; ok: false; name: string; message: string };
