// Messages of the output path: between the engine and the writer thread, and between the writer and the parser thread.
import type { MetricSample } from '../metrics/samples.js';
import type { WriterStatus } from '../store/writeFaults.js';
import type { PackedSamples } from '../store/sampleColumns.js';

export interface OutputWriterConfig {
  file: string;
}

export interface OutputParserConfig {
  /** The database: the parser commits its samples there, and reads chunks back when it fell behind and catches up. */
  file: string;
}

export type ToOutputWriter =
  /**
   * A live run begins: its output is parsed on the parser thread as it arrives (with the workload's own
   * regex first, if any), and its samples are sent back as `metrics` messages once committed.
   */
  | { type: 'startRun'; runId: number; metricRegex: string }
  /**
   * A run whose sender parses its text and sends each chunk's samples with it (an import, parsed on the
   * engine's thread while this one stores): nothing is parsed here, nothing sent back.
   */
  | { type: 'startParsedRun'; runId: number }
  /** `samples`: what the sender parsed from this chunk (a run parsed by its sender), committed with it; as columns, moved. */
  | { type: 'chunk'; runId: number; seq: number; tMs: number; data: Uint8Array; samples?: PackedSamples }
  /**
   * The run's output is complete: a last partial line is parsed too (or its samples come with this). Once
   * its parsing has caught up and the last samples are committed, the writer answers `runParsed`.
   */
  | { type: 'endRun'; runId: number; tMs: number; samples?: PackedSamples }
  /** Commit what waits now; answered `flushed` after the attempt (parsing that lags is not waited for). */
  | { type: 'flush'; id: number }
  /** Caps the file at this many pages (SQLite's max_page_count), as a full disk would; tests use it. */
  | { type: 'setMaxPageCount'; pages: number }
  /** How much output may wait in memory for the file (a full disk); tests make it small. */
  | { type: 'setHeldOutputLimit'; bytes: number }
  | { type: 'close' };

export type FromOutputWriter =
  | { type: 'flushed'; id: number }
  /** Samples parsed from a run's output, committed. */
  | { type: 'metrics'; runId: number; samples: MetricSample[] }
  /** A run parsed by its sender (an import): its last samples are committed (or kept for retry). Live runs hear this from the parser. */
  | { type: 'runParsed'; runId: number }
  /** Something about a run the person should hear of (output left unparsed while parsing lagged). */
  | { type: 'notice'; runId: number; message: string }
  /** Output could not be stored at close (a full disk): how many chunks were lost. */
  | { type: 'closed'; lostChunks: number }
  | { type: 'error'; message: string }
  /** Writing paused on a fault (the batch is kept and retried) or resumed. */
  | { type: 'status'; status: WriterStatus }
  /** A run's output reached the held-back limit while writing is paused: from now on it is parsed, counted and dropped. */
  | { type: 'dropping'; runId: number; limitBytes: number };

export type ToOutputParser =
  | { type: 'startRun'; runId: number; metricRegex: string }
  /** A copy of a chunk as it arrived; `acked` answers for its bytes once its samples are committed. */
  | { type: 'chunk'; runId: number; seq: number; tMs: number; data: Uint8Array }
  /** Parse the stored chunks after `afterSeq` through `throughSeq` from the file (parsing fell behind and catches up); `readBackDone` answers. */
  | { type: 'readBack'; runId: number; afterSeq: number; throughSeq: number }
  /** No more chunks: the last partial line is parsed; the engine hears `runParsed` once its last samples are committed. */
  | { type: 'endRun'; runId: number; tMs: number }
  | { type: 'close' };

/** From the parser to the writer thread (over their channel). */
export type ParserToWriter =
  /** The samples of `chunkBytes` of chunk copies are committed (or kept for retry): the parse backlog shrinks by that much. */
  | { type: 'acked'; runId: number; chunkBytes: number }
  | { type: 'readBackDone'; runId: number; throughSeq: number }
  /** The run's parsing is over; the writer forgets it. */
  | { type: 'ended'; runId: number }
  | { type: 'closed' };

/** From the parser thread to the engine (its parent). */
export type ParserToEngine =
  /** Committed samples of a live run, as the engine's live views and step limit need them (thinned in a flood). */
  | { type: 'metrics'; runId: number; samples: MetricSample[] }
  /** A run's parsing has caught up with its whole output, and its last samples are committed (or kept for retry). */
  | { type: 'runParsed'; runId: number }
  | { type: 'notice'; runId: number; message: string }
  | { type: 'status'; status: WriterStatus }
  | { type: 'error'; message: string };
