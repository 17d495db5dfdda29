// The server's calls, started one after another in short slices of the engine's thread, and only while their answers are being taken: a burst of calls (a script, a flood) never keeps a live run's output waiting.
import { TimeSlice } from '../core/system/timeSlice.js';

/**
 * Calls one connection may have waiting to start: far above what the UI ever sends (a few dozen at once), and
 * a bound on what a client that floods the socket can make the server hold. Past it the connection is closed.
 */
export const MAX_QUEUED_CALLS = 10_000;

/**
 * Characters of answers and events a connection may have sent but not yet written to the operating system before its next call
 * waits. Without a bound a client that reads slower than it asks (1,500 lists of 100 runs in one burst) piled up
 * hundreds of MB of answers, and when its socket took data again Node handed the whole pile to one writev: 0.3-0.9 s
 * of the engine's thread in one turn. A few MB keeps a fast client's pipe full (the UI's biggest answer is ~1 MB).
 */
export const MAX_UNSENT_CHARS = 4 * 1024 * 1024;

/**
 * Starts queued calls in order. A WebSocket hands over every message that arrived in one read at once (thousands
 * of calls in one burst); started back to back they held the thread for seconds. Here the event loop gets a
 * turn whenever a slice (system/timeSlice.ts) is spent, so the pty and the writer's answers are read between calls;
 * and while the connection's unsent messages are over MAX_UNSENT_CHARS the next call waits for them to go.
 */
export class CallQueue {
  private readonly waiting: Array<() => void> = [];
  private draining = false;
  private unsentChars = 0;
  private wakeUp: (() => void) | null = null;

  get size(): number {
    return this.waiting.length;
  }

  push(start: () => void): void {
    this.waiting.push(start);
    if (!this.draining) void this.drain();
  }

  /** A message (an answer or an event) of `chars` characters was handed to the connection's socket. */
  messageQueued(chars: number): void {
    this.unsentChars += chars;
  }

  /** A message counted by `messageQueued` was written to the operating system, or failed with its socket. */
  messageSent(chars: number): void {
    this.unsentChars -= chars;
    if (this.unsentChars <= MAX_UNSENT_CHARS) this.wake();
  }

  /** The connection is gone: calls still waiting are dropped. */
  close(): void {
    this.waiting.length = 0;
    this.wake();
  }

  private wake(): void {
    const wake = this.wakeUp;
    this.wakeUp = null;
    wake?.();
  }

  private async drain(): Promise<void> {
    this.draining = true;
    const slice = new TimeSlice();
    try {
      while (this.waiting.length > 0) {
        if (this.unsentChars > MAX_UNSENT_CHARS) await new Promise<void>((resolve) => (this.wakeUp = resolve));
        const start = this.waiting.shift();
        if (!start) break;
        start();
        await slice.pause();
      }
    } finally {
      this.draining = false;
    }
  }
}
