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
