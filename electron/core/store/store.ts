// The one owner of the SQLite file: opens it, hands out the repositories, flushes and closes it.
import { BatchWriter } from './batchWriter.js';
import { GpuJournalStore } from './gpuJournalStore.js';
import { SweepStore } from './sweepStore.js';
import { TuneStore } from './tuneStore.js';
import { BUSY_TIMEOUT_MS, openDatabase, openDatabaseReadOnly, unwritableReason, type Db, type MigrationNotice } from './open.js';
import { MetricStore } from './metricStore.js';
import { ProfileStore } from './profileStore.js';
import { TelemetryStore } from './telemetryStore.js';
import { RunProcessStore } from './runProcessStore.js';
import { RunStore } from './runStore.js';
import { WorkloadStore } from './workloadStore.js';
import { type Clock, realDelay, systemClock } from '../clock.js';

/** Between tries of a flush that meets another process's lock: the batch timer's own pace is 100 ms. */
const LOCK_RETRY_MS = 50;

export interface ReadOnlyState {
  /** Why the file cannot be written, e.g. "the disk holding it is full (0 KiB free)". */
  reason: string;
  /** Bytes of its -wal that could not be read with it: the last changes may be missing from what is shown. */
  unreadWalBytes: number;
}

function openForUse(file: string, readOnlyFallback: boolean, onMigrating?: MigrationNotice): { db: Db; readOnly: ReadOnlyState | null } {
  try {
    return { db: openDatabase(file, onMigrating), readOnly: null };
  } catch (error) {
    const reason = readOnlyFallback ? unwritableReason(file, error) : null;
    if (reason === null) throw error;
    try {
      const { db, unreadWalBytes } = openDatabaseReadOnly(file);
      return { db, readOnly: { reason, unreadWalBytes } };
    } catch {
      // Not readable either: the first refusal says more (it names the file and what to do).
      throw error;
    }
  }
}

/** Terminal output is not written here: ingest/'s OutputWriter has a connection of its own (ingest/recording.ts pairs the two). */
export class Store {
  readonly db: Db;
  readonly writer: BatchWriter;
  readonly workloads: WorkloadStore;
  readonly runs: RunStore;
  readonly processes: RunProcessStore;
  readonly metrics: MetricStore;
  readonly telemetry: TelemetryStore;
  readonly gpuJournal: GpuJournalStore;
  readonly sweeps: SweepStore;
  readonly tunes: TuneStore;
  readonly profiles: ProfileStore;
  /** The one wait for another process's lock that every flush under way shares. */
  private lockWait: Promise<void> | null = null;
  /** Set when the file could only be opened for reading (a full disk, no write permission): why, in words. */
  readonly readOnly: ReadOnlyState | null;

  /** `readOnlyFallback`: a file that can be read but not written opens for reading (the CLI's `runs` on a full disk) instead of being refused. */
  constructor(
    readonly file: string,
    clock: Clock = systemClock,
    options: { readOnlyFallback?: boolean; onMigrating?: MigrationNotice } = {},
  ) {
    const opened = openForUse(file, options.readOnlyFallback === true, options.onMigrating);
    this.db = opened.db;
    this.readOnly = opened.readOnly;
    this.writer = new BatchWriter(this.db, undefined, clock);
    this.workloads = new WorkloadStore(this.db, clock);
    this.runs = new RunStore(this.db);
    this.processes = new RunProcessStore(this.db, this.writer);
    this.metrics = new MetricStore(this.db, this.writer);
    this.telemetry = new TelemetryStore(this.db, this.writer);
    this.gpuJournal = new GpuJournalStore(this.db);
    this.sweeps = new SweepStore(this.db);
    this.tunes = new TuneStore(this.db);
    this.profiles = new ProfileStore(this.db);
  }

  /** Caps the file at this many pages on this connection (SQLite's max_page_count), as a full disk would. */
  setMaxPageCount(pages: number): void {
    this.db.pragma(`max_page_count = ${Math.max(1, Math.floor(pages))}`);
  }

  /** Every sample queued so far committed, or kept for retry if the file refuses it. */
  async flush(): Promise<void> {
    this.lockWait ??= this.waitOutLock().finally(() => (this.lockWait = null));
    await this.lockWait;
  }

  /**
   * Another process's lock is waited out as before (up to the busy timeout), but never on the engine's thread: each
   * try takes the lock only if it is free at once, and every flush under way shares one wait. Before, each flush
   * waited inside SQLite (5 s; then 50 ms a try, and a cancelled download's retries piled up), and a live run's
   * terminal went unread for seconds while the lock was held.
   */
  private async waitOutLock(): Promise<void> {
    const deadline = performance.now() + BUSY_TIMEOUT_MS;
    while (!this.writer.flushWithoutWaiting(0) && this.writer.waitingForLock && performance.now() < deadline) {
      await realDelay(LOCK_RETRY_MS);
    }
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    const lostWrites = this.writer.close();
    this.db.close();
    if (lostWrites > 0)
      console.error(
        `tuning-bench: ${lostWrites} sample writes could not be stored in ${this.file} before closing (${this.writer.currentStatus().state === 'paused' ? 'the disk is full or the file busy' : 'the database refused them'})`,
      );
  }
}
