// One database file as the engine records into it: the Store (records and samples, on this thread's connection) and
// ingest's OutputWriter (terminal output and its parsing, on threads of their own with their own connection). Opened
// in that order (the writer's connection finds the schema migrated), flushed, watched and closed together. The runner
// and the importer write output to the writer; nothing reaches it through the store.
import type { Clock } from '../clock.js';
import type { WriterStatus } from '../store/writeFaults.js';
import type { MigrationNotice } from '../store/open.js';
import { Store } from '../store/store.js';
import { OutputWriter } from './outputWriter.js';

export interface RecordingOptions {
  /** A file that can be read but not written opens for reading (the CLI's `runs` on a full disk) instead of being refused. */
  readOnlyFallback?: boolean;
  onMigrating?: MigrationNotice;
}

export class Recording {
  private constructor(
    readonly store: Store,
    readonly output: OutputWriter,
  ) {}

  static open(file: string, clock: Clock, options: RecordingOptions = {}): Recording {
    const store = new Store(file, clock, options);
    try {
      // A read-only file starts no writer threads: the writer only answers, with the reason.
      return new Recording(store, new OutputWriter(file, undefined, store.readOnly?.reason ?? null));
    } catch (error) {
      void store.close();
      throw error;
    }
  }

  /** Everything queued so far (samples here, output on the writer's thread) committed, or kept for retry if the file refuses it. */
  async flush(): Promise<void> {
    await this.store.flush();
    await this.output.flush();
  }

  /**
   * Whether samples and output reach the file: paused while either connection waits out a fault (a full disk, a busy
   * file), with what to tell the person; `writing` again once both have caught up.
   */
  onWriteStatus(listener: (status: WriterStatus) => void): () => void {
    const report = () => listener(this.writeStatus());
    const offSamples = this.store.writer.onStatus(report);
    const offOutput = this.output.onStatus(report);
    return () => {
      offSamples();
      offOutput();
    };
  }

  writeStatus(): WriterStatus {
    const samples = this.store.writer.currentStatus();
    return samples.state === 'paused' ? samples : this.output.currentStatus();
  }

  /** Caps the file at this many pages on both connections (SQLite's max_page_count), as a full disk would. */
  setMaxPageCount(pages: number): void {
    this.store.setMaxPageCount(pages);
    this.output.setMaxPageCount(pages);
  }

  /** The writer's threads first (their last commits), then this thread's connection. */
  async close(): Promise<void> {
    await this.output.close();
    await this.store.close();
  }
}
