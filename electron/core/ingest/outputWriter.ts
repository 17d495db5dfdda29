// The engine's side of the output path: hands chunks to the writer thread (which stores them and has them parsed on the parser thread), and waits for it when asked.
import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import type { MetricSample } from '../metrics/samples.js';
import type { SampleColumns } from '../store/sampleColumns.js';
import type { FromOutputWriter, ParserToEngine, ToOutputWriter } from './outputWriterProtocol.js';
import type { WriterStatus } from '../store/writeFaults.js';
import { BytesFirst } from './writeTurns.js';
import { startIngestWorker } from './workerScript.js';

export class OutputWriter {
  private readonly worker: Worker | null;
  /**
   * Parses live runs' output apart from the writer, so no parse holds a commit back; the writer talks to it directly.
   * Started with the first live run: an import parses on the engine's thread and a read-only command parses nothing,
   * and an idle thread is about 15 MB of an import's memory. Until then the writer's messages wait in `parserPort`.
   */
  private parser: Worker | null = null;
  private parserPort: MessagePort | null = null;
  private readonly waiting = new Map<number, () => void>();
  /** Runs whose end waits for their parsing to catch up (endRun's promise). */
  private readonly parsing = new Map<number, () => void>();
  /** Runs started and not yet ended (live or parsed by the caller). */
  private readonly openRuns = new Set<number>();
  private readonly noticeListeners = new Set<(runId: number, message: string) => void>();
  /** Each thread's end, followed from its start: close() may come after a thread already died. */
  private readonly writerExited: Promise<void>;
  private parserExited: Promise<void> = Promise.resolve();
  /** Shared with every thread that writes long transactions (the parser, the ingest tasks): byte commits go first (see BytesFirst). */
  readonly bytesFirst = new BytesFirst().shared;
  private nextFlushId = 1;
  private closing: Promise<void> | null = null;
  private metricsListener: (runId: number, samples: MetricSample[]) => void = () => undefined;
  private failure: string | null = null;
  /** The bytes' writer and the parser's samples each have a status; the output path is paused while either is. */
  private writerStatus: WriterStatus = { state: 'writing' };
  private parserStatus: WriterStatus = { state: 'writing' };
  private status: WriterStatus = { state: 'writing' };
  private readonly statusListeners = new Set<(status: WriterStatus) => void>();
  private readonly droppingListeners = new Set<(runId: number, limitBytes: number) => void>();

  /**
   * `readOnly`: why the file is open for reading only (a full disk, no write permission). No thread is started
   * then, and anything handed in is refused by the caller's own insert before it gets here.
   */
  constructor(
    private readonly file: string,
    private readonly onError: (message: string) => void = (message) => console.error(`tuning-bench: ${message}`),
    readOnly: string | null = null,
  ) {
    if (readOnly !== null) {
      this.failure = readOnly;
      this.worker = null;
      this.writerExited = Promise.resolve();
      return;
    }
    const channel = new MessageChannel();
    this.parserPort = channel.port1;
    // Held, not listened to, until a live run: it must not keep a finished CLI alive.
    this.parserPort.unref();
    const worker = startIngestWorker('outputWriterWorker', { file, parserPort: channel.port2, bytesFirst: this.bytesFirst }, [channel.port2]);
    this.worker = worker;
    this.writerExited = new Promise((resolve) => worker.once('exit', () => resolve()));
    // Like the batch timer: pending output must not keep a finished CLI alive; close() waits for it.
    worker.unref();
    worker.on('message', (message: FromOutputWriter) => {
      if (this.hearFromEither(message)) return;
      if (message.type === 'flushed') {
        this.waiting.get(message.id)?.();
        this.waiting.delete(message.id);
      } else if (message.type === 'status') {
        this.writerStatus = message.status;
        this.announceStatus();
      } else if (message.type === 'dropping') {
        for (const listener of [...this.droppingListeners]) listener(message.runId, message.limitBytes);
      } else if (message.type === 'closed' && message.lostChunks > 0) {
        onError(
          `${message.lostChunks} chunks of output could not be stored before closing: ${this.status.state === 'paused' ? this.status.message : 'the database refused them'}`,
        );
      }
    });
    worker.on('error', (error) => {
      this.failure = error.message;
      onError(`the output writer stopped: ${error.message}`);
      for (const resolve of [...this.waiting.values(), ...this.parsing.values()]) resolve();
      this.waiting.clear();
      this.parsing.clear();
    });
  }

  /** The parser thread, started once: the first live run's messages have waited for it in its port. */
  private startParser(): void {
    const port = this.parserPort;
    if (this.parser !== null || port === null) return;
    this.parserPort = null;
    const parser = startIngestWorker('outputParserWorker', { file: this.file, port, bytesFirst: this.bytesFirst }, [port]);
    this.parser = parser;
    this.parserExited = new Promise((resolve) => parser.once('exit', () => resolve()));
    parser.unref();
    parser.on('error', (error) => this.onError(`the output parser stopped (output is still stored; metrics of live runs stop): ${error.message}`));
    parser.on('message', (message: ParserToEngine) => {
      if (this.hearFromEither(message)) return;
      if (message.type === 'status') {
        this.parserStatus = message.status;
        this.announceStatus();
      }
    });
  }

  /** What the writer and the parser both say (a live run's samples, a run parsed to its end, notices, faults); true when it was that. */
  private hearFromEither(message: FromOutputWriter | ParserToEngine): boolean {
    switch (message.type) {
      case 'metrics':
        this.metricsListener(message.runId, message.samples);
        return true;
      case 'runParsed':
        this.parsing.get(message.runId)?.();
        this.parsing.delete(message.runId);
        return true;
      case 'notice':
        for (const listener of [...this.noticeListeners]) listener(message.runId, message.message);
        return true;
      case 'error':
        this.onError(message.message);
        return true;
      default:
        return false;
    }
  }

  private announceStatus(): void {
    const next = this.writerStatus.state === 'paused' ? this.writerStatus : this.parserStatus;
    const changed = next.state !== this.status.state || (next.state === 'paused' && this.status.state === 'paused' && next.fault !== this.status.fault);
    this.status = next;
    if (changed) for (const listener of [...this.statusListeners]) listener(next);
  }

  /** Hears what a person should know of a run's parsing (its pattern switched off for being slow, output left unparsed). */
  onNotice(listener: (runId: number, message: string) => void): () => void {
    this.noticeListeners.add(listener);
    return () => this.noticeListeners.delete(listener);
  }

  onStatus(listener: (status: WriterStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  currentStatus(): WriterStatus {
    return this.status;
  }

  /** Hears when a run's output starts to be dropped: writing is paused and the held-back output reached its limit. */
  onDropping(listener: (runId: number, limitBytes: number) => void): () => void {
    this.droppingListeners.add(listener);
    return () => this.droppingListeners.delete(listener);
  }

  /** How much output may wait in memory while the file refuses it. */
  setHeldOutputLimit(bytes: number): void {
    if (!this.closing && !this.failure) this.post({ type: 'setHeldOutputLimit', bytes });
  }

  /** Caps the file at this many pages on the worker's connection (SQLite's max_page_count). */
  setMaxPageCount(pages: number): void {
    if (!this.closing && !this.failure) this.post({ type: 'setMaxPageCount', pages });
  }

  onMetrics(listener: (runId: number, samples: MetricSample[]) => void): void {
    this.metricsListener = listener;
  }

  /** A live run: parsed on the writer thread (bar floods thinned by arrival), its committed samples back through `onMetrics`. */
  startRun(runId: number, options: { metricRegex: string }): void {
    if (this.closing || this.failure) return;
    this.startParser();
    this.openRuns.add(runId);
    this.post({ type: 'startRun', runId, metricRegex: options.metricRegex });
  }

  /**
   * A run whose text the caller parses itself (an import: the engine's thread parses while this
   * thread stores, so the two halves of the work overlap): each chunk comes with its samples through
   * appendParsed, and the last through endRun; they are committed with the output and not sent back
   * (nothing listens, and copying millions of samples between threads costs both of them).
   */
  startParsedRun(runId: number): void {
    if (this.closing || this.failure) return;
    this.openRuns.add(runId);
    this.post({ type: 'startParsedRun', runId });
  }

  /** Whether no run's output is being recorded now: a pause of this thread (see heapRelease.ts) keeps no run's bytes waiting. */
  idle(): boolean {
    return this.openRuns.size === 0;
  }

  /** A chunk of a run started with startParsedRun, with the samples parsed from it (the buffer moves as with append). */
  appendParsed(runId: number, seq: number, tMs: number, data: Buffer, samples: SampleColumns): void {
    if (this.closing || this.failure) return;
    const { packed, transfer } = samples.pack();
    this.worker?.postMessage({ type: 'chunk', runId, seq, tMs, data, samples: packed } satisfies ToOutputWriter, [...movable(data), ...transfer]);
  }

  /**
   * The run's output is complete. Resolves once its parsing has caught up with all of it (a live run's parser may
   * lag behind the store) and its last samples are committed, or kept for retry when the file refuses them.
   * `samples`: the last ones parsed by the caller, for a run started with startParsedRun.
   */
  endRun(runId: number, tMs: number, samples?: SampleColumns): Promise<void> {
    this.openRuns.delete(runId);
    if (this.closing || this.failure) return Promise.resolve();
    this.worker?.ref();
    const parsed = new Promise<void>((resolve) =>
      this.parsing.set(runId, () => {
        if (this.waiting.size === 0 && this.parsing.size <= 1 && !this.closing) this.worker?.unref();
        resolve();
      }),
    );
    if (samples === undefined) this.post({ type: 'endRun', runId, tMs });
    else {
      const { packed, transfer } = samples.pack();
      this.worker?.postMessage({ type: 'endRun', runId, tMs, samples: packed } satisfies ToOutputWriter, transfer);
    }
    return parsed;
  }

  /** Hands the chunk over; a buffer that owns its whole memory is moved, not copied, and must not be used after. */
  append(runId: number, seq: number, tMs: number, data: Buffer): void {
    if (this.closing || this.failure) return;
    this.worker?.postMessage({ type: 'chunk', runId, seq, tMs, data } satisfies ToOutputWriter, movable(data));
  }

  /** Resolves once everything appended so far is committed. */
  flush(): Promise<void> {
    if (this.closing || this.failure) return this.closing ?? Promise.resolve();
    const id = this.nextFlushId++;
    this.worker?.ref();
    return new Promise<void>((resolve) => {
      this.waiting.set(id, () => {
        if (this.waiting.size <= 1 && this.parsing.size === 0 && !this.closing) this.worker?.unref();
        resolve();
      });
      this.post({ type: 'flush', id });
    });
  }

  /** The writer commits what waits and closes its connection, then the parser closes its own; both threads end. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      // Both threads hold the process until they are done: their ends are what close() waits for.
      this.parser?.ref();
      // A parser never started: its end of the channel is closed here, which closes the writer's end (it would keep that thread alive).
      this.parserPort?.close();
      this.parserPort = null;
      if (!this.failure) {
        this.worker?.ref();
        this.post({ type: 'close' });
        await this.writerExited;
      }
      // Anything still waiting on a run's parse has its answer: nothing more will come.
      for (const resolve of this.parsing.values()) resolve();
      this.parsing.clear();
      // A writer that died never told the parser to close: it is ended here.
      if (this.failure) await this.parser?.terminate();
      await this.parserExited;
    })();
    return this.closing;
  }

  private post(message: ToOutputWriter): void {
    this.worker?.postMessage(message);
  }
}

/** A buffer that is the whole of its memory is moved to the writer thread (the transfer list), not copied. */
function movable(data: Buffer): ArrayBuffer[] {
  const memory = data.buffer;
  return data.byteOffset === 0 && memory.byteLength === data.length && memory instanceof ArrayBuffer ? [memory] : [];
}
