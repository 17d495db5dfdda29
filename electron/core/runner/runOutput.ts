// A live run's terminal output: merged over a few ms, numbered, stored and sent; its last bytes kept to classify the ending.
import { TextDecoder } from 'node:util';
import { type Clock, realTimeout, type Timer } from '../clock.js';
import type { EventHub } from '../events.js';
import type { OutputWriter } from '../ingest/outputWriter.js';
import type { RunStore } from '../store/runStore.js';
import type { RunFaults } from './runFaults.js';

/** Output is merged over this window before it is stored and sent (STYLE: ~5 ms). */
const MERGE_WINDOW_MS = 5;
/** A merged chunk never grows past this, so one row and one message stay small. */
const MAX_CHUNK_BYTES = 256 * 1024;
/** While output flows, the run's record (its byte count) is re-sent at most this often. */
const PROGRESS_EVENT_INTERVAL_MS = 1000;
/** Kept in memory to classify the exit: failure lines are at the end. */
const OUTPUT_TAIL_BYTES = 64 * 1024;

export class RunOutput {
  /** Real time (performance.now), whatever the engine's clock: the run's end drains the pty's real bytes by it. */
  private lastData = performance.now();
  /** Streaming, so a character split across chunks is decoded whole (faster than StringDecoder here). */
  private readonly decoder = new TextDecoder('utf-8');
  private seq = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private mergeTimer: Timer | null = null;
  /** The last output as bytes, decoded only when the run ends (to classify it). */
  private readonly tail: Buffer[] = [];
  private tailBytes = 0;
  private bytes = 0;
  private lastProgressEventAt: number;

  constructor(
    private readonly runId: number,
    private readonly startedAtMs: number,
    /** Where its chunks are stored: ingest's writer, which commits them on its own thread. */
    private readonly writer: Pick<OutputWriter, 'append'>,
    /** Read for the record re-sent while output flows (its byte count). */
    private readonly runs: RunStore,
    private readonly events: EventHub,
    private readonly faults: RunFaults,
    private readonly clock: Clock,
  ) {
    this.lastProgressEventAt = clock.monotonicMs();
  }

  /** Output from the pty: held for the merge window, or passed on at once when a chunk is full. */
  accept(data: Buffer): void {
    this.lastData = performance.now();
    this.pending.push(data);
    this.pendingBytes += data.length;
    if (this.pendingBytes >= MAX_CHUNK_BYTES) this.flush();
    else
      this.mergeTimer ??= realTimeout(
        this.faults.guarded(this.runId, 'output could not be passed to the store', () => this.flush()),
        MERGE_WINDOW_MS,
      );
  }

  /** When the pty last handed over output: the run's end drains the pty until it has been quiet a while. */
  get lastDataAt(): number {
    return this.lastData;
  }

  /** Stores and sends what is held now, as one numbered chunk. */
  flush(): void {
    this.mergeTimer?.cancel();
    this.mergeTimer = null;
    if (this.pendingBytes === 0) return;
    const data = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    const seq = this.seq++;
    const tMs = this.clock.wallMs() - this.startedAtMs;
    const bytes = data.length;
    // Decoded only for someone watching; the tail keeps a copy. Both before the store takes the buffer.
    const text = this.events.hasSubscribers ? this.decoder.decode(data, { stream: true }) : null;
    this.keepTail(data);
    this.writer.append(this.runId, seq, tMs, data);
    if (text !== null) this.events.emit('runs.onOutput', { runId: this.runId, seq, tMs, data: text });
    this.bytes += bytes;
    const now = this.clock.monotonicMs();
    if (now - this.lastProgressEventAt >= PROGRESS_EVENT_INTERVAL_MS) {
      this.lastProgressEventAt = now;
      // The stored count trails by up to one batch; the live one is what the run has written so far.
      const record = this.runs.get(this.runId);
      if (record) this.events.emit('runs.onDidChange', { ...record, outputBytes: this.bytes });
    }
  }

  /** The last OUTPUT_TAIL_BYTES of output as text, to classify the exit. */
  tailText(): string {
    return new TextDecoder('utf-8').decode(Buffer.concat(this.tail)).slice(-OUTPUT_TAIL_BYTES);
  }

  /** Drops the merge timer; what is still held is not stored. */
  close(): void {
    this.mergeTimer?.cancel();
  }

  /** Keeps (a copy of) the last OUTPUT_TAIL_BYTES of output. */
  private keepTail(data: Buffer): void {
    this.tail.push(Buffer.from(data.subarray(Math.max(0, data.length - OUTPUT_TAIL_BYTES))));
    this.tailBytes += this.tail.at(-1)!.length;
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.length >= OUTPUT_TAIL_BYTES) {
      this.tailBytes -= this.tail.shift()!.length;
    }
  }
}
