// Worker thread: parses live runs' output into metric samples and commits them through its own connection, apart
// from the thread that stores the bytes, so no parse (a flood of step lines, a slow pattern) holds a byte back.
import { TextDecoder } from 'node:util';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { applyConnectionPragmas, boundStreamingCache } from '../store/open.js';
import { LIVE_READING, MetricsCollector } from '../metrics/collector.js';
import type { MetricSample } from '../metrics/samples.js';
import { SampleColumns } from '../store/sampleColumns.js';
import { SampleBlockWriter } from '../store/sampleBlocks.js';
import { WriteRetry } from '../store/writeFaults.js';
import { TIME_SLICE_MS } from '../system/timeSlice.js';
import { bulkWriteGapMs, BytesFirst, sleepThread } from './writeTurns.js';
import { COMMIT_INTERVAL_MS, CommitPolicy, FLOOD_SAMPLES_PER_TRANSACTION } from './commitPolicy.js';
import { liveView, releaseCommittedColumns, type ColumnsPart } from './liveSamples.js';
import { decodedSlices } from './textSlices.js';
import type { OutputParserConfig, ParserToEngine, ParserToWriter, ToOutputParser } from './outputWriterProtocol.js';
import { runInBackground } from '../system/threadPriority.js';
import { releaseIdleHeap } from '../system/heapRelease.js';
import { freeBuffer } from '../store/freeBuffer.js';

interface RunParsing {
  decoder: TextDecoder;
  collector: MetricsCollector;
  /** endRun was parsed: `runParsed` goes to the engine after the commit that holds the last samples. */
  ended: boolean;
}

/** Chunks read at once when catching up from the file: at most 16 x 256 KiB. */
const READ_BACK_PAGE_CHUNKS = 16;
/** Samples committed in one transaction: a byte commit that wants the file's write lock waits at most that long for this thread (see commitPolicy.ts). */
const SAMPLES_PER_TRANSACTION = FLOOD_SAMPLES_PER_TRANSACTION;
/** The longest this thread waits for a byte commit to be done before it takes its own turn (one stuck on another process's lock). */
const BYTES_FIRST_MAX_WAIT_MS = 1000;
/**
 * Parsed samples held for commits at most: past this, parsing waits (its chunks wait, counted in the writer's
 * backlog, which then stops sending copies and has them read back later). Bounds this thread's memory.
 */
const MAX_QUEUED_SAMPLES = 200_000;
/** This connection waits this long for the write lock before a commit is retried later (the writer's commits take a few ms). */
const BUSY_TIMEOUT_MS = 1000;

const { file, port, bytesFirst: bytesFirstMemory } = workerData as OutputParserConfig & { port: MessagePort; bytesFirst: SharedArrayBuffer };
const bytesFirst = new BytesFirst(bytesFirstMemory);
const engine = parentPort!;
// It may lag behind the store by design; the pty reader and the bytes' writer come first.
runInBackground();
const db = new Database(file, { fileMustExist: true });
applyConnectionPragmas(db, BUSY_TIMEOUT_MS);
boundStreamingCache(db);
const sampleBlocks = new SampleBlockWriter(db);
const readPage = db.prepare<[number, number, number, number], { seq: number; t_ms: number; data: Buffer }>(
  'SELECT seq, t_ms, data FROM run_output WHERE run_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?',
);

const runs = new Map<number, RunParsing>();
/** Work in arrival order: chunk copies, read-backs, ends. A read-back is consumed a page at a time. */
const work: ToOutputParser[] = [];
/**
 * Parsed samples waiting for a commit, in columns: queued as objects they lived past two young collections and
 * filled the old generation with the dead between full ones (this thread's heap swung up to 160 MiB on a flood).
 */
let samplesQueue: QueuedPart[] = [];
let queuedSamples = 0;
const policy = new CommitPolicy(COMMIT_INTERVAL_MS, Number.POSITIVE_INFINITY);
let closing = false;
/** How long the last sample transaction took: the lock is left free at least as long before the next. */
let lastTransactionMs = 0;

const toWriter = (message: ParserToWriter) => port.postMessage(message);
const toEngine = (message: ParserToEngine) => engine.postMessage(message);

interface QueuedPart extends ColumnsPart {
  runId: number;
}

const commitTransaction = db.transaction((batch: QueuedPart[]) => sampleBlocks.writeEntries(batch));

/** The write policy every batching connection shares (store/writeFaults.ts), on this thread's monotonic clock (see the writer thread's). */
const retry = new WriteRetry(
  () => performance.now(),
  (status) => toEngine({ type: 'status', status }),
  file,
);

function queue(runId: number, found: readonly MetricSample[]): void {
  if (found.length === 0) return;
  const samples = SampleColumns.from(found);
  samplesQueue.push({ runId, samples, from: 0, to: samples.length });
  queuedSamples += samples.length;
  samplesQueuedEver += samples.length;
  policy.noteWaiting(performance.now(), 0);
}

function takeTransaction(): QueuedPart[] {
  const taken: QueuedPart[] = [];
  let room = SAMPLES_PER_TRANSACTION;
  while (room > 0 && samplesQueue.length > 0) {
    const entry = samplesQueue[0]!;
    if (entry.to - entry.from <= room) {
      taken.push(samplesQueue.shift()!);
      room -= entry.to - entry.from;
    } else {
      taken.push({ ...entry, to: entry.from + room });
      entry.from += room;
      room = 0;
    }
  }
  queuedSamples -= SAMPLES_PER_TRANSACTION - room;
  return taken;
}

/**
 * Chunks parsed whose samples are not all committed yet, oldest first: each acknowledged to the writer once every
 * sample queued up to its end is (`throughSample`, counted over this thread's life).
 */
const pendingAcks: Array<{ runId: number; bytes: number; throughSample: number }> = [];
let samplesQueuedEver = 0;
let samplesCommittedEver = 0;
/**
 * Between two sample transactions of a flood the lock is left free (bulkWriteGapMs): until this time the thread
 * parses on instead of sleeping, and the next transaction waits for it.
 */
let nextTransactionAt = 0;

/** One transaction of up to SAMPLES_PER_TRANSACTION queued samples; false on a fault (what it held is queued again). */
function commitOne(committed: Map<number, ColumnsPart[]>): boolean {
  const batch = takeTransaction();
  try {
    bytesFirst.awaitTurn(BYTES_FIRST_MAX_WAIT_MS);
    const startedAt = performance.now();
    commitTransaction.immediate(batch);
    lastTransactionMs = performance.now() - startedAt;
  } catch (error) {
    samplesQueue = batch.concat(samplesQueue);
    queuedSamples += batch.reduce((sum, entry) => sum + entry.to - entry.from, 0);
    retry.failed(error, samplesQueue.length);
    return false;
  }
  for (const entry of batch) {
    samplesCommittedEver += entry.to - entry.from;
    const parts = committed.get(entry.runId);
    if (parts) parts.push(entry);
    else committed.set(entry.runId, [entry]);
  }
  return true;
}

/**
 * Commits queued samples: with `drain`, every one, a transaction of SAMPLES_PER_TRANSACTION at a time with the lock
 * left free between them (a run's end and close wait for it); without, one transaction, and the next is left to
 * pump() after the gap, so the thread parses while the lock rests instead of sleeping. Then acknowledges the chunks
 * whose samples are all in, tells the engine, and answers ended runs. On a fault (full, busy) what is left is kept
 * and retried with backoff; ended runs are answered anyway, as a flush is.
 */
function commit(drain: boolean): void {
  const committed = new Map<number, ColumnsPart[]>();
  let ok = true;
  for (let first = true; samplesQueue.length > 0 && (drain || first); first = false) {
    if (!first) sleepThread(bulkWriteGapMs(lastTransactionMs));
    ok = commitOne(committed);
    if (!ok) break;
  }
  const now = performance.now();
  if (ok) {
    retry.succeeded();
    policy.committed(now, samplesQueue.length > 0);
    if (samplesQueue.length > 0) nextTransactionAt = now + bulkWriteGapMs(lastTransactionMs);
  }
  for (const [runId, samples] of committed) {
    toEngine({ type: 'metrics', runId, samples: liveView(samples) });
    releaseCommittedColumns(samples);
  }
  const acked = new Map<number, number>();
  while (pendingAcks.length > 0 && pendingAcks[0]!.throughSample <= samplesCommittedEver) {
    const { runId, bytes } = pendingAcks.shift()!;
    acked.set(runId, (acked.get(runId) ?? 0) + bytes);
  }
  for (const [runId, chunkBytes] of acked) toWriter({ type: 'acked', runId, chunkBytes });
  for (const [runId, run] of runs) {
    if (run.ended && (!ok || !samplesQueue.some((entry) => entry.runId === runId))) {
      runs.delete(runId);
      // The last run parsed: the text and samples this thread went through are handed back before its summary.
      if (runs.size === 0) releaseIdleHeap();
      toEngine({ type: 'runParsed', runId });
      toWriter({ type: 'ended', runId });
    }
  }
  schedule();
}

function parseText(runId: number, run: RunParsing, data: Uint8Array, tMs: number): void {
  for (const text of decodedSlices(run.decoder, data)) queue(runId, run.collector.push(text, tMs));
  for (const message of run.collector.takeNotices()) toEngine({ type: 'notice', runId, message });
}

/** One step of the oldest work; returns false when it must wait (too many samples queued for the file). */
function step(): boolean {
  const next = work[0]!;
  switch (next.type) {
    case 'startRun':
      work.shift();
      runs.set(next.runId, {
        decoder: new TextDecoder('utf-8'),
        collector: new MetricsCollector({ metricRegex: next.metricRegex, ...LIVE_READING }),
        ended: false,
      });
      return true;
    case 'chunk': {
      if (queuedSamples >= MAX_QUEUED_SAMPLES) return false;
      work.shift();
      const run = runs.get(next.runId);
      if (run) {
        parseText(next.runId, run, next.data, next.tMs);
        pendingAcks.push({ runId: next.runId, bytes: next.data.byteLength, throughSample: samplesQueuedEver });
        // This thread's own copy (the writer stored the original): freed now, not when this thread next collects.
        freeBuffer(next.data);
      } else {
        toWriter({ type: 'acked', runId: next.runId, chunkBytes: next.data.byteLength });
      }
      policy.noteWaiting(performance.now(), 0);
      return true;
    }
    case 'readBack': {
      if (queuedSamples >= MAX_QUEUED_SAMPLES) return false;
      const run = runs.get(next.runId);
      const rows = run && next.afterSeq < next.throughSeq ? readPage.all(next.runId, next.afterSeq, next.throughSeq, READ_BACK_PAGE_CHUNKS) : [];
      for (const row of rows) parseText(next.runId, run!, row.data, row.t_ms);
      if (rows.length === 0) {
        work.shift();
        toWriter({ type: 'readBackDone', runId: next.runId, throughSeq: next.throughSeq });
      } else {
        next.afterSeq = rows.at(-1)!.seq;
      }
      return true;
    }
    case 'endRun': {
      work.shift();
      const run = runs.get(next.runId);
      if (!run) {
        toEngine({ type: 'runParsed', runId: next.runId });
        toWriter({ type: 'ended', runId: next.runId });
        return true;
      }
      queue(next.runId, [...run.collector.push(run.decoder.decode(), next.tMs), ...run.collector.end(next.tMs)]);
      for (const notice of run.collector.takeNotices()) toEngine({ type: 'notice', runId: next.runId, message: notice });
      run.ended = true;
      // The run's end waits on this commit: made now, not at the next interval.
      commit(true);
      return true;
    }
    case 'close':
      work.shift();
      closeNow();
      return false;
  }
}

let pumping: NodeJS.Immediate | null = null;
let commitTimer: NodeJS.Timeout | null = null;

/** Works through what waits in slices of TIME_SLICE_MS, so messages (new chunks, the writer's read-backs) are taken between them. */
function pump(): void {
  pumping = null;
  const sliceEnd = performance.now() + TIME_SLICE_MS;
  while (work.length > 0 && !closing && performance.now() < sliceEnd) {
    if (!guardedStep()) break;
  }
  const now = performance.now();
  if (now >= retry.retryAt && now >= nextTransactionAt && (policy.isDue(now) || queuedSamples >= MAX_QUEUED_SAMPLES)) commit(false);
  schedule();
}

/**
 * The parser's one error boundary: a fault in one piece of work is reported and that piece set aside with the
 * answer it owes (so neither the writer's backlog nor a run's end waits for it); parsing goes on, the bytes were never at stake.
 */
function guardedStep(): boolean {
  const current = work[0]!;
  try {
    return step();
  } catch (error) {
    if (work[0] === current) work.shift();
    toEngine({ type: 'error', message: `the output parser could not handle ${current.type}: ${error instanceof Error ? error.message : String(error)}` });
    if (current.type === 'chunk') toWriter({ type: 'acked', runId: current.runId, chunkBytes: current.data.byteLength });
    if (current.type === 'readBack') toWriter({ type: 'readBackDone', runId: current.runId, throughSeq: current.throughSeq });
    if (current.type === 'endRun') {
      runs.delete(current.runId);
      toEngine({ type: 'runParsed', runId: current.runId });
      toWriter({ type: 'ended', runId: current.runId });
    }
    return true;
  }
}

function schedule(): void {
  if (closing) return;
  const blocked = work.length > 0 && (work[0]!.type === 'chunk' || work[0]!.type === 'readBack') && queuedSamples >= MAX_QUEUED_SAMPLES;
  if (work.length > 0 && !blocked && pumping === null) pumping = setImmediate(pump);
  const dueIn = policy.dueInMs(performance.now());
  if (dueIn !== null && commitTimer === null) {
    commitTimer = setTimeout(
      () => {
        commitTimer = null;
        if (retry.mayRetry() && performance.now() >= nextTransactionAt) commit(false);
        else schedule();
      },
      Math.ceil(Math.max(dueIn, retry.retryAt - performance.now(), nextTransactionAt - performance.now(), 0)),
    );
  }
}

function closeNow(): void {
  closing = true;
  if (commitTimer !== null) clearTimeout(commitTimer);
  if (pumping !== null) clearImmediate(pumping);
  db.pragma('busy_timeout = 5000');
  commit(true);
  db.close();
  toWriter({ type: 'closed' });
  port.close();
}

port.on('message', (message: ToOutputParser) => {
  work.push(message);
  schedule();
});
