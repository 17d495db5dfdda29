// What a call cannot carry: a run's log or metrics to a stream, a log file imported in pieces.
import type { Writable } from 'node:stream';
import type { LogFormat, Run } from '../../shared/api.js';
import type { Clock } from '../clock.js';
import type { EventHub } from '../events.js';
import { importLogFile, type ImportRequest } from '../ingest/importLog.js';
import type { IngestTasks } from '../ingest/ingestTasks.js';
import type { Recording } from '../ingest/recording.js';
import { writeRunLog, writeRunMetrics } from '../runner/runLog.js';
import { explainCorruption } from '../store/open.js';
import { requireRun } from './lookups.js';

export interface StreamsOptions {
  recording: Recording;
  tasks: IngestTasks;
  events: EventHub;
  clock: Clock;
  dbPath: string;
}

/** Each after everything queued is stored, a damaged page said as such. */
export function coreStreams({ recording, tasks, events, clock, dbPath }: StreamsOptions) {
  const { store } = recording;
  const namingDamage = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw explainCorruption(error, dbPath);
    }
  };
  return {
    writeRunLog: (id: number, format: LogFormat, sink: Writable): Promise<void> =>
      namingDamage(async () => {
        requireRun(store, id);
        await recording.flush();
        await writeRunLog(store.runs, id, format, sink);
      }),
    writeRunMetrics: (id: number, format: 'table' | 'json', sink: Writable): Promise<number> =>
      namingDamage(async () => {
        requireRun(store, id);
        await recording.flush();
        return writeRunMetrics(store.metrics, id, format, sink);
      }),
    importLogFile: (file: string, options: Omit<ImportRequest, 'now'>): Promise<Run> =>
      namingDamage(async () => {
        const run = await importLogFile({ recording, tasks }, file, { ...options, now: clock.now() });
        events.emit('runs.onDidChange', run);
        return run;
      }),
  };
}
