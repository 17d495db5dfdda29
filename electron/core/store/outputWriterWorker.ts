// Worker thread: stores pty output through its own SQLite connection, in a batch at a steady pace,
// so the engine's thread spends its time reading the pty and not waiting on the disk.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { FromOutputWriter, OutputWriterConfig, ToOutputWriter } from './outputWriterProtocol.js';

type Chunk = Extract<ToOutputWriter, { type: 'chunk' }>;

const config = workerData as OutputWriterConfig;
const port = parentPort!;
const db = new Database(config.file);
// The engine's connection has set WAL and the schema; this one only needs to wait its turn and keep keys.
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');

const insertChunk = db.prepare('INSERT INTO run_output (run_id, seq, t_ms, data) VALUES (?, ?, ?, ?)');
const addBytes = db.prepare('UPDATE runs SET output_bytes = output_bytes + ? WHERE id = ?');
const commit = db.transaction((chunks: Chunk[]) => {
  const bytesByRun = new Map<number, number>();
  for (const chunk of chunks) {
    insertChunk.run(chunk.runId, chunk.seq, chunk.tMs, Buffer.from(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength));
    bytesByRun.set(chunk.runId, (bytesByRun.get(chunk.runId) ?? 0) + chunk.data.byteLength);
  }
  for (const [runId, bytes] of bytesByRun) addBytes.run(bytes, runId);
});

let queue: Chunk[] = [];
const send = (message: FromOutputWriter) => port.postMessage(message);

function flush(): void {
  if (queue.length === 0) return;
  const chunks = queue;
  queue = [];
  try {
    commit(chunks);
  } catch (error) {
    send({ type: 'error', message: `storing output failed: ${error instanceof Error ? error.message : String(error)}` });
  }
}

const timer = setInterval(flush, config.flushIntervalMs);

port.on('message', (message: ToOutputWriter) => {
  switch (message.type) {
    case 'chunk':
      queue.push(message);
      break;
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
