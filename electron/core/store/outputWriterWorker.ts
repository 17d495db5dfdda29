// Worker thread: stores pty output through its own SQLite connection and parses it for metrics, in a
// batch at a steady pace, so the engine's thread spends its time reading the pty and not on the disk.
import { TextDecoder } from 'node:util';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { MetricsCollector } from '../metrics/collector.js';
import type { MetricSample } from '../metrics/samples.js';
import { INSERT_SAMPLE_SQL, toColumns } from './metricStore.js';
import type { FromOutputWriter, OutputWriterConfig, ToOutputWriter } from './outputWriterProtocol.js';

type Chunk = Extract<ToOutputWriter, { type: 'chunk' }>;

interface RunParsing {
  decoder: TextDecoder;
  collector: MetricsCollector;
}

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

const commit = db.transaction((batch: Chunk[], samplesByRun: Map<number, MetricSample[]>) => {
  const bytesByRun = new Map<number, number>();
  for (const chunk of batch) {
    insertChunk.run(chunk.runId, chunk.seq, chunk.tMs, Buffer.from(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength));
    bytesByRun.set(chunk.runId, (bytesByRun.get(chunk.runId) ?? 0) + chunk.data.byteLength);
  }
  for (const [runId, bytes] of bytesByRun) addBytes.run(bytes, runId);
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

function flush(): void {
  if (chunks.length === 0 && parsed.size === 0) return;
  const batch = chunks;
  const samplesByRun = parsed;
  chunks = [];
  parsed = new Map();
  try {
    commit(batch, samplesByRun);
  } catch (error) {
    send({ type: 'error', message: `storing output failed: ${error instanceof Error ? error.message : String(error)}` });
    return;
  }
  // Only what is committed is announced, so a view that asks for it finds it.
  for (const [runId, samples] of samplesByRun) send({ type: 'metrics', runId, samples });
}

const timer = setInterval(flush, config.flushIntervalMs);

port.on('message', (message: ToOutputWriter) => {
  switch (message.type) {
    case 'startRun':
      parsing.set(message.runId, {
        decoder: new TextDecoder('utf-8'),
        collector: new MetricsCollector({ metricRegex: message.metricRegex, progressIntervalMs: message.progressIntervalMs, timesFromStamps: message.timesFromStamps }),
      });
      break;
    case 'chunk': {
      chunks.push(message);
      const run = parsing.get(message.runId);
      if (run) collect(message.runId, run.collector.push(run.decoder.decode(message.data, { stream: true }), message.tMs));
      break;
    }
    case 'endRun': {
      const run = parsing.get(message.runId);
      if (run) {
        const rest = run.decoder.decode();
        collect(message.runId, [...run.collector.push(rest, message.tMs), ...run.collector.end(message.tMs)]);
        parsing.delete(message.runId);
      }
      break;
    }
    case 'flush':
      flush();
      send({ type: 'flushed', id: message.id });
      break;
    case 'close':
      clearInterval(timer);
      flush();
      db.close();
      send({ type: 'closed' });
      port.close();
      break;
  }
});
