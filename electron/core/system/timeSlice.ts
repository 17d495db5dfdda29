// Cooperative time slices for long work on the engine's thread: it gives the event loop back every few milliseconds, so the pty and the writer's replies are never kept waiting.
import { readWaitingInput } from './waitingInput.js';

/**
 * How long a piece of long work (a download, an import, a reparse, a burst of calls) may hold the engine's
 * thread before it lets the event loop run: well under the merge window's order of magnitude of pty reads
 * queued in the kernel (64 KiB), and a twentieth of the 250 ms a live run's output may wait for its storage.
 */
export const TIME_SLICE_MS = 12;

/** `setImmediate` as a promise: runs after the event loop's poll phase, so pending I/O (the pty) is read first. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Counts real time (not the engine's clock: this is about the thread, which a test's manual clock does not
 * hold) since the slice began; `pause()` yields once the slice is spent and starts a new one.
 */
export class TimeSlice {
  private startedAt = performance.now();

  constructor(private readonly budgetMs = TIME_SLICE_MS) {}

  get spent(): boolean {
    return performance.now() - this.startedAt >= this.budgetMs;
  }

  /**
   * Yields to the event loop when the slice is spent; otherwise resolves at once (a microtask). Either way live
   * terminals are read first (system/waitingInput.ts): a flood fills a terminal faster than slices end.
   */
  async pause(): Promise<void> {
    readWaitingInput();
    if (!this.spent) return;
    await yieldToEventLoop();
    this.startedAt = performance.now();
  }
}
