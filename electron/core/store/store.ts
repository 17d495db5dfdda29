// The one owner of the SQLite file: opens it, hands out the repositories, flushes and closes it.
import { BatchWriter } from './batchWriter.js';
import { GpuJournalStore } from './gpuJournalStore.js';
import { SweepStore } from './sweepStore.js';
import { openDatabase, type Db } from './open.js';
import { MetricStore } from './metricStore.js';
import { OutputWriter } from './outputWriter.js';
import { ProfileStore } from './profileStore.js';
import { TelemetryStore } from './telemetryStore.js';
import { RunStore } from './runStore.js';
import { WorkloadStore } from './workloadStore.js';

export class Store {
  readonly db: Db;
  readonly writer: BatchWriter;
  readonly output: OutputWriter;
  readonly workloads: WorkloadStore;
  readonly runs: RunStore;
  readonly metrics: MetricStore;
  readonly telemetry: TelemetryStore;
  readonly gpuJournal: GpuJournalStore;
  readonly sweeps: SweepStore;
  readonly profiles: ProfileStore;

  constructor(readonly file: string) {
    this.db = openDatabase(file);
    this.writer = new BatchWriter(this.db);
    this.output = new OutputWriter(file);
    this.workloads = new WorkloadStore(this.db);
    this.runs = new RunStore(this.db, this.output);
    this.metrics = new MetricStore(this.db, this.writer);
    this.telemetry = new TelemetryStore(this.db, this.writer);
    this.gpuJournal = new GpuJournalStore(this.db);
    this.sweeps = new SweepStore(this.db);
    this.profiles = new ProfileStore(this.db);
  }

  /** Everything queued so far (output in the worker, samples here) committed. */
  async flush(): Promise<void> {
    this.writer.flush();
    await this.output.flush();
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    this.writer.close();
    await this.output.close();
    this.db.close();
  }
}
