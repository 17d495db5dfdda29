// Metrics, params and tags gathered into log-batch calls within MLflow's limits, sent as each call fills: a run of
// any length goes out in bounded pieces.
import { logBatchBody, type KeyValue, type MetricEntry } from './mlflowClient.js';

/** MLflow's limits on one log-batch call (mlflow/utils/validation.py, the REST API's documentation). */
export const LOG_BATCH_LIMITS = {
  metrics: 1000,
  params: 100,
  tags: 100,
  /** Metrics, params and tags together. */
  entities: 1000,
  /** The request's JSON. */
  bytes: 1_000_000,
} as const;

export type SendBatch = (metrics: MetricEntry[], params: KeyValue[], tags: KeyValue[]) => Promise<void>;

export class LogBatcher {
  private metrics: MetricEntry[] = [];
  private params: KeyValue[] = [];
  private tags: KeyValue[] = [];
  /** The JSON of what is gathered so far, less the envelope: each entry's length and a comma. */
  private bytes = 0;
  private readonly envelopeBytes: number;
  /** Calls made so far. */
  calls = 0;

  constructor(
    runId: string,
    private readonly send: SendBatch,
    private readonly limits: typeof LOG_BATCH_LIMITS = LOG_BATCH_LIMITS,
  ) {
    this.envelopeBytes = Buffer.byteLength(logBatchBody(runId, [], [], []));
  }

  addMetric(entry: MetricEntry): Promise<void> {
    return this.add('metrics', entry, Buffer.byteLength(logBatchBody('', [entry], [], [])) - Buffer.byteLength(logBatchBody('', [], [], [])));
  }

  addParam(entry: KeyValue): Promise<void> {
    return this.add('params', entry, Buffer.byteLength(JSON.stringify(entry)));
  }

  addTag(entry: KeyValue): Promise<void> {
    return this.add('tags', entry, Buffer.byteLength(JSON.stringify(entry)));
  }

  /** Sends what is gathered (nothing when empty). */
  async flush(): Promise<void> {
    if (this.metrics.length + this.params.length + this.tags.length === 0) return;
    const [metrics, params, tags] = [this.metrics, this.params, this.tags];
    this.metrics = [];
    this.params = [];
    this.tags = [];
    this.bytes = 0;
    this.calls += 1;
    await this.send(metrics, params, tags);
  }

  private async add(kind: 'metrics' | 'params' | 'tags', entry: MetricEntry | KeyValue, entryBytes: number): Promise<void> {
    const count = this.metrics.length + this.params.length + this.tags.length;
    const full =
      this[kind].length + 1 > this.limits[kind] || count + 1 > this.limits.entities || this.envelopeBytes + this.bytes + entryBytes + 1 > this.limits.bytes;
    if (full) await this.flush();
    (this[kind] as Array<MetricEntry | KeyValue>).push(entry);
    this.bytes += entryBytes + 1;
  }
}
