// Imports a face sends in pieces (the UI's file import): each session feeds the streamed importer, answers how much it has, and is cancelled when abandoned.
import { randomUUID } from 'node:crypto';
import type { Run } from '../../shared/api.js';
import type { Clock, Timer } from '../clock.js';
import { DEFAULT_MAX_IMPORT_BYTES, importLogPieces, ImportTooLarge, type ImportTarget } from './importLog.js';

/**
 * A session that hears nothing for this long was left by its page (closed, reloaded, its socket gone): its
 * half-imported run is removed. A piece is at most a few MiB and a page sends the next as soon as one is
 * answered, so two minutes of silence is never a slow page.
 */
export const IMPORT_IDLE_MS = 120_000;

/** At most this many imports at once: each holds a piece in memory and a run being written. */
const MAX_OPEN_IMPORTS = 4;

export class ImportSessionError extends Error {
  constructor(
    message: string,
    readonly kind: 'not_found' | 'invalid_input' | 'unavailable',
  ) {
    super(message);
    this.name = 'ImportSessionError';
  }
}

/**
 * Pieces handed to an async reader one at a time: `push` resolves once the reader has taken the piece, so a
 * sender waits for the importer and no more than one piece is ever held here.
 */
class PieceQueue implements AsyncIterable<Buffer> {
  private waiting: { piece: Buffer; taken: () => void } | null = null;
  private wake: (() => void) | null = null;
  private ended = false;
  private failure: Error | null = null;

  push(piece: Buffer): Promise<void> {
    if (this.ended) return Promise.reject(new ImportSessionError('this import has ended; start another', 'invalid_input'));
    return new Promise((resolve) => {
      this.waiting = { piece, taken: resolve };
      this.wake?.();
    });
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  fail(error: Error): void {
    this.failure = error;
    this.end();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    for (;;) {
      if (this.waiting !== null) {
        const { piece, taken } = this.waiting;
        this.waiting = null;
        taken();
        yield piece;
        continue;
      }
      if (this.failure !== null) throw this.failure;
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
  }
}

interface ImportSession {
  pieces: PieceQueue;
  /** The importer's answer: the run, once every piece is in and the summary is made. */
  result: Promise<Run>;
  receivedBytes: number;
  idle: Timer;
}

export class ImportSessions {
  private readonly sessions = new Map<string, ImportSession>();

  constructor(
    private readonly target: ImportTarget,
    private readonly clock: Clock,
  ) {}

  /** A new import; its pieces follow with `append`, in order. */
  begin(request: { name: string; totalBytes: number | null; maxBytes?: number }): { importId: string } {
    if (this.sessions.size >= MAX_OPEN_IMPORTS) {
      throw new ImportSessionError(`${MAX_OPEN_IMPORTS} imports are already under way; wait for one to end`, 'unavailable');
    }
    const limit = request.maxBytes ?? DEFAULT_MAX_IMPORT_BYTES;
    if (request.totalBytes !== null && request.totalBytes > limit) throw new ImportTooLarge(limit);
    const importId = randomUUID();
    const pieces = new PieceQueue();
    const result = importLogPieces(
      this.target,
      { name: request.name, source: request.name, now: this.clock.now(), maxBytes: limit },
      request.totalBytes,
      pieces,
    );
    // Read by finish(); a failure before then (too large, cancelled) must not go unhandled meanwhile.
    result.catch(() => undefined);
    const session: ImportSession = { pieces, result, receivedBytes: 0, idle: this.idleTimer(importId) };
    this.sessions.set(importId, session);
    return { importId };
  }

  /** One more piece of the log; answers how many bytes the import has so far. */
  async append(importId: string, text: string): Promise<{ receivedBytes: number }> {
    const session = this.require(importId);
    session.idle.cancel();
    const piece = Buffer.from(text, 'utf8');
    session.receivedBytes += piece.length;
    // Taken by the importer, or refused by it (too large): either way the sender hears now.
    await Promise.race([session.pieces.push(piece), session.result.then(() => undefined)]).catch(async (error: unknown) => {
      this.forget(importId);
      throw error;
    });
    session.idle = this.idleTimer(importId);
    return { receivedBytes: session.receivedBytes };
  }

  /** Every piece is in: the run, parsed and summarised. */
  async finish(importId: string): Promise<Run> {
    const session = this.require(importId);
    session.idle.cancel();
    session.pieces.end();
    try {
      return await session.result;
    } finally {
      this.sessions.delete(importId);
    }
  }

  /** Abandoned: what was stored of it is removed. */
  async cancel(importId: string): Promise<void> {
    const session = this.sessions.get(importId);
    if (!session) return;
    this.forget(importId);
    await session.result.catch(() => undefined);
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((importId) => this.cancel(importId)));
  }

  private require(importId: string): ImportSession {
    const session = this.sessions.get(importId);
    if (!session) throw new ImportSessionError('no such import under way (it ended, or was idle too long): start it again', 'not_found');
    return session;
  }

  private forget(importId: string): void {
    const session = this.sessions.get(importId);
    if (!session) return;
    session.idle.cancel();
    this.sessions.delete(importId);
    session.pieces.fail(new ImportSessionError('the import was cancelled; nothing was kept', 'invalid_input'));
  }

  private idleTimer(importId: string): Timer {
    return this.clock.setTimeout(() => void this.cancel(importId), IMPORT_IDLE_MS, { background: true });
  }
}
