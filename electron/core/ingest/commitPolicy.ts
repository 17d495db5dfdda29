// When the output writer commits: by wall time and by size, whatever the parser is doing, since the bytes are the record.

/**
 * Output waits at most this long in memory before its commit begins: a crash (kill -9, the OOM killer) loses
 * at most this much of a run plus one commit, well inside DESIGN's second, and a live run's output reaches the
 * file within the 250 ms that issue 26 asks of every path.
 */
export const COMMIT_INTERVAL_MS = 100;
/**
 * A burst is committed as soon as this much waits, so one transaction stays short (a few ms of blob writes)
 * and the memory held between commits stays small, however fast the run writes.
 */
export const COMMIT_MAX_BYTES = 4 * 1024 * 1024;
/**
 * Samples stored in one transaction by a bulk writer (an import's samples on the writer thread, a flood's on the
 * parser thread, a reparse): about 9 ms of block writes here (2.3 million samples a second measured on a dense
 * log; it was 1,000 when a sample was a row, 70,000 a second), so a byte commit that wants the file's write lock
 * never waits long for them; the rest follow in the next transactions.
 */
export const COMMIT_MAX_SAMPLES = 20_000;
/**
 * Samples in one transaction of the live parser thread's flood. Each of its transactions leaves the write lock free
 * at least BULK_WRITE_GAP_MS (10 ms) after it while a run is recorded (writeTurns.ts): at COMMIT_MAX_SAMPLES a
 * transaction took 3.8 ms (median; 9.8 at the 90th percentile) with blocks that store progressions in two numbers,
 * so the gap's floor, not the work, held a flood to about 1 M samples a second (a 10 M-line `run -- cat` spent
 * 37.5 s, 26 of them after the program ended). At 80,000: 13 ms median, 24 at the 90th percentile, 71 at most, about
 * as long as the gap, and 22.8 s. A byte commit never waits behind more than one (writeTurns.ts's BytesFirst).
 */
export const FLOOD_SAMPLES_PER_TRANSACTION = 80_000;

/** Tracks what waits to be committed and says when a commit is due. Times are the writer thread's monotonic ms. */
export class CommitPolicy {
  /** When the oldest uncommitted item arrived; null when nothing waits. */
  private waitingSince: number | null = null;
  private waitingBytes = 0;

  constructor(
    readonly intervalMs = COMMIT_INTERVAL_MS,
    readonly maxBytes = COMMIT_MAX_BYTES,
  ) {}

  /** Something arrived to be committed (`bytes` of output, 0 for samples or counters). */
  noteWaiting(nowMs: number, bytes: number): void {
    this.waitingSince ??= nowMs;
    this.waitingBytes += bytes;
  }

  /** A commit is due: the oldest waiting item is `intervalMs` old, or `maxBytes` wait. */
  isDue(nowMs: number): boolean {
    return this.waitingSince !== null && (nowMs - this.waitingSince >= this.intervalMs || this.waitingBytes >= this.maxBytes);
  }

  /** Milliseconds until a commit is due by time (0 when due now), or null when nothing waits. */
  dueInMs(nowMs: number): number | null {
    if (this.waitingSince === null) return null;
    return this.waitingBytes >= this.maxBytes ? 0 : Math.max(0, this.waitingSince + this.intervalMs - nowMs);
  }

  /** What waited is committed; `leftWaiting` (samples past the cap) makes the next commit due at once. */
  committed(nowMs: number, leftWaiting: boolean): void {
    this.waitingSince = leftWaiting ? nowMs - this.intervalMs : null;
    this.waitingBytes = 0;
  }
}
