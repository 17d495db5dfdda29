// `tuning-bench import` and the UI's import: a log made elsewhere becomes a run like any other.
import type { Run } from '../../shared/api.js';
import { MetricsCollector } from '../metrics/collector.js';
import { summarizeMetrics } from '../metrics/summary.js';
import { EMPTY_SUMMARY } from '../store/runStore.js';
import type { Store } from '../store/store.js';
import { stripAnsi } from '../../shared/ansi.js';
import { findFailureLine } from './exitClassifier.js';

/** Stored in pieces of this size, like a live run's merged chunks. */
const IMPORT_CHUNK_BYTES = 256 * 1024;
/** The shell's own report of a process it lost to the kernel (SIGKILL, usually the OOM killer). */
const KILLED_LINE = /^\s*(?:\S+: line \d+: +\d+ )?Killed(?:\s|$)/mu;

export interface ImportRequest {
  text: string | Buffer;
  name: string;
  now: Date;
  /** Where the log came from, shown as the run's command. */
  source?: string;
}

export async function importLog(store: Store, request: ImportRequest): Promise<Run> {
  const bytes = typeof request.text === 'string' ? Buffer.from(request.text) : request.text;
  const text = new TextDecoder('utf-8').decode(bytes);
  const run = store.runs.insert({
    workloadId: null,
    workloadName: request.name,
    command: ['(imported)', request.source ?? request.name],
    cwd: '',
    config: {},
    env: {},
    startedAt: request.now,
    enginePid: process.pid,
  });
  for (let offset = 0, seq = 0; offset < bytes.length; offset += IMPORT_CHUNK_BYTES, seq++) {
    store.runs.appendOutput(run.id, seq, 0, Buffer.from(bytes.subarray(offset, offset + IMPORT_CHUNK_BYTES)));
  }

  const collector = new MetricsCollector({ metricRegex: '' });
  const samples = [...collector.push(text, 0), ...collector.end(0)];
  store.metrics.insertNow(run.id, samples);

  const failure = findFailureLine(text);
  const killed = !failure && KILLED_LINE.test(stripAnsi(text));
  await store.runs.end(run.id, {
    status: failure || killed ? 'failed' : 'succeeded',
    exitCode: null,
    signal: null,
    exitClass: failure ? failure.exitClass : killed ? 'killed' : 'ok',
    exitReason: failure ? failure.line : killed ? 'Killed (the process was killed, most likely by the out-of-memory killer)' : null,
    endedAt: request.now,
  });
  store.runs.setSummary(run.id, { ...EMPTY_SUMMARY, ...summarizeMetrics(samples) });
  return store.runs.get(run.id)!;
}
