// `tuning-bench import` and the UI's import: a log made elsewhere becomes a run, streamed through the live ingest path.
import fs from 'node:fs';
import { IMPORTED_COMMAND, MAX_IMPORT_FILE_BYTES, type Run } from '../../shared/api.js';
import { stripAnsi } from '../../shared/ansi.js';
import { IMPORTED_LOG_READING, MetricsCollector } from '../metrics/collector.js';
import { SampleColumns } from '../store/sampleColumns.js';
import { findFailureLine } from './exitClassifier.js';
import { decodedSlices } from './textSlices.js';
import { TimeSlice } from '../system/timeSlice.js';
import { releaseIdleHeap } from '../system/heapRelease.js';
import { freeBuffer } from '../store/freeBuffer.js';
import type { IngestTasks } from './ingestTasks.js';
import type { Recording } from './recording.js';

/** What an import needs of the engine: the database file (its store and output writer) and the task thread that makes its summary. */
export interface ImportTarget {
  recording: Recording;
  tasks: IngestTasks;
}

/** An imported run's command starts with this, so it is told apart from one that ran here. */
export { IMPORTED_COMMAND };
/** Stored in pieces of this size, like a live run's merged chunks. */
const IMPORT_CHUNK_BYTES = 256 * 1024;
/**
 * After each this much, the importer asks the writer thread for a commit and waits for the one it asked for before
 * (not this one): what is in flight between the threads stays under twice this, whatever the file's size, and this
 * thread parses the next stretch while the writer stores the last (waiting for each commit at once left each thread
 * idle half the time).
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

/** What is given is not a training log (zero bytes: a binary, holes of a sparse file, UTF-16 text): nothing is imported. */
export class ImportNotText extends Error {
  constructor(detail: string) {
    super(`${detail}, so it is not a text log; nothing was imported. Give the training's own output (UTF-8 text)`);
    this.name = 'ImportNotText';
  }
}

/** A sparse file: fewer bytes on disk than half its length (a copy gone wrong, a preallocated file). */
function isSparse(stat: fs.Stats): boolean {
  // st_blocks counts 512-byte units on Linux, whatever the file system's block size.
  return stat.size > 1024 * 1024 && stat.blocks * 512 < stat.size / 2;
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
export function importLogText(target: ImportTarget, text: string | Buffer, request: ImportRequest): Promise<Run> {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  return importLogPieces(
    target,
    request,
    bytes.length,
    (function* () {
      for (let offset = 0; offset < bytes.length; offset += IMPORT_CHUNK_BYTES) yield bytes.subarray(offset, offset + IMPORT_CHUNK_BYTES);
    })(),
  );
}

/** Imports a file, a pipe or a device in pieces (`-` is standard input): memory stays bounded whatever its size. */
export async function importLogFile(target: ImportTarget, file: string, request: ImportRequest): Promise<Run> {
  const limit = request.maxBytes ?? DEFAULT_MAX_IMPORT_BYTES;
  if (file === '-') return importLogPieces(target, request, null, process.stdin);
  const stat = await fs.promises.stat(file);
  if (stat.isDirectory()) throw Object.assign(new Error(`${file} is a directory; give a log file`), { code: 'EISDIR', path: file });
  const total = stat.isFile() ? stat.size : null;
  // Refused before anything is stored when the size is known.
  if (total !== null && total > limit) throw new ImportTooLarge(limit);
  if (stat.isFile() && isSparse(stat)) {
    throw new ImportNotText(`it is a sparse file (${formatBytes(stat.size)} long, ${formatBytes(stat.blocks * 512)} on disk): its holes read as zero bytes`);
  }
  const stream = fs.createReadStream(file, { highWaterMark: IMPORT_CHUNK_BYTES });
  try {
    return await importLogPieces(target, request, total, freedAfterUse(stream));
  } finally {
    stream.destroy();
  }
}

/**
 * A file stream's pieces, each freed once the importer is done with it (it keeps a copy): a file stream reads into a
 * fresh buffer of the piece's own size each time, and left to the collector they were the engine thread's largest
 * garbage (see freeBuffer).
 */
async function* freedAfterUse(stream: fs.ReadStream): AsyncGenerator<Buffer> {
  for await (const piece of stream as AsyncIterable<Buffer>) {
    yield piece;
    freeBuffer(piece);
  }
}

/** A log given in pieces (a file's reads, standard input, a face's sends) into a new run; `total` is its size when known. */
export async function importLogPieces(
  { recording, tasks }: ImportTarget,
  request: ImportRequest,
  total: number | null,
  pieces: Iterable<Buffer> | AsyncIterable<Buffer>,
): Promise<Run> {
  const { store, output } = recording;
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
  // each piece with its samples. Parsing gives the event loop back every few milliseconds: a live run
  // may be recording beside the import (the UI's import, in the desktop app or `serve`).
  output.startParsedRun(run.id);
  // Its summary is made on the task thread: started now, its start overlaps the parse rather than following it.
  tasks.prewarm();
  const collector = new MetricsCollector({ metricRegex: '', ...IMPORTED_LOG_READING });
  const decoder = new TextDecoder('utf-8');
  const slice = new TimeSlice();
  const tail: Buffer[] = [];
  let tailBytes = 0;
  let read = 0;
  let seq = 0;
  let sinceFlush = 0;
  let previousCommit: Promise<void> = Promise.resolve();
  try {
    for await (const piece of pieces) {
      // A zero byte never appears in a text log: a binary, or a hole in a sparse file; found by memchr, cheaply.
      const zeroAt = piece.indexOf(0);
      if (zeroAt >= 0) throw new ImportNotText(`it has zero bytes (the first at byte ${read + zeroAt})`);
      read += piece.length;
      if (read > limit) throw new ImportTooLarge(limit);
      // A copy: the writer thread takes the buffer it is given.
      const owned = Buffer.from(piece);
      tail.push(Buffer.from(owned.subarray(Math.max(0, owned.length - TAIL_BYTES))));
      tailBytes += tail.at(-1)!.length;
      while (tail.length > 1 && tailBytes - tail[0]!.length >= TAIL_BYTES) tailBytes -= tail.shift()!.length;
      // Columns, moved to the writer thread: a sample object cloned there cost both threads (and ~150 bytes).
      const samples = new SampleColumns();
      // A slice is about a millisecond of parsing: between two, the event loop is looked at, so an import from the
      // UI, parsed on the engine's thread, never keeps a live run's output waiting (see system/timeSlice.ts).
      for (const text of decodedSlices(decoder, owned)) {
        for (const sample of collector.push(text, 0)) samples.push(sample.step, sample.tMs, sample.name, sample.value, sample.source, sample.kind);
        await slice.pause();
      }
      output.appendParsed(run.id, seq++, 0, owned, samples);
      sinceFlush += piece.length;
      if (sinceFlush >= IN_FLIGHT_BYTES) {
        sinceFlush = 0;
        const commit = output.flush();
        await previousCommit;
        previousCommit = commit;
        request.onProgress?.(read, total);
      }
    }
    if (read === 0) throw new ImportEmpty(request.source ?? request.name);
  } catch (error) {
    // Nothing half-imported stays behind: the run and what was stored of it go.
    output.endRun(run.id, 0);
    await recording.flush();
    store.runs.remove(run.id);
    throw error;
  }
  const last = SampleColumns.from([...collector.push(decoder.decode(), 0), ...collector.end(0)]);
  await output.endRun(run.id, 0, last);
  request.onProgress?.(read, total);

  const text = stripAnsi(new TextDecoder('utf-8').decode(Buffer.concat(tail)));
  // The same text rules as a live run's ending: tracebacks, OOM, shells' Killed lines, the kernel's OOM killer.
  const failure = findFailureLine(text);
  store.runs.recordEnding(run.id, {
    status: failure ? 'failed' : 'succeeded',
    exitCode: null,
    signal: null,
    exitClass: failure ? failure.exitClass : 'ok',
    exitReason: failure ? failure.line : null,
    endedAt: request.now,
  });
  // The parse's heap is idle now: handed back before the summary, so the two never stack (a 10 M-line import's peak
  // 401-418 -> 291-321 MiB). Not while a live run records beside the import (the UI's): the collection pauses this thread.
  if (output.idle()) releaseIdleHeap();
  // Read back and summarised on the task thread: a large log's summary is seconds of work.
  await tasks.finishImport(run.id);
  return store.runs.get(run.id)!;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${+(bytes / 1024 ** 3).toPrecision(3)} GiB`;
  if (bytes >= 1024 ** 2) return `${+(bytes / 1024 ** 2).toPrecision(3)} MiB`;
  return `${bytes} bytes`;
}
