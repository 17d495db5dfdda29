// Messages between the engine and the output writer's worker thread.

export interface OutputWriterConfig {
  file: string;
  flushIntervalMs: number;
}

import type { MetricSample } from '../metrics/samples.js';
import type { WriterStatus } from '../store/batchWriter.js';

export type ToOutputWriter =
  /**
   * A live run begins: its output is parsed here as it arrives (with the workload's own regex first, if
   * any), and its samples are sent back as `metrics` messages once committed.
   */
  | { type: 'startRun'; runId: number; metricRegex: string }
  /**
   * A run whose sender parses its text and sends each chunk's samples with it (an import, parsed on the
   * engine's thread while this one stores): nothing is parsed here, nothing sent back.
   */
  | { type: 'startParsedRun'; runId: number }
  /** `samples`: what the sender parsed from this chunk (a run parsed by its sender), committed with it. */
  | { type: 'chunk'; runId: number; seq: number; tMs: number; data: Uint8Array; samples?: MetricSample[] }
  /** The run's output is complete: a last partial line is parsed too (or its samples come with this). */
  | { type: 'endRun'; runId: number; tMs: number; samples?: MetricSample[] }
  | { type: 'flush'; id: number }
  /** Caps the file at this many pages (SQLite's max_page_count), as a full disk would; tests use it. */
  | { type: 'setMaxPageCount'; pages: number }
  /** How much output may wait in memory for the file (a full disk); tests make it small. */
  | { type: 'setHeldOutputLimit'; bytes: number }
  | { type: 'close' };

export type FromOutputWriter =
  | { type: 'flushed'; id: number }
  /** Samples parsed from a run's output, committed with the batch that stored it. */
  | { type: 'metrics'; runId: number; samples: MetricSample[] }
  /** Output could not be stored at close (a full disk): how many chunks were lost. */
  | { type: 'closed'; lostChunks: number }
  | { type: 'error'; message: string }
  /** Writing paused on a fault (the batch is kept and retried) or resumed. */
  | { type: 'status'; status: WriterStatus }
  /** A run's output reached the held-back limit while writing is paused: from now on it is parsed, counted and dropped. */
  | { type: 'dropping'; runId: number; limitBytes: number };
