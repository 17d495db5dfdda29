// Worker thread: stores pty output through its own SQLite connection, committing by time and size whatever the
// parser thread is doing (the bytes are the record). Live runs are parsed on the parser thread, which commits its
// own samples; an import's samples, parsed by its sender, are committed here with its chunks.
import { workerData, parentPort, type MessagePort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { applyConnectionPragmas, boundStreamingCache } from '../store/open.js';
import type { MetricSample } from '../metrics/samples.js';
import { SampleBlockWriter } from '../store/sampleBlocks.js';
import { sendChunkCopy } from './chunkCopy.js';
import { SampleColumns, type PackedSamples } from '../store/sampleColumns.js';
import { DEFAULT_HELD_OUTPUT_LIMIT_BYTES, WriteRetry } from '../store/writeFaults.js';
import { bulkWriteGapMs, BytesFirst } from './writeTurns.js';
import { releaseCommittedColumns } from './liveSamples.js';
import { COMMIT_MAX_SAMPLES, CommitPolicy } from './commitPolicy.js';
import type { FromOutputWriter, OutputWriterConfig, ParserToWriter, ToOutputParser, ToOutputWriter } from './outputWriterProtocol.js';
import { releaseIdleHeap } from '../system/heapRelease.js';
import { freeBuffer } from '../store/freeBuffer.js';

type Chunk = Extract<ToOutputWriter, { type: 'chunk' }>;

/**
 * How far parsing may fall behind in memory: chunk copies the parser has not acknowledged (parsed, and their
 * samples committed). Past it, chunks are no longer copied to the parser; it catches up later by reading them
 * back from the file, so memory stays bounded however long the parser lags.
 */
const PARSE_BACKLOG_LIMIT_BYTES = 32 * 1024 * 1024;
/**
 * How long one commit waits for the write lock. Longer than the parser's sample transactions (about 10 ms),
 * which share it; short enough that this thread goes on taking chunks (and applying the held-output limit)
 * while another process holds the lock: a busy file is retried with backoff.
 */
const COMMIT_BUSY_TIMEOUT_MS = 500;
/** At close, each try waits for the lock this long (a writer from another process rarely holds it longer). */
const CLOSE_BUSY_TIMEOUT_MS = 5000;
/** Tries at close: a full disk does not change between them. */
const CLOSE_ATTEMPTS = 3;

/** A live run, parsed on the parser thread. */
interface LiveRun {
  /** Bytes of chunks copied to the parser and not yet acknowledged. */
  forwardedBytes: number;
  /** Parsing fell behind: chunks after this seq were not copied and are read back from the file. */
  deferredAfterSeq: number | null;
  readingBack: boolean;
  lastSeenSeq: number;
  /** endRun arrived; the parser is told once everything deferred is read back. */
  ending: { tMs: number } | null;
  parserToldEnd: boolean;
  /** Output the parser never saw (dropped while deferred, or still unstored at the end): said as the run's parsing ends. */
  unparsedBytes: number;
}

const config = workerData as OutputWriterConfig & { parserPort: MessagePort; bytesFirst: SharedArrayBuffer };
const bytesFirst = new BytesFirst(config.bytesFirst);
const port = parentPort!;
const parser = config.parserPort;
const db = new Database(config.file);
// The engine's connection has set WAL and the schema; this one only needs to wait its turn and keep keys.
applyConnectionPragmas(db, COMMIT_BUSY_TIMEOUT_MS);
boundStreamingCache(db);

const insertChunk = db.prepare('INSERT INTO run_output (run_id, seq, t_ms, data) VALUES (?, ?, ?, ?)');
const addBytes = db.prepare('UPDATE runs SET output_bytes = output_bytes + ? WHERE id = ?');
const addDropped = db.prepare('UPDATE runs SET output_dropped_bytes = output_dropped_bytes + ? WHERE id = ?');
const sampleBlocks = new SampleBlockWriter(db);

const policy = new CommitPolicy();
const liveRuns = new Map<number, LiveRun>();
/**
 * Runs their sender parses (startParsedRun: imports), whose committed samples are not sent back, and
 * whether each has ended (it is forgotten once its last samples are committed).
 */
const parsedBySender = new Map<number, { ended: boolean }>();
let parserAlive = true;
let forwardedBytesTotal = 0;

let chunks: Chunk[] = [];
/** A part (`from` to `to`) of the columns an import's sender parsed from one chunk, waiting for a commit in arrival order. */
interface QueuedSamples {
  runId: number;
  samples: SampleColumns;
  from: number;
  to: number;
}
let samplesQueue: QueuedSamples[] = [];
let queuedSamples = 0;

/**
 * Output waits in memory while the file refuses it (a full disk). Past this much it is still parsed (the
 * metrics, which are small, are kept) but its bytes are counted and dropped, so a long pause cannot grow
 * the engine until the out-of-memory killer picks it, or the training.
 */
let heldOutputLimitBytes = DEFAULT_HELD_OUTPUT_LIMIT_BYTES;
let heldBytes = 0;
/** Bytes dropped per run and not yet recorded on the run (recorded with the next batch that commits). */
let dropped = new Map<number, number>();
/** Runs already told, in this pause, that their output is being dropped. */
const toldDropping = new Set<number>();
/** Samples ever queued, and ever committed: a flush (or an import's end) waits until the second reaches what the first was when it asked. */
let samplesQueuedTotal = 0;
let samplesCommittedTotal = 0;
/** Answers that wait for samples to be committed, each with the count it waits for (see whenQueuedSamplesCommitted). */
let waitingForSamples: Array<{ through: number; answer: () => void }> = [];

const commitTransaction = db.transaction((batch: Chunk[], samples: QueuedSamples[], droppedByRun: Map<number, number>) => {
  const bytesByRun = new Map<number, number>();
  for (const chunk of batch) {
    insertChunk.run(chunk.runId, chunk.seq, chunk.tMs, Buffer.from(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength));
    bytesByRun.set(chunk.runId, (bytesByRun.get(chunk.runId) ?? 0) + chunk.data.byteLength);
  }
  for (const [runId, bytes] of bytesByRun) addBytes.run(bytes, runId);
  for (const [runId, bytes] of droppedByRun) addDropped.run(bytes, runId);
  sampleBlocks.writeEntries(samples);
});

const send = (message: FromOutputWriter) => port.postMessage(message);
const toParser = (message: ToOutputParser, transfer: ArrayBuffer[] = []) => parser.postMessage(message, transfer);

/**
 * The write policy every batching connection shares (store/writeFaults.ts), timed on this thread's own monotonic clock:
 * the engine's injected Clock is a set of functions, which cannot cross into a worker (workerData is copied by
 * structured clone). Only waits are timed here, never anything stored (a chunk's tMs comes from the engine), so real
 * time changes no recorded value; tests drive this retry through the engine (a flush, a full disk set by
 * max_page_count) instead.
 */
const retry = new WriteRetry(
  () => performance.now(),
  (status) => send({ type: 'status', status }),
  config.file,
);

/** An import's samples wait for the next commit: one of output that is due, or their own timer (see armForWaiting). */
function queueSamples(runId: number, packed: PackedSamples): void {
  if (packed.length === 0) return;
  const samples = SampleColumns.unpack(packed);
  samplesQueue.push({ runId, samples, from: 0, to: samples.length });
  queuedSamples += samples.length;
  samplesQueuedTotal += samples.length;
  armForWaiting();
}

/**
 * Answers once every sample queued so far is committed: the commits go on at their pace, a commit's worth at a
 * time with the lock left free between (so live runs' chunks are taken between them), and a fault answers at once,
 * the samples kept for retry, as a flush always has.
 */
function whenQueuedSamplesCommitted(answer: () => void): void {
  if (samplesCommittedTotal >= samplesQueuedTotal) answer();
  else waitingForSamples.push({ through: samplesQueuedTotal, answer });
}

function answerWaitingForSamples(all: boolean): void {
  const waiting = waitingForSamples;
  waitingForSamples = [];
  for (const entry of waiting) {
    if (all || samplesCommittedTotal >= entry.through) entry.answer();
    else waitingForSamples.push(entry);
  }
}

/** The next commit's samples: at most COMMIT_MAX_SAMPLES, in order (the last entry split if need be). */
function takeSamples(): QueuedSamples[] {
  if (queuedSamples <= COMMIT_MAX_SAMPLES) {
    const all = samplesQueue;
    samplesQueue = [];
    queuedSamples = 0;
    return all;
  }
  const taken: QueuedSamples[] = [];
  let room = COMMIT_MAX_SAMPLES;
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
  queuedSamples -= COMMIT_MAX_SAMPLES - room;
  return taken;
}

/** Commits what waits (output, dropped counts, samples up to the cap); a failed batch is put back in front, in order, and retried later. Returns whether it is stored. */
function commit(): boolean {
  const nothingWaits = chunks.length === 0 && samplesQueue.length === 0 && dropped.size === 0;
  if (!nothingWaits) {
    const batch = chunks;
    const samples = takeSamples();
    const droppedByRun = dropped;
    chunks = [];
    dropped = new Map();
    try {
      const startedAt = performance.now();
      bytesFirst.commit(() => commitTransaction.immediate(batch, samples, droppedByRun));
      lastCommitEndedAt = performance.now();
      lastCommitMs = lastCommitEndedAt - startedAt;
    } catch (error) {
      // The transaction rolled back as a whole: nothing of the batch is stored, so all of it goes back.
      chunks = batch.concat(chunks);
      samplesQueue = samples.concat(samplesQueue);
      queuedSamples += samples.reduce((sum, entry) => sum + entry.to - entry.from, 0);
      for (const [runId, bytes] of dropped) droppedByRun.set(runId, (droppedByRun.get(runId) ?? 0) + bytes);
      dropped = droppedByRun;
      retry.failed(error, chunks.length);
      answerWaitingForSamples(true);
      armForWaiting();
      return false;
    }
    for (const chunk of batch) {
      heldBytes -= chunk.data.byteLength;
      // Stored, and the parser has its own copy: freed now, not when this thread next collects (see freeBuffer).
      freeBuffer(chunk.data);
    }
    for (const entry of samples) samplesCommittedTotal += entry.to - entry.from;
    toldDropping.clear();
    retry.succeeded();
    // Only what is committed is announced, so a view that asks for it finds it.
    for (const entry of samples) {
      if (parsedBySender.has(entry.runId)) continue;
      const committed: MetricSample[] = [];
      for (let i = entry.from; i < entry.to; i++) committed.push(entry.samples.sample(i));
      send({ type: 'metrics', runId: entry.runId, samples: committed });
    }
    releaseCommittedColumns(samples);
    for (const [runId, run] of parsedBySender) if (run.ended) parsedBySender.delete(runId);
  }
  policy.committed(performance.now(), false);
  answerWaitingForSamples(false);
  pumpReadBacks();
  armForWaiting();
  return true;
}

/** How long the last commit took, and when it ended: an import's samples left for the next ones wait as long (see bulkWriteGapMs). */
let lastCommitMs = 0;
let lastCommitEndedAt = 0;

/**
 * Whatever still waits gets its commit timer: output when the policy says, a batch to retry after its backoff,
 * and an import's samples after the lock was left free a while (bulkWriteGapMs), a commit's worth at a time.
 * Messages themselves only commit output that is due: a commit of samples per message kept a live run's chunks
 * queued behind an import's for seconds.
 */
function armForWaiting(): void {
  const now = performance.now();
  const outputDue = policy.dueInMs(now);
  const samplesDue = queuedSamples > 0 ? bulkWriteGapMs(lastCommitMs, liveRuns.size > 0) - (now - lastCommitEndedAt) : null;
  const next = outputDue === null ? samplesDue : samplesDue === null ? outputDue : Math.min(outputDue, samplesDue);
  if (next === null) return;
  armCommitTimer(Math.max(next, retry.retryAt - now, 0));
}

// --- When to commit: by time and size, checked as chunks arrive and by a timer armed for the oldest waiting item.

let commitTimer: NodeJS.Timeout | null = null;

function commitIfDue(): void {
  const now = performance.now();
  if (now >= retry.retryAt && policy.isDue(now)) commit();
  else armForWaiting();
}

function armCommitTimer(delayMs: number): void {
  if (commitTimer !== null) return;
  commitTimer = setTimeout(() => {
    commitTimer = null;
    // The timer commits whatever waits (output or samples); a message commits only output that is due.
    if (retry.mayRetry()) commit();
    else armForWaiting();
  }, Math.ceil(delayMs));
}

// --- Parsing, on the parser thread: chunk copies while it keeps up, read-backs from the file when it does not.

function backlogFull(): boolean {
  return forwardedBytesTotal > PARSE_BACKLOG_LIMIT_BYTES;
}

/** The highest seq of the run up to which every chunk is committed or dropped (what a read-back can see). */
function settledThrough(runId: number, run: LiveRun): number {
  const firstHeld = chunks.find((chunk) => chunk.runId === runId);
  return firstHeld ? firstHeld.seq - 1 : run.lastSeenSeq;
}

/** Sends deferred runs' read-backs once the parser has room, and resumes copying chunks once a run has caught up. */
function pumpReadBacks(): void {
  for (const [runId, run] of liveRuns) {
    if (run.deferredAfterSeq === null || run.readingBack || !parserAlive) continue;
    if (run.lastSeenSeq === run.deferredAfterSeq) {
      // Caught up: what comes next is copied as it arrives.
      run.deferredAfterSeq = null;
      maybeEndParsing(runId, run);
      continue;
    }
    if (backlogFull()) continue;
    const through = settledThrough(runId, run);
    if (through > run.deferredAfterSeq) {
      toParser({ type: 'readBack', runId, afterSeq: run.deferredAfterSeq, throughSeq: through });
      run.readingBack = true;
      run.deferredAfterSeq = through;
    } else if (run.ending && retry.current.state === 'paused') {
      // The run is over and what is left of it cannot be stored now: it is not waited for (a full disk may last).
      run.unparsedBytes += chunks
        .filter((chunk) => chunk.runId === runId && chunk.seq > run.deferredAfterSeq!)
        .reduce((sum, chunk) => sum + chunk.data.byteLength, 0);
      run.deferredAfterSeq = null;
      maybeEndParsing(runId, run);
    }
  }
}

function forwardToParser(chunk: Chunk, run: LiveRun, wasDropped: boolean): void {
  run.lastSeenSeq = chunk.seq;
  if (!parserAlive) return;
  if (run.deferredAfterSeq === null && !backlogFull()) {
    // A copy: the original is committed from here, and its memory is released once stored.
    const bytes = sendChunkCopy(parser, chunk.data, (copy): ToOutputParser => ({
      type: 'chunk',
      runId: chunk.runId,
      seq: chunk.seq,
      tMs: chunk.tMs,
      data: copy,
    }));
    run.forwardedBytes += bytes;
    forwardedBytesTotal += bytes;
    return;
  }
  run.deferredAfterSeq ??= chunk.seq - 1;
  // Not stored, so never to be read back: its metrics are lost, and said so.
  if (wasDropped) run.unparsedBytes += chunk.data.byteLength;
}

/**
 * The parser is told a run ended once nothing of it is deferred; it answers the engine (`runParsed`) once the
 * last samples are committed. Without a parser, this thread answers at once.
 */
function maybeEndParsing(runId: number, run: LiveRun): void {
  if (!run.ending || run.parserToldEnd) return;
  if (parserAlive && (run.deferredAfterSeq !== null || run.readingBack)) return;
  run.parserToldEnd = true;
  if (run.unparsedBytes > 0) {
    send({
      type: 'notice',
      runId,
      message: `${run.unparsedBytes} bytes of this run's output were not parsed for metrics: parsing had fallen behind, and they were not stored in time to be read back (the disk was full). The output itself is as the store has it.`,
    });
  }
  if (parserAlive) {
    toParser({ type: 'endRun', runId, tMs: run.ending.tMs });
  } else {
    forget(runId);
    send({ type: 'runParsed', runId });
  }
}

/**
 * With no run left, the chunks this thread was handed are garbage its heap may hold for long (V8 collects it when the
 * thread allocates, and an idle one does not): handed back, so the run's summary does not stack on it (see heapRelease.ts).
 */
function releaseWhenIdle(): void {
  if (liveRuns.size === 0 && [...parsedBySender.values()].every((run) => run.ended)) releaseIdleHeap();
}

function forget(runId: number): void {
  const run = liveRuns.get(runId);
  if (!run) return;
  forwardedBytesTotal -= run.forwardedBytes;
  liveRuns.delete(runId);
}

parser.on('message', (message: ParserToWriter) => {
  try {
    handleParser(message);
  } catch (error) {
    send({
      type: 'error',
      message: `the output writer could not take the parser's ${message.type}: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
});
// The parser thread died (a fault the engine reports): bytes go on being stored; runs end without waiting for it.
parser.on('close', () => {
  if (!parserAlive) return;
  parserAlive = false;
  for (const [runId, run] of liveRuns) {
    run.deferredAfterSeq = null;
    run.readingBack = false;
    if (run.ending && run.parserToldEnd) {
      // Told, but never answered: answered here instead.
      forget(runId);
      send({ type: 'runParsed', runId });
    } else {
      maybeEndParsing(runId, run);
    }
  }
});

function handleParser(message: ParserToWriter): void {
  switch (message.type) {
    case 'acked': {
      const run = liveRuns.get(message.runId);
      if (run) run.forwardedBytes -= message.chunkBytes;
      if (run) forwardedBytesTotal -= message.chunkBytes;
      pumpReadBacks();
      break;
    }
    case 'readBackDone': {
      const run = liveRuns.get(message.runId);
      if (run) run.readingBack = false;
      pumpReadBacks();
      break;
    }
    case 'ended':
      forget(message.runId);
      releaseWhenIdle();
      break;
    case 'closed':
      break;
  }
}

/** Keeps a chunk for the next commit, or past the held-back limit counts it as dropped (and says so once per run). Returns whether it was dropped. */
function hold(chunk: Chunk): boolean {
  const bytes = chunk.data.byteLength;
  if (heldBytes + bytes <= heldOutputLimitBytes) {
    chunks.push(chunk);
    heldBytes += bytes;
    policy.noteWaiting(performance.now(), bytes);
    return false;
  }
  dropped.set(chunk.runId, (dropped.get(chunk.runId) ?? 0) + bytes);
  policy.noteWaiting(performance.now(), 0);
  if (!toldDropping.has(chunk.runId)) {
    toldDropping.add(chunk.runId);
    send({ type: 'dropping', runId: chunk.runId, limitBytes: heldOutputLimitBytes });
  }
  return true;
}

port.on('message', (message: ToOutputWriter) => {
  // The worker's one error boundary: a fault in one message is reported, and the worker goes on storing output.
  try {
    handle(message);
  } catch (error) {
    send({ type: 'error', message: `the output writer could not handle ${message.type}: ${error instanceof Error ? error.message : String(error)}` });
  }
});

function handle(message: ToOutputWriter): void {
  switch (message.type) {
    case 'startRun':
      liveRuns.set(message.runId, {
        forwardedBytes: 0,
        deferredAfterSeq: null,
        readingBack: false,
        lastSeenSeq: -1,
        ending: null,
        parserToldEnd: false,
        unparsedBytes: 0,
      });
      if (parserAlive) toParser({ type: 'startRun', runId: message.runId, metricRegex: message.metricRegex });
      break;
    case 'startParsedRun':
      parsedBySender.set(message.runId, { ended: false });
      break;
    case 'chunk': {
      const wasDropped = hold(message);
      const run = liveRuns.get(message.runId);
      if (run) forwardToParser(message, run, wasDropped);
      else if (message.samples) queueSamples(message.runId, message.samples);
      commitIfDue();
      break;
    }
    case 'endRun': {
      const run = liveRuns.get(message.runId);
      if (run) {
        run.ending = { tMs: message.tMs };
        pumpReadBacks();
        maybeEndParsing(message.runId, run);
      } else {
        if (message.samples) queueSamples(message.runId, message.samples);
        const sent = parsedBySender.get(message.runId);
        if (sent) sent.ended = true;
        // Answered once its last samples are committed (or kept for retry).
        commit();
        whenQueuedSamplesCommitted(() => {
          releaseWhenIdle();
          send({ type: 'runParsed', runId: message.runId });
        });
      }
      break;
    }
    case 'flush':
      commit();
      whenQueuedSamplesCommitted(() => send({ type: 'flushed', id: message.id }));
      break;
    case 'setHeldOutputLimit':
      heldOutputLimitBytes = Math.max(0, Math.floor(message.bytes));
      break;
    case 'setMaxPageCount':
      db.pragma(`max_page_count = ${Math.max(1, Math.floor(message.pages))}`);
      break;
    case 'close': {
      if (commitTimer !== null) clearTimeout(commitTimer);
      db.pragma(`busy_timeout = ${CLOSE_BUSY_TIMEOUT_MS}`);
      for (let attempt = 0; attempt < CLOSE_ATTEMPTS && !commitAll(); attempt += 1) {
        if (retry.diskFull) break;
      }
      db.close();
      // The parser closes the channel once it has closed its own connection; a dead parser's end is closed here.
      if (parserAlive) toParser({ type: 'close' });
      else parser.close();
      send({ type: 'closed', lostChunks: chunks.length });
      port.close();
      break;
    }
  }
}

/** At close: commits until nothing waits (samples past the cap take several transactions). */
function commitAll(): boolean {
  while (chunks.length > 0 || samplesQueue.length > 0 || dropped.size > 0) if (!commit()) return false;
  return true;
}
