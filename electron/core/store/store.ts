// The one owner of the SQLite file: opens it, hands out the repositories, flushes and closes it.
import { BatchWriter } from './batchWriter.js';
import { openDatabase, type Db } from './open.js';
import { RunStore } from './runStore.js';
import { WorkloadStore } from './workloadStore.js';

export class Store {
  readonly db: Db;
  readonly writer: BatchWriter;
  readonly workloads: WorkloadStore;
  readonly runs: RunStore;

  constructor(readonly file: string) {
    this.db = openDatabase(file);
    this.writer = new BatchWriter(this.db);
    this.workloads = new WorkloadStore(this.db);
    this.runs = new RunStore(this.db, this.writer);
  }

  close(): void {
    if (!this.db.open) return;
    this.writer.close();
    this.db.close();
  }
}
