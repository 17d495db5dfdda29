// A stored run's series, telemetry and output read page by page for sending: memory stays bounded however long the
// run, and no SQLite statement stays open while a page is on the network (live runs keep writing meanwhile).
import type { MlflowStore } from '../store/mlflowStore.js';
import type { MetricEntry } from './mlflowClient.js';
import { gpuSecondMetrics, hostSecondMetrics, metricKey } from './runPayload.js';

/** Rows read per page: a few hundred kilobytes at most, and about as many metrics as five log-batch calls carry. */
const PAGE_ROWS = 5000;

/** Output chunks per page of an upload (each at most a few KiB, merged over ~5 ms by the runner). */
const OUTPUT_PAGE_CHUNKS = 256;

/** The run's per-step series: each metric by its step, timestamped by when it was logged. */
export function* seriesEntries(store: MlflowStore, runId: number, startMs: number): Generator<MetricEntry> {
  let after: { name: string; step: number } | null = null;
  for (;;) {
    const page = store.seriesPage(runId, after, PAGE_ROWS);
    for (const point of page) yield { key: metricKey(point.name), value: point.value, timestamp: startMs + point.tMs, step: point.step };
    if (page.length < PAGE_ROWS) break;
    const last = page.at(-1)!;
    after = { name: last.name, step: last.step };
  }
  // Names logged without a step: numbered in the order they came.
  const counts = new Map<string, number>();
  let afterRowid = 0;
  for (;;) {
    const page = store.unsteppedPage(runId, afterRowid, PAGE_ROWS);
    for (const point of page) {
      const step = counts.get(point.name) ?? 0;
      counts.set(point.name, step + 1);
      yield { key: metricKey(point.name), value: point.value, timestamp: startMs + point.tMs, step };
    }
    if (page.length < PAGE_ROWS) break;
    afterRowid = page.at(-1)!.rowid;
  }
}

/** GPU and host telemetry as `system/...` metrics, at most one value a second each. */
export function* systemEntries(store: MlflowStore, runId: number, startMs: number): Generator<MetricEntry> {
  for (const gpu of store.gpuIndexes(runId)) {
    let from = Number.NEGATIVE_INFINITY;
    for (;;) {
      const page = store.gpuSecondsPage(runId, gpu, from, PAGE_ROWS);
      for (const second of page) yield* gpuSecondMetrics(second, startMs);
      if (page.length < PAGE_ROWS) break;
      from = page.at(-1)!.second + 1;
    }
  }
  let from = Number.NEGATIVE_INFINITY;
  for (;;) {
    const page = store.hostSecondsPage(runId, from, PAGE_ROWS);
    for (const second of page) yield* hostSecondMetrics(second, startMs);
    if (page.length < PAGE_ROWS) break;
    from = page.at(-1)!.second + 1;
  }
}

/** The run's output exactly as it was written, as a stream read a page at a time as the upload takes it. */
export function outputStream(store: MlflowStore, runId: number): ReadableStream<Uint8Array> {
  let afterSeq = -1;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const page = store.outputPage(runId, afterSeq, OUTPUT_PAGE_CHUNKS);
      for (const chunk of page) controller.enqueue(new Uint8Array(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength));
      if (page.length < OUTPUT_PAGE_CHUNKS) controller.close();
      else afterSeq = page.at(-1)!.seq;
    },
  });
}
