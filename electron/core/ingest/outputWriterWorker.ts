// Worker thread: stores pty output through its own SQLite connection and parses it for metrics, in a
// batch at a steady pace, so the engine's thread spends its time reading the pty and not on the disk.
import { TextDecoder } from 'node:util';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { LIVE_READING, MetricsCollector } from '../metrics/collector.js';
import type { MetricSample } from '../metrics/samples.js';
import { INSERT_SAMPLE_SQL, toColumns } from '../store/metricStore.js';
import type { FromOutputWriter, OutputWriterConfig, ToOutputWriter } from './outputWriterProtocol.js';
import type { WriterStatus } from '../store/batchWriter.js';
import { DEFAULT_HELD_OUTPUT_LIMIT_BYTES, describeWriteFault, nextRetryDelayMs } from '../store/writeFaults.js';

type Chunk = Extract<ToOutputWriter, { type: 'chunk' }>;

interface RunParsing {
  decoder: TextDecoder;
  collector: MetricsCollector;
}

/**
 * Runs their sender parses (startParsedRun: imports), whose committed samples are not sent back, and
 * whether each has ended (it is forgotten once its last samples are committed).
 */
const parsedBySender = new Map<number, { ended: boolean }>();

const config = workerData as OutputWriterConfig;
const port = parentPort!;
const db = new Database(config.file);
// The engine's connection has set WAL and the schema; this one only needs to wait its turn and keep keys.
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');

const insertChunk = db.prepare('INSERT INTO run_output (run_id, seq, t_ms, data) VALUES (?, ?, ?, ?)');
const addBytes = db.prepare('UPDATE runs SET output_bytes = output_bytes + ? WHERE id = ?');
const insertSample = db.prepare(INSERT_SAMPLE_SQL);

const parsing = new Map<number, RunParsing>();
let chunks: Chunk[] = [];
let parsed = new Map<number, MetricSample[]>();

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

const addDropped = db.prepare('UPDATE runs SET output_dropped_bytes = output_dropped_bytes + ? WHERE id = ?');

const commit = db.transaction((batch: Chunk[], samplesByRun: Map<number, MetricSample[]>, droppedByRun: Map<number, number>) => {
  const bytesByRun = new Map<number, number>();
  for (const chunk of batch) {
    insertChunk.run(chunk.runId, chunk.seq, chunk.tMs, Buffer.from(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength));
    bytesByRun.set(chunk.runId, (bytesByRun.get(chunk.runId) ?? 0) + chunk.data.byteLength);
  }
  for (const [runId, bytes] of bytesByRun) addBytes.run(bytes, runId);
  for (const [runId, bytes] of droppedByRun) addDropped.run(bytes, runId);
  for (const [runId, samples] of samplesByRun) {
    for (const sample of samples) {
      const { value, special } = toColumns(sample.value);
      insertSample.run(runId, sample.step, sample.tMs, sample.name, value, special, sample.source, sample.kind);
    }
  }
});

const send = (message: FromOutputWriter) => port.postMessage(message);

function collect(runId: number, samples: MetricSample[]): void {
  if (samples.length === 0) return;
  const list = parsed.get(runId);
  if (list) list.push(...samples);
  else parsed.set(runId, samples);
}

let failures = 0;
/**
 * When a refused batch is tried again (monotonic, as the engine's waits are), on this thread's own clock: the engine's injected Clock is a set of
 * functions, which cannot cross into a worker (workerData is copied by structured clone). Only waits are timed
 * here, never anything stored (a chunk's tMs comes from the engine), so real time changes no recorded value;
 * tests drive this retry through the engine (store.flush, a full disk set by max_page_count) instead.
 */
let retryAt = 0;
let status: WriterStatus = { state: 'writing' };

function setStatus(next: WriterStatus): void {
  const changed = next.state !== status.state || (next.state === 'paused' && status.state === 'paused' && next.fault !== status.fault);
  status = next;
  if (changed) send({ type: 'status', status: next });
}

/** Commits what is queued; a failed batch is put back in front, in order, and retried later. Returns whether all is stored. */
function flush(): boolean {
  if (chunks.length === 0 && parsed.size === 0 && dropped.size === 0) return true;
  const batch = chunks;
  const samplesByRun = parsed;
  const droppedByRun = dropped;
  chunks = [];
  parsed = new Map();
  dropped = new Map();
  try {
    commit(batch, samplesByRun, droppedByRun);
  } catch (error) {
    // The transaction rolled back as a whole: nothing of the batch is stored, so all of it goes back.
    chunks = batch.concat(chunks);
    for (const [runId, samples] of parsed) {
      const kept = samplesByRun.get(runId);
      if (kept) kept.push(...samples);
      else samplesByRun.set(runId, samples);
    }
    parsed = samplesByRun;
    for (const [runId, bytes] of dropped) droppedByRun.set(runId, (droppedByRun.get(runId) ?? 0) + bytes);
    dropped = droppedByRun;
    failures += 1;
    retryAt = performance.now() + nextRetryDelayMs(failures);
    const { fault, message } = describeWriteFault(error, config.file);
    setStatus({ state: 'paused', fault, message, pendingWrites: chunks.length });
    return false;
  }
  for (const chunk of batch) heldBytes -= chunk.data.byteLength;
  toldDropping.clear();
  failures = 0;
  retryAt = 0;
  if (status.state !== 'writing') setStatus({ state: 'writing' });
  // Only what is committed is announced, so a view that asks for it finds it.
  for (const [runId, samples] of samplesByRun) if (!parsedBySender.has(runId)) send({ type: 'metrics', runId, samples });
  for (const [runId, run] of parsedBySender) if (run.ended) parsedBySender.delete(runId);
  return true;
}

const timer = setInterval(() => {
  if (performance.now() >= retryAt) flush();
}, config.flushIntervalMs);

/** Tries at close: each waits out a busy file for the full busy_timeout; a full disk does not change between them. */
const CLOSE_ATTEMPTS = 3;

/** Keeps a chunk for the next commit, or past the held-back limit counts it as dropped (and says so once per run). */
function hold(chunk: Chunk): void {
  const bytes = chunk.data.byteLength;
  if (heldBytes + bytes <= heldOutputLimitBytes) {
    chunks.push(chunk);
    heldBytes += bytes;
    return;
  }
  dropped.set(chunk.runId, (dropped.get(chunk.runId) ?? 0) + bytes);
  if (!toldDropping.has(chunk.runId)) {
    toldDropping.add(chunk.runId);
    send({ type: 'dropping', runId: chunk.runId, limitBytes: heldOutputLimitBytes });
  }
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
      parsing.set(message.runId, {
        decoder: new TextDecoder('utf-8'),
        collector: new MetricsCollector({ metricRegex: message.metricRegex, ...LIVE_READING }),
      });
      break;
    case 'startParsedRun':
      parsedBySender.set(message.runId, { ended: false });
      break;
    case 'chunk': {
      hold(message);
      const run = parsing.get(message.runId);
      if (run) collect(message.runId, run.collector.push(run.decoder.decode(message.data, { stream: true }), message.tMs));
      else if (message.samples) collect(message.runId, message.samples);
      break;
    }
    case 'endRun': {
      const run = parsing.get(message.runId);
      if (run) {
        const rest = run.decoder.decode();
        collect(message.runId, [...run.collector.push(rest, message.tMs), ...run.collector.end(message.tMs)]);
        parsing.delete(message.runId);
      }
      if (message.samples) collect(message.runId, message.samples);
      const sent = parsedBySender.get(message.runId);
      if (sent) sent.ended = true;
      break;
    }
    case 'flush':
      flush();
      send({ type: 'flushed', id: message.id });
      break;
    case 'setHeldOutputLimit':
      heldOutputLimitBytes = Math.max(0, Math.floor(message.bytes));
      break;
    case 'setMaxPageCount':
      db.pragma(`max_page_count = ${Math.max(1, Math.floor(message.pages))}`);
      break;
    case 'close': {
      clearInterval(timer);
      for (let attempt = 0; attempt < CLOSE_ATTEMPTS && !flush(); attempt += 1) {
        if (status.state === 'paused' && status.fault === 'full') break;
      }
      db.close();
      send({ type: 'closed', lostChunks: chunks.length });
      port.close();
      break;
    }
  }
}
