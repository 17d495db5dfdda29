// Queues small writes (output chunks, samples) and commits them in one transaction at a steady pace.
import type { Db } from './open.js';

/** A crash loses at most this much of what was queued (DESIGN: at most a second). */
export const FLUSH_INTERVAL_MS = 250;

type Write = () => void;

export class BatchWriter {
  private queue: Write[] = [];
  private readonly timer: NodeJS.Timeout;
  private readonly commit: (writes: Write[]) => void;
  private closed = false;

  constructor(db: Db, intervalMs = FLUSH_INTERVAL_MS) {
    this.commit = db.transaction((writes: Write[]) => {
      for (const write of writes) write();
    });
    this.timer = setInterval(() => this.flush(), intervalMs);
    // Pending writes must not keep a CLI process alive; close() flushes what is left.
    this.timer.unref();
  }

  enqueue(write: Write): void {
    if (this.closed) throw new Error('BatchWriter is closed');
    this.queue.push(write);
  }

  flush(): void {
    if (this.queue.length === 0) return;
    const writes = this.queue;
    this.queue = [];
    this.commit(writes);
  }

  close(): void {
    if (this.closed) return;
    clearInterval(this.timer);
    this.flush();
    this.closed = true;
  }
}
