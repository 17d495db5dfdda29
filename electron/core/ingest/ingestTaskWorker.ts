// Worker thread: long work on stored runs (parsing one again, an import's summary, scanning its lines), through
// its own connection, so the engine's thread stays free to read live runs' output.
import { parentPort, workerData } from 'node:worker_threads';
import { buildSeries } from './series.js';
import { summarizeStored } from '../metrics/summaryInput.js';
import { EMPTY_SUMMARY } from '../store/runStore.js';
import { Store } from '../store/store.js';
import { boundStreamingCache } from '../store/open.js';
import { BytesFirst } from './writeTurns.js';
import type { FromIngestTasks, IngestTaskConfig, ToIngestTasks } from './ingestTaskProtocol.js';
import { numericLines, reparseRun } from './reparse.js';
import { storedRunSummary } from './storedRunSummary.js';
import { runInBackground } from '../system/threadPriority.js';
import { releaseIdleHeap } from '../system/heapRelease.js';

const config = workerData as IngestTaskConfig;
const port = parentPort!;
// It may lag behind the store by design; the pty reader and the bytes' writer come first.
runInBackground();
// Its own connection reads and replaces samples and summaries; it never stores output.
const store = new Store(config.file);
boundStreamingCache(store.db);
const bytesFirst = new BytesFirst(config.bytesFirst);

async function perform(message: Exclude<ToIngestTasks, { task: 'close' }>): Promise<unknown> {
  switch (message.task) {
    case 'reparse':
      return reparseRun(store, message.runId, new Date(message.nowIso), bytesFirst);
    case 'finishImport': {
      const { summary: training, columns: samples } = summarizeStored(store.metrics, message.runId);
      const summary = { ...EMPTY_SUMMARY, ...training };
      const series = buildSeries(samples, []);
      bytesFirst.awaitTurn(1000);
      store.db
        .transaction(() => {
          store.runs.setSummary(message.runId, summary);
          store.runs.setSeries(message.runId, series);
        })
        .immediate();
      return null;
    }
    case 'summarizeRun':
      return storedRunSummary(store, message.runId, message.options, message.stepMarks);
    case 'numericLines':
      return numericLines(store, message.runId, message.limit);
  }
}

/** One task at a time, in order: each is long, and two at once would only share this thread. */
let queue = Promise.resolve();

port.on('message', (message: ToIngestTasks) => {
  if (message.task === 'close') {
    queue = queue.then(async () => {
      await store.close();
      port.postMessage({ id: message.id, ok: true, value: null } satisfies FromIngestTasks);
      port.close();
    });
    return;
  }
  queue = queue.then(async () => {
    // The thread's one error boundary: a task that fails answers with its error; the next one runs.
    try {
      port.postMessage({ id: message.id, ok: true, value: await perform(message) } satisfies FromIngestTasks);
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      port.postMessage({ id: message.id, ok: false, name: failure.name, message: failure.message } satisfies FromIngestTasks);
    }
    // The thread lives as long as the engine (the desktop app, `serve`): a summary's heap is not held between tasks.
    releaseIdleHeap();
  });
});
