// The one owner of the SQLite file: opens it, hands out the repositories, flushes and closes it.
import { BatchWriter, type WriterStatus } from './batchWriter.js';
import { GpuJournalStore } from './gpuJournalStore.js';
import { SweepStore } from './sweepStore.js';
import { TuneStore } from './tuneStore.js';
import { BUSY_TIMEOUT_MS, openDatabase, openDatabaseReadOnly, unwritableReason, type Db, type MigrationNotice } from './open.js';
import type { OutputSink } from './outputSink.js';
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

/** `Output` is the writer ingest/ hands in (createCore's OutputWriter), typed as made so its owners reach all of it. */
export class Store<Output extends OutputSink = OutputSink> {
  readonly db: Db;
  readonly writer: BatchWriter;
  readonly output: Output;
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

  /**
   * `openOutput` is called once the file is open and migrated, so the writer's own connection finds the schema; it
   * gets the read-only reason, if any, and then starts no writer. `readOnlyFallback`: a file that can be read but
   * not written opens for reading (the CLI's `runs` on a full disk) instead of being refused.
   */
  constructor(
    readonly file: string,
    openOutput: (file: string, readOnly: string | null) => Output,
    clock: Clock = systemClock,
    options: { readOnlyFallback?: boolean; onMigrating?: MigrationNotice } = {},
  ) {
    const opened = openForUse(file, options.readOnlyFallback === true, options.onMigrating);
    this.db = opened.db;
    this.readOnly = opened.readOnly;
    this.writer = new BatchWriter(this.db, undefined, clock);
    this.output = openOutput(file, this.readOnly?.reason ?? null);
    this.workloads = new WorkloadStore(this.db, clock);
    this.runs = new RunStore(this.db, this.output);
    this.processes = new RunProcessStore(this.db, this.writer);
    this.metrics = new MetricStore(this.db, this.writer);
    this.telemetry = new TelemetryStore(this.db, this.writer);
    this.gpuJournal = new GpuJournalStore(this.db);
    this.sweeps = new SweepStore(this.db);
    this.tunes = new TuneStore(this.db);
    this.profiles = new ProfileStore(this.db);
  }

  /**
   * Whether samples and output reach the file: paused while either writer waits out a fault (a full disk, a
   * busy file), with what to tell the person; `writing` again once both have caught up.
   */
  onWriteStatus(listener: (status: WriterStatus) => void): () => void {
    const report = () => listener(this.writeStatus());
    const offSamples = this.writer.onStatus(report);
    const offOutput = this.output.onStatus(report);
    return () => {
      offSamples();
      offOutput();
    };
  }

  writeStatus(): WriterStatus {
    const samples = this.writer.currentStatus();
    return samples.state === 'paused' ? samples : this.output.currentStatus();
  }

  /** How much output may wait in memory while the disk is full; past it, output is parsed, counted and dropped. */
  setHeldOutputLimit(bytes: number): void {
    this.output.setHeldOutputLimit(bytes);
  }

  onOutputDropping(listener: (runId: number, limitBytes: number) => void): () => void {
    return this.output.onDropping(listener);
  }

  /** Caps the file at this many pages on every connection (SQLite's max_page_count), as a full disk would. */
  setMaxPageCount(pages: number): void {
    this.db.pragma(`max_page_count = ${Math.max(1, Math.floor(pages))}`);
    this.output.setMaxPageCount(pages);
  }

  /** Everything queued so far (output in the worker, samples here) committed, or kept for retry if the file refuses it. */
  async flush(): Promise<void> {
    this.lockWait ??= this.waitOutLock().finally(() => (this.lockWait = null));
    await this.lockWait;
    await this.output.flush();
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
    await this.output.close();
    this.db.close();
    if (lostWrites > 0)
      console.error(
        `tuning-bench: ${lostWrites} sample writes could not be stored in ${this.file} before closing (${this.writeStatus().state === 'paused' ? 'the disk is full or the file busy' : 'the database refused them'})`,
      );
  }
}
