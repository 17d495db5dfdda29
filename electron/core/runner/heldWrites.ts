// A run's closing writes (its ending, then its GPU record, git, summary, series) that a full disk or a long lock
// refused past the retry budget: kept in memory in order and retried until the file takes them or the engine closes.
import type { Clock, Timer } from '../clock.js';
import { describeWriteFault, nextRetryDelayMs } from '../store/writeFaults.js';

interface HeldWrite {
  runId: number;
  write: () => unknown;
}

export class HeldWrites {
  private readonly queue: HeldWrite[] = [];
  private timer: Timer | null = null;
  private failures = 0;
  private closed = false;

  constructor(
    private readonly clock: Clock,
    /** All of a run's held writes are stored now. */
    private readonly onStored: (runId: number) => void,
    /** A held write failed for another reason than a full or busy file: it is dropped, and said. */
    private readonly onFailed: (runId: number, error: unknown) => void,
    /** How one try is made: without waiting out another process's lock, which would hold the engine's thread. */
    private readonly attempt: (write: () => unknown) => unknown = (write) => write(),
  ) {}

  /** Whether some of this run's closing writes wait in memory (its later ones then wait behind them, in order). */
  holds(runId: number): boolean {
    return this.queue.some((held) => held.runId === runId);
  }

  /** The runs whose ending (or a later closing write) is not in the file yet. */
  unstoredRuns(): number[] {
    return [...new Set(this.queue.map((held) => held.runId))];
  }

  hold(runId: number, write: () => unknown): void {
    this.queue.push({ runId, write });
    this.schedule();
  }

  /** Tries every held write now, in order, stopping at the first the file still refuses; returns the runs still unstored. */
  tryNow(): number[] {
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      try {
        this.attempt(next.write);
      } catch (error) {
        if (describeWriteFault(error).fault !== 'other') return this.unstoredRuns();
        this.queue.shift();
        this.onFailed(next.runId, error);
        continue;
      }
      this.queue.shift();
      this.failures = 0;
      if (!this.holds(next.runId)) this.onStored(next.runId);
    }
    return [];
  }

  /** A last try; what is still refused is lost with the process (recovery then marks those runs interrupted). */
  close(): number[] {
    this.closed = true;
    this.timer?.cancel();
    this.timer = null;
    return this.tryNow();
  }

  private schedule(): void {
    if (this.closed || this.timer) return;
    this.failures += 1;
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = null;
        if (this.tryNow().length > 0) this.schedule();
      },
      nextRetryDelayMs(this.failures),
      { background: true },
    );
  }
}
