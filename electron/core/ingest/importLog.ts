// `tuning-bench import` and the UI's import: a log made elsewhere becomes a run, streamed through the live ingest path.
import fs from 'node:fs';
import { IMPORTED_COMMAND, MAX_IMPORT_FILE_BYTES, type Run } from '../../shared/api.js';
import { stripAnsi } from '../../shared/ansi.js';
import { buildSeries } from './series.js';
import { IMPORTED_LOG_READING, MetricsCollector } from '../metrics/collector.js';
import { summarizeMetrics } from '../metrics/summary.js';
import { samplesForSummary, SummaryInputBuilder } from '../metrics/summaryInput.js';
import { findFailureLine } from './exitClassifier.js';
import { EMPTY_SUMMARY } from '../store/runStore.js';
import type { Store } from '../store/store.js';
import type { OutputWriter } from './outputWriter.js';

/** An imported run's command starts with this, so it is told apart from one that ran here. */
export { IMPORTED_COMMAND };
/** Stored in pieces of this size, like a live run's merged chunks. */
const IMPORT_CHUNK_BYTES = 256 * 1024;
/**
 * The importer waits for the writer thread to commit after this much: what is in flight between
 * the threads stays bounded (a few chunks), whatever the file's size.
 */
const IN_FLIGHT_BYTES = 8 * 1024 * 1024;
/** Kept to classify the ending: failure lines are at the end of a log (as for a live run). */
const TAIL_BYTES = 64 * 1024;
/** Default largest log imported (`--max-bytes` changes it): larger ones are almost always a mistake (a binary, /dev/zero). */
export const DEFAULT_MAX_IMPORT_BYTES = MAX_IMPORT_FILE_BYTES;

export class ImportTooLarge extends Error {
  constructor(readonly limitBytes: number) {
    super(`the log is larger than ${formatBytes(limitBytes)}; nothing was imported. Give a larger --max-bytes if it really is a training log`);
    this.name = 'ImportTooLarge';
  }
}

/** A log with nothing in it (an empty file, /dev/null): refused, since a run made of nothing would read as one that succeeded. */
export class ImportEmpty extends Error {
  constructor(what: string) {
    super(`${what} is empty (0 bytes): nothing was imported. Give the file the training wrote its output to`);
    this.name = 'ImportEmpty';
  }
}

export interface ImportRequest {
  name: string;
  now: Date;
  /** Where the log came from, shown as the run's command. */
  source?: string;
  maxBytes?: number;
  /** Called after each stored piece: bytes read so far and the total when the file says it. */
  onProgress?: (readBytes: number, totalBytes: number | null) => void;
}

/** Imports text the face already holds (the UI's import). */
export function importLogText(store: Store<OutputWriter>, text: string | Buffer, request: ImportRequest): Promise<Run> {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  return importLogPieces(store, request, bytes.length, (function* () {
    for (let offset = 0; offset < bytes.length; offset += IMPORT_CHUNK_BYTES) yield bytes.subarray(offset, offset + IMPORT_CHUNK_BYTES);
  })());
}

/** Imports a file, a pipe or a device in pieces (`-` is standard input): memory stays bounded whatever its size. */
export async function importLogFile(store: Store<OutputWriter>, file: string, request: ImportRequest): Promise<Run> {
  const limit = request.maxBytes ?? DEFAULT_MAX_IMPORT_BYTES;
  if (file === '-') return importLogPieces(store, request, null, process.stdin);
  const stat = await fs.promises.stat(file);
  if (stat.isDirectory()) throw Object.assign(new Error(`${file} is a directory; give a log file`), { code: 'EISDIR', path: file });
  const total = stat.isFile() ? stat.size : null;
  // Refused before anything is stored when the size is known.
  if (total !== null && total > limit) throw new ImportTooLarge(limit);
  const stream = fs.createReadStream(file, { highWaterMark: IMPORT_CHUNK_BYTES });
  try {
    return await importLogPieces(store, request, total, stream);
  } finally {
    stream.destroy();
  }
}

/** A log given in pieces (a file's reads, standard input, a face's sends) into a new run; `total` is its size when known. */
export async function importLogPieces(store: Store<OutputWriter>, request: ImportRequest, total: number | null, pieces: Iterable<Buffer> | AsyncIterable<Buffer>): Promise<Run> {
  const limit = request.maxBytes ?? DEFAULT_MAX_IMPORT_BYTES;
  const run = store.runs.insert({
    workloadId: null,
    workloadName: request.name,
    command: [IMPORTED_COMMAND, request.source ?? request.name],
    cwd: '',
    config: {},
    env: {},
    startedAt: request.now,
    enginePid: process.pid,
  });
  // The live path's parts, split across two threads: this one parses each piece (by the log's own
  // clocks: stamps, bars' elapsed times) while the writer thread stores the one before, committing
  // each piece with its samples. A live run's thread is busy reading the pty; an import's is free.
  store.output.startParsedRun(run.id);
  const collector = new MetricsCollector({ metricRegex: '', ...IMPORTED_LOG_READING });
  const decoder = new TextDecoder('utf-8');
  // What the summary reads, kept as the samples pass: nothing to read back from the store at the end.
  const summaryInput = new SummaryInputBuilder();
  const tail: Buffer[] = [];
  let tailBytes = 0;
  let read = 0;
  let seq = 0;
  let sinceFlush = 0;
  try {
    for await (const piece of pieces) {
      read += piece.length;
      if (read > limit) throw new ImportTooLarge(limit);
      // A copy: the writer thread takes the buffer it is given.
      const owned = Buffer.from(piece);
      tail.push(Buffer.from(owned.subarray(Math.max(0, owned.length - TAIL_BYTES))));
      tailBytes += tail.at(-1)!.length;
      while (tail.length > 1 && tailBytes - tail[0]!.length >= TAIL_BYTES) tailBytes -= tail.shift()!.length;
      const samples = collector.push(decoder.decode(owned, { stream: true }), 0);
      summaryInput.add(samples);
      store.output.appendParsed(run.id, seq++, 0, owned, samples);
      sinceFlush += piece.length;
      if (sinceFlush >= IN_FLIGHT_BYTES) {
        sinceFlush = 0;
        await store.output.flush();
        request.onProgress?.(read, total);
      }
    }
    if (read === 0) throw new ImportEmpty(request.source ?? request.name);
  } catch (error) {
    // Nothing half-imported stays behind: the run and what was stored of it go.
    store.output.endRun(run.id, 0);
    await store.flush();
    store.runs.remove(run.id);
    throw error;
  }
  const last = [...collector.push(decoder.decode(), 0), ...collector.end(0)];
  summaryInput.add(last);
  store.output.endRun(run.id, 0, last);
  request.onProgress?.(read, total);

  const text = stripAnsi(new TextDecoder('utf-8').decode(Buffer.concat(tail)));
  // The same text rules as a live run's ending: tracebacks, OOM, shells' Killed lines, the kernel's OOM killer.
  const failure = findFailureLine(text);
  await store.runs.end(run.id, {
    status: failure ? 'failed' : 'succeeded',
    exitCode: null,
    signal: null,
    exitClass: failure ? failure.exitClass : 'ok',
    exitReason: failure ? failure.line : null,
    endedAt: request.now,
  });
  const samples = summaryInput.result() ?? samplesForSummary(store.metrics, run.id);
  store.runs.setSummary(run.id, { ...EMPTY_SUMMARY, ...summarizeMetrics(samples) });
  store.runs.setSeries(run.id, buildSeries(samples, []));
  return store.runs.get(run.id)!;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${+(bytes / 1024 ** 3).toPrecision(3)} GiB`;
  if (bytes >= 1024 ** 2) return `${+(bytes / 1024 ** 2).toPrecision(3)} MiB`;
  return `${bytes} bytes`;
}
