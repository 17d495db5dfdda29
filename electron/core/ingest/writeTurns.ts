// Turns at the file's one write lock: the writer thread's byte commits go first, and bulk writers (samples, a
// reparse) leave the lock free between their transactions for the engine's own writes.

/**
 * SQLite's busy handler is a sleep, not a queue: a connection that commits back to back (the parser storing a
 * flood's samples) takes the lock again before a sleeping waiter wakes, and byte commits waited up to half a
 * second for it (measured at 100,000 step lines/s). A counter shared by the two threads says a byte commit wants
 * the lock; the parser does not begin a transaction while it is raised.
 */
export class BytesFirst {
  private readonly wanting: Int32Array;

  /** `shared`: the same 4 bytes on both threads (passed in workerData); a new one when omitted. */
  constructor(readonly shared: SharedArrayBuffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)) {
    this.wanting = new Int32Array(shared);
  }

  /** The writer thread: runs a byte commit with the parser's transactions held off. */
  commit<T>(work: () => T): T {
    Atomics.add(this.wanting, 0, 1);
    try {
      return work();
    } finally {
      if (Atomics.sub(this.wanting, 0, 1) === 1) Atomics.notify(this.wanting, 0);
    }
  }

  /** The parser thread: blocks until no byte commit wants the lock, or `maxWaitMs` passed (a commit stuck on another process's lock). */
  awaitTurn(maxWaitMs: number): void {
    const deadline = performance.now() + maxWaitMs;
    for (let wanting = Atomics.load(this.wanting, 0); wanting > 0; wanting = Atomics.load(this.wanting, 0)) {
      const left = deadline - performance.now();
      if (left <= 0) return;
      Atomics.wait(this.wanting, 0, wanting, left);
    }
  }
}

/**
 * After a bulk transaction (a batch of samples), the lock is left free at least this long, and at least as long
 * as the transaction took. Other connections waiting for it (the engine's thread recording a run's ending, its
 * telemetry) only look again after SQLite's busy handler sleeps (1, 2, 5, 10, 15, 20, 25 ms...): back-to-back
 * bulk transactions kept the engine's thread waiting for seconds (measured during an 8 MB import).
 */
export const BULK_WRITE_GAP_MS = 10;
/**
 * The gap while no run is being recorded (an import from the CLI, or from the app between runs): the engine's
 * thread then writes only what a person does (a rename, a note), which may wait a few of the busy handler's
 * sleeps, and no pty waits behind it. The writer thread still takes messages between transactions.
 */
export const BULK_WRITE_GAP_NOTHING_RECORDING_MS = 1;

/**
 * How long to leave the lock free after a bulk transaction that took `tookMs`: a duty cycle of at most a half
 * while a run is recorded (`recording`), whose telemetry and ending the engine's thread writes; otherwise a
 * millisecond (a half left an import's writer idle half its time).
 */
export function bulkWriteGapMs(tookMs: number, recording = true): number {
  return recording ? Math.max(BULK_WRITE_GAP_MS, tookMs) : BULK_WRITE_GAP_NOTHING_RECORDING_MS;
}

const sleeper = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));

/** Blocks a worker thread (never the engine's) for `ms`: a thread whose work is a loop of transactions pauses this way. */
export function sleepThread(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}
