// Queues small writes (output chunks, samples) and commits them in one transaction at a steady pace; a batch that fails is kept and retried.
import type { Db } from './open.js';
import { WriteRetry, type WriterStatus } from './writeFaults.js';
import { systemClock, type Clock, type Timer } from '../clock.js';

/** A crash loses at most this much of what was queued (DESIGN: at most a second). */
export const FLUSH_INTERVAL_MS = 250;
/**
 * How long one commit from the timer waits for another process's write lock. Short, because it blocks the
 * engine's thread (the pty reader); a busy file is retried on the next ticks with backoff instead.
 */
const TIMER_BUSY_TIMEOUT_MS = 50;

/** Tries at close: a writer from another process rarely holds the file longer than three busy timeouts. */
const CLOSE_ATTEMPTS = 3;

type Write = () => void;

export class BatchWriter {
  private queue: Write[] = [];
  private readonly timer: Timer;
  private readonly commit: (writes: Write[]) => void;
  private closed = false;
  private readonly retry: WriteRetry;
  private readonly statusListeners = new Set<(status: WriterStatus) => void>();

  constructor(
    private readonly db: Db,
    intervalMs = FLUSH_INTERVAL_MS,
    clock: Clock = systemClock,
  ) {
    this.retry = new WriteRetry(
      () => clock.monotonicMs(),
      (status) => this.tell(status),
    );
    this.commit = db.transaction((writes: Write[]) => {
      for (const write of writes) write();
    });
    // The one place this writer runs from a timer: nothing it does may throw out of it.
    // Pending writes must not keep a CLI process alive; close() flushes what is left.
    this.timer = clock.setInterval(() => this.flushFromTimer(), intervalMs, { background: true });
  }

  enqueue(write: Write): void {
    if (this.closed) throw new Error('BatchWriter is closed');
    this.queue.push(write);
  }

  onStatus(listener: (status: WriterStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  currentStatus(): WriterStatus {
    return this.retry.current;
  }

  /**
   * Commits what is queued. Never throws: a batch that fails (busy file, full disk, any SQLite error) stays
   * queued, in order, and is retried with backoff; the status says so. Returns whether the queue is empty.
   */
  flush(): boolean {
    if (this.queue.length === 0) return true;
    const writes = this.queue;
    this.queue = [];
    try {
      this.commit(writes);
    } catch (error) {
      // The transaction rolled back as a whole, so the same writes can run again later.
      this.queue = writes.concat(this.queue);
      this.retry.failed(error, this.queue.length);
      return false;
    }
    this.retry.succeeded();
    return true;
  }

  /**
   * Flushes what is left, a few times (each waits out a busy file for the connection's full busy_timeout), then
   * closes. Returns how many writes could not be stored (a full disk at exit), so the caller can say so.
   */
  close(): number {
    if (this.closed) return 0;
    this.timer.cancel();
    for (let attempt = 0; attempt < CLOSE_ATTEMPTS && !this.flush(); attempt += 1) {
      // Each attempt already waited busy_timeout inside SQLite; a full disk will not change between them.
      if (this.retry.diskFull) break;
    }
    this.closed = true;
    return this.queue.length;
  }

  /** Whether the last commit failed because another connection held the write lock (it may be free in a moment). */
  get waitingForLock(): boolean {
    return this.queue.length > 0 && this.retry.lastFault === 'busy';
  }

  /** The timer's path: the same error boundary as every other, so nothing it meets (a busy connection, a closed file) escapes the timer. */
  private flushFromTimer(): void {
    if (this.queue.length === 0 || !this.retry.mayRetry()) return;
    this.flushWithoutWaiting();
  }

  /**
   * Commits what is queued if the file's write lock is free within `waitMs` (default TIMER_BUSY_TIMEOUT_MS; 0: only
   * if it is free now); otherwise it stays queued
   * for the timer's retries. For the engine's thread, which reads the pty: before, a download's flush waited out
   * the connection's full busy_timeout (5 s, twice) while another process held the lock, and a live run's output
   * went unread for 10 s. Never throws; returns whether the queue is empty.
   */
  flushWithoutWaiting(waitMs = TIMER_BUSY_TIMEOUT_MS): boolean {
    if (this.queue.length === 0) return true;
    let busyTimeout: number | null = null;
    try {
      busyTimeout = this.db.pragma('busy_timeout', { simple: true }) as number;
      this.db.pragma(`busy_timeout = ${waitMs}`);
      return this.flush();
    } catch (error) {
      // Only the pragmas can land here (the connection closed, or busy with a statement); flush() never throws.
      this.retry.failed(error, this.queue.length);
      return false;
    } finally {
      try {
        if (busyTimeout !== null && this.db.open) this.db.pragma(`busy_timeout = ${busyTimeout}`);
      } catch {
        // Put back on the next tick that gets this far; the next flush sets it again anyway.
      }
    }
  }

  private tell(status: WriterStatus): void {
    for (const listener of [...this.statusListeners]) {
      try {
        listener(status);
      } catch {
        // A listener's fault must not undo the writer's bookkeeping.
      }
    }
  }
}
