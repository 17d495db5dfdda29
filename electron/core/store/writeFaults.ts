// What a failed SQLite write means for the person (disk full, file busy, other) and how long to wait before retrying it.
import { systemClock, type Clock } from '../clock.js';

export type WriteFault = 'full' | 'busy' | 'other';

/** First retry after one flush interval; doubling, then at most every 5 s so space freed is noticed within seconds. */
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5_000;

/** Output kept in memory while the disk is full, before later output is parsed but no longer kept. */
export const DEFAULT_HELD_OUTPUT_LIMIT_BYTES = 256 * 1024 * 1024;

/**
 * A busy file is said to pause writing only once it has refused writes this long: the engine's own threads
 * (the output writer, the parser's samples, telemetry) take turns at the write lock for milliseconds, and a
 * person is told of another process holding it, not of those turns.
 */
export const BUSY_REPORT_AFTER_MS = 1000;

/** Whether a fault that has lasted `sinceMs` is worth telling: always, except a busy file for less than BUSY_REPORT_AFTER_MS. */
export function faultWorthTelling(fault: WriteFault, sinceMs: number): boolean {
  return fault !== 'busy' || sinceMs >= BUSY_REPORT_AFTER_MS;
}

export function nextRetryDelayMs(failures: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** Math.max(0, failures - 1));
}

export function describeWriteFault(error: unknown, file?: string): { fault: WriteFault; message: string } {
  const code = (error as { code?: unknown } | null)?.code;
  const detail = error instanceof Error ? error.message : String(error);
  const where = file ? ` (${file})` : '';
  if (code === 'SQLITE_FULL' || (typeof code === 'string' && code.startsWith('SQLITE_IOERR') && /space|full/iu.test(detail))) {
    return {
      fault: 'full',
      message: `The disk holding the database${where} is full: output (up to ${DEFAULT_HELD_OUTPUT_LIMIT_BYTES / 1024 / 1024} MiB) and samples are kept in memory and written as soon as space is freed. The run goes on; free some space.`,
    };
  }
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || (typeof code === 'string' && code.startsWith('SQLITE_BUSY'))) {
    return {
      fault: 'busy',
      message: `Another process is holding the database${where} for writing: writes are kept and retried. The run goes on.`,
    };
  }
  return { fault: 'other', message: `Writing to the database${where} failed (${detail}): writes are kept and retried. The run goes on.` };
}

/** Whether queued writes reach the file; `paused` keeps them in memory until the fault clears. */
export type WriterStatus = { state: 'writing' } | { state: 'paused'; fault: WriteFault; message: string; pendingWrites: number };

/**
 * The one write policy of every connection that commits in batches (the engine's samples, the output writer's thread):
 * a refused batch is kept whole and tried again after a backoff; writing is said to pause once the fault is worth
 * telling (a busy file only after BUSY_REPORT_AFTER_MS), and to resume at the first commit that succeeds. Each owner
 * keeps its own batch; this keeps the count, the next try and the status, and says when the status changes.
 */
export class WriteRetry {
  private failures = 0;
  /** Monotonic: when the current run of failed commits began. */
  private failingSince: number | null = null;
  /** Monotonic: no try before this. */
  private retryAtMs = 0;
  private status: WriterStatus = { state: 'writing' };
  /** What the last failed commit met: a busy file is worth waiting a moment for, a full disk is not. */
  lastFault: WriteFault | null = null;

  constructor(
    /** The owner's monotonic milliseconds (the injected clock's, or a worker's own). */
    private readonly nowMs: () => number,
    private readonly onStatusChange: (status: WriterStatus) => void,
    /** Named in the messages, where the owner knows which file it writes. */
    private readonly file?: string,
  ) {}

  /** A commit failed (its transaction rolled back): the next try waits, and the status pauses once worth telling. */
  failed(error: unknown, pendingWrites: number): void {
    const now = this.nowMs();
    this.failures += 1;
    this.failingSince ??= now;
    this.retryAtMs = now + nextRetryDelayMs(this.failures);
    const { fault, message } = describeWriteFault(error, this.file);
    this.lastFault = fault;
    if (faultWorthTelling(fault, now - this.failingSince)) this.setStatus({ state: 'paused', fault, message, pendingWrites });
  }

  /** A commit succeeded: writing resumes. */
  succeeded(): void {
    this.failures = 0;
    this.failingSince = null;
    this.retryAtMs = 0;
    this.lastFault = null;
    if (this.status.state !== 'writing') this.setStatus({ state: 'writing' });
  }

  /** Monotonic ms before which a refused batch is not tried again (0 when nothing failed). */
  get retryAt(): number {
    return this.retryAtMs;
  }

  /** Whether a refused batch may be tried now. */
  mayRetry(): boolean {
    return this.nowMs() >= this.retryAtMs;
  }

  get current(): WriterStatus {
    return this.status;
  }

  /** Whether the writer is paused by a full disk (a retry at close will not change it). */
  get diskFull(): boolean {
    return this.status.state === 'paused' && this.status.fault === 'full';
  }

  private setStatus(next: WriterStatus): void {
    const previous = this.status;
    this.status = next;
    const changed = next.state !== previous.state || (next.state === 'paused' && previous.state === 'paused' && next.fault !== previous.fault);
    if (changed) this.onStatusChange(next);
  }
}

/** How long an engine-side write (a run's ending) keeps retrying a busy or full file before giving up. */
const WRITE_RETRY_BUDGET_MS = 60_000;

export interface RetryWriteOptions {
  /** How long to keep retrying a busy or full file before the last fault is thrown. */
  budgetMs?: number;
  clock?: Clock;
}

/**
 * Runs a synchronous write, retrying it with backoff while the file is busy or full, for up to a minute; the
 * event loop stays free between tries. `onFault` hears each failure (to tell the person what is going on).
 */
export async function retryWrite<T>(write: () => T, onFault: (message: string) => void = () => undefined, options: RetryWriteOptions = {}): Promise<T> {
  const clock = options.clock ?? systemClock;
  const deadline = clock.monotonicMs() + (options.budgetMs ?? WRITE_RETRY_BUDGET_MS);
  for (let failures = 1; ; failures += 1) {
    try {
      return write();
    } catch (error) {
      const { fault, message } = describeWriteFault(error);
      if (fault === 'other' || clock.monotonicMs() >= deadline) throw error;
      onFault(message);
      await new Promise<void>((resolve) => clock.setTimeout(resolve, nextRetryDelayMs(failures)));
    }
  }
}
