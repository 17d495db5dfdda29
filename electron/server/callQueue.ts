// The server's calls, started one after another in short slices of the engine's thread: a burst of calls (a script, a flood) never keeps a live run's output waiting.
import { TimeSlice } from '../core/system/timeSlice.js';

/**
 * Calls one connection may have waiting to start: far above what the UI ever sends (a few dozen at once), and
 * a bound on what a client that floods the socket can make the server hold. Past it the connection is closed.
 */
export const MAX_QUEUED_CALLS = 10_000;

/**
 * Starts queued calls in order. A WebSocket hands over every message that arrived in one read at once (thousands
 * of calls in one burst); started back to back they held the thread for seconds. Here the event loop gets a
 * turn whenever a slice (system/timeSlice.ts) is spent, so the pty and the writer's answers are read between calls.
 */
export class CallQueue {
  private readonly waiting: Array<() => void> = [];
  private draining = false;

  get size(): number {
    return this.waiting.length;
  }

  push(start: () => void): void {
    this.waiting.push(start);
    if (!this.draining) void this.drain();
  }

  private async drain(): Promise<void> {
    this.draining = true;
    const slice = new TimeSlice();
    try {
      while (this.waiting.length > 0) {
        this.waiting.shift()!();
        await slice.pause();
      }
    } finally {
      this.draining = false;
    }
  }
}
