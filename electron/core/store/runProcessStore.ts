// Every process a run started, by pid and start time, written as they are found: what Stop and crash recovery look for once the engine that found them is gone.
import type { BatchWriter } from './batchWriter.js';
import type { Db } from './open.js';

export interface StoredProcess {
  pid: number;
  startTicks: number;
}

export class RunProcessStore {
  private readonly insert;
  private readonly ofRun;

  constructor(
    db: Db,
    private readonly writer: BatchWriter,
  ) {
    this.insert = db.prepare<[number, number, number]>('INSERT OR IGNORE INTO run_processes (run_id, pid, start_ticks) VALUES (?, ?, ?)');
    this.ofRun = db.prepare<[number], { pid: number; start_ticks: number }>(
      'SELECT pid, start_ticks FROM run_processes WHERE run_id = ? ORDER BY start_ticks, pid',
    );
  }

  /** Queued with the batch (committed within its interval): found every half second, and never worth a wait for the file. */
  record(runId: number, processes: readonly StoredProcess[]): void {
    if (processes.length === 0) return;
    this.writer.enqueue(() => {
      for (const { pid, startTicks } of processes) this.insert.run(runId, pid, startTicks);
    });
  }

  forRun(runId: number): StoredProcess[] {
    return this.ofRun.all(runId).map((row) => ({ pid: row.pid, startTicks: row.start_ticks }));
  }
}
