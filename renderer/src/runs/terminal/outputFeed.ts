// The data path into one run's terminal: a bounded replay, live events in seq order, gaps filled from the store, one write per frame.
import type { ApiClient, EventPayload, OutputChunk } from '../../../../electron/shared/api.js';
import { errorMessage, formatBytes } from '../../shared/format.js';
import type { RunOutputAcks } from './outputAcks.js';
import { TimestampPrefixer } from './timestampPrefixer.js';

/** Opening a run shows at most its last MiB: xterm keeps 5,000 lines of scrollback, and parsing more only costs time. */
export const REPLAY_BYTES = 1024 * 1024;
/** A view that fell behind by up to this much is shown everything it missed; beyond it, a notice and a jump to the end. */
export const CATCH_UP_BUDGET_BYTES = 1024 * 1024;
/** What a jump ahead shows: the end of the log, several screens even of long progress-bar lines. */
export const JUMP_TAIL_BYTES = 256 * 1024;
/** One page of a catch-up; the engine merges output into chunks of at most 256 KiB, so about one chunk a page. */
const CATCH_UP_PAGE_BYTES = 256 * 1024;
/** Ends a catch-up whose gap was sized wrong (sizes are estimated from decoded text) before it runs away. */
const CATCH_UP_MAX_PAGES = 64;
/**
 * Half the engine's high watermark (100,000 chars) received and not yet drawn: its live events may have been held
 * back. Output that stops right then leaves no later event to reveal the gap, so the feed looks once output is quiet.
 */
const MAYBE_HELD_CHARS = 50_000;
const QUIET_CHECK_MS = 1_000;
/**
 * Catch-ups in a row that brought nothing new before a gap is accepted as is. More than one: the engine may send an
 * event while the page it is answering is still being read, so the first look can come back just short of it.
 */
const FRUITLESS_CATCH_UPS_BEFORE_SKIPPING = 3;

/** RIS (full reset): clears screen and scrollback and resets modes, in order with the writes around it. */
const FULL_RESET = '\x1bc';

type LiveEvent = EventPayload<'runs.onOutput'>;

/** The part of xterm the feed writes to. */
export interface FeedTerminal {
  write(data: string, callback?: () => void): void;
}

export interface OutputFeedOptions {
  runId: number;
  /** Lines a replay or a jump ahead shows at most: fewer than the scrollback holds, so its notice stays in reach. */
  maxLines: number;
  api: Pick<ApiClient, 'runs.output'>;
  terminal: FeedTerminal;
  acks: RunOutputAcks;
  timestamps: boolean;
  /** A fetch of stored output failed (a message), or worked again (null). */
  onError: (message: string | null) => void;
}

/** Bytes the engine stored for this text: gaps are sized in stored bytes, and the text is what the store's bytes decoded to. */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * The part of `chunks` that ends in at most `maxLines` lines, and the bytes left out before it. A notice above
 * more lines than the scrollback holds would be pushed out of it at once, and parsing lines that scroll away costs time.
 */
export function keepLastLines(chunks: readonly OutputChunk[], maxLines: number): { chunks: OutputChunk[]; droppedBytes: number } {
  let lines = 0;
  for (let c = chunks.length - 1; c >= 0; c -= 1) {
    const chunk = chunks[c]!;
    for (let i = chunk.data.length - 1; i >= 0; i -= 1) {
      if (chunk.data.charCodeAt(i) !== 0x0a) continue;
      lines += 1;
      if (lines <= maxLines) continue;
      const before = chunks.slice(0, c).reduce((bytes, dropped) => bytes + utf8Length(dropped.data), 0);
      return {
        chunks: [{ ...chunk, data: chunk.data.slice(i + 1) }, ...chunks.slice(c + 1)],
        droppedBytes: before + utf8Length(chunk.data.slice(0, i + 1)),
      };
    }
  }
  return { chunks: [...chunks], droppedBytes: 0 };
}

/** A line of the feed's own, dim, on a line of its own; never part of the stored log. */
function noticeLine(text: string): string {
  return `\x1b[0;2m[tuning-bench: ${text}]\x1b[0m\r\n`;
}

const SGR_PARAMS = /^[\d;]*$/u;

/** Ends with a line break, perhaps followed by colour changes: a notice after it needs no line break of its own. */
function endsLine(whole: string): boolean {
  // A few trailing resets at most; the whole text may be a MiB.
  const text = whole.slice(-64);
  let end = text.length;
  while (end > 0 && text[end - 1] === 'm') {
    const start = text.lastIndexOf('\x1b[', end - 1);
    if (start < 0 || !SGR_PARAMS.test(text.slice(start + 2, end - 1))) break;
    end = start;
  }
  return text[end - 1] === '\n';
}

export class OutputFeed {
  /** The highest seq written to the terminal (or queued for its next frame). */
  private lastShownSeq = -1;
  /** Stored bytes up to lastShownSeq, as the UTF-8 length of the text shown; sizes a gap. */
  private shownBytes = 0;
  private fetching = false;
  private fetchAgain = false;
  private fruitlessFetches = 0;
  /** Live events that came while stored output was being fetched, or after a gap: unacknowledged until drawn. */
  private held: LiveEvent[] = [];
  private frameText: string[] = [];
  private frameLiveChars = 0;
  private frame = 0;
  private undrawnLiveChars = 0;
  private maybeHeld = false;
  private quietTimer: ReturnType<typeof setTimeout> | undefined;
  private endsLine = true;
  private disposed = false;
  private readonly prefixer: TimestampPrefixer | null;

  constructor(private readonly options: OutputFeedOptions) {
    this.prefixer = options.timestamps ? new TimestampPrefixer() : null;
  }

  /** Clears the terminal and replays the end of the stored output; live events given meanwhile wait for it. */
  start(): void {
    // Queued behind whatever an earlier feed (the other view mode) left xterm to parse; harmless on a new terminal.
    this.enqueue(FULL_RESET, 0);
    this.endsLine = true;
    void this.fetch(() => this.replay());
  }

  /** One live event of this run. */
  live(event: LiveEvent): void {
    if (this.disposed) return;
    clearTimeout(this.quietTimer);
    this.undrawnLiveChars += event.data.length;
    if (this.undrawnLiveChars > MAYBE_HELD_CHARS) this.maybeHeld = true;
    if (this.fetching) {
      this.held.push(event);
    } else if (event.seq <= this.lastShownSeq) {
      this.dropLive(event);
    } else if (event.seq === this.lastShownSeq + 1) {
      this.showLive(event);
    } else {
      // The engine held events back while this view was behind: the store has them.
      this.held.push(event);
      this.catchUp();
    }
  }

  /** Shows whatever was stored after what is on screen: after a gap, a reconnect, or the run's end. */
  catchUp(): void {
    void this.fetch(() => this.fillGap());
  }

  dispose(): void {
    this.disposed = true;
    cancelAnimationFrame(this.frame);
    clearTimeout(this.quietTimer);
    this.held = [];
    this.frameText = [];
  }

  /** One fetch at a time, in order with the live events: those arriving meanwhile are held and drained after. */
  private async fetch(task: () => Promise<void>): Promise<void> {
    if (this.fetching) {
      this.fetchAgain = true;
      return;
    }
    this.fetching = true;
    const shownBefore = this.lastShownSeq;
    let failed = false;
    try {
      await task();
      while (this.fetchAgain && !this.disposed) {
        this.fetchAgain = false;
        await this.fillGap();
      }
      if (!this.disposed) this.options.onError(null);
    } catch (error) {
      failed = true;
      if (!this.disposed) this.options.onError(errorMessage(error));
    } finally {
      this.fetching = false;
      this.fetchAgain = false;
    }
    this.fruitlessFetches = this.lastShownSeq === shownBefore ? this.fruitlessFetches + 1 : 0;
    // A gap the store cannot fill (a failed fetch, or nothing newer stored, again and again) is skipped, not chased
    // in a loop; the next live event past it starts another catch-up.
    if (!this.disposed) this.drainHeld(failed || this.fruitlessFetches >= FRUITLESS_CATCH_UPS_BEFORE_SKIPPING);
  }

  private async replay(): Promise<void> {
    const { api, runId } = this.options;
    const page = await api['runs.output']({ id: runId, fromEnd: true, maxBytes: REPLAY_BYTES });
    if (this.disposed) return;
    const { chunks, droppedBytes } = keepLastLines(page.chunks, this.options.maxLines);
    const hidden = page.skippedBytes + droppedBytes;
    if (hidden > 0) this.notice(`the first ${formatBytes(hidden)} are not shown here; download the log for all of it`);
    this.shownBytes = hidden;
    for (const chunk of chunks) if (chunk.seq > this.lastShownSeq) this.showChunk(chunk);
  }

  /**
   * Asks for the end of the log first: it often covers the whole gap, and its `skippedBytes` sizes the gap.
   * Up to CATCH_UP_BUDGET_BYTES missing: paged in, all of it. More: a notice, and the end only.
   */
  private async fillGap(): Promise<void> {
    const { api, runId } = this.options;
    const tail = await api['runs.output']({ id: runId, fromEnd: true, maxBytes: JUMP_TAIL_BYTES });
    if (this.disposed) return;
    const first = tail.chunks[0];
    let chunks = tail.chunks;
    if (first && first.seq > this.lastShownSeq + 1) {
      if (tail.skippedBytes - this.shownBytes <= CATCH_UP_BUDGET_BYTES) await this.pageUpTo(first.seq);
      if (this.disposed) return;
      if (first.seq > this.lastShownSeq + 1) {
        const kept = keepLastLines(tail.chunks, this.options.maxLines);
        const missing = Math.max(0, tail.skippedBytes + kept.droppedBytes - this.shownBytes);
        this.notice(`${formatBytes(missing)} of output not shown live to keep the view responsive; it is all in the stored log`);
        this.shownBytes = tail.skippedBytes + kept.droppedBytes;
        chunks = kept.chunks;
      }
    }
    for (const chunk of chunks) if (chunk.seq > this.lastShownSeq) this.showChunk(chunk);
  }

  /** Pages stored output in after what is shown, up to (not including) `endSeq`, within the catch-up budget. */
  private async pageUpTo(endSeq: number): Promise<void> {
    const { api, runId } = this.options;
    let bytes = 0;
    for (let page = 0; page < CATCH_UP_MAX_PAGES && this.lastShownSeq + 1 < endSeq; page += 1) {
      const { chunks } = await api['runs.output']({ id: runId, afterSeq: this.lastShownSeq, maxBytes: CATCH_UP_PAGE_BYTES });
      if (this.disposed) return;
      const wanted = chunks.filter((chunk) => chunk.seq > this.lastShownSeq && chunk.seq < endSeq);
      if (wanted.length === 0) return;
      for (const chunk of wanted) bytes += this.showChunk(chunk);
      if (bytes > CATCH_UP_BUDGET_BYTES) return;
    }
  }

  private drainHeld(skipGaps: boolean): void {
    const events = this.held.sort((a, b) => a.seq - b.seq);
    this.held = [];
    for (let i = 0; i < events.length; i += 1) {
      const event = events[i]!;
      if (event.seq <= this.lastShownSeq) {
        this.dropLive(event);
      } else if (event.seq === this.lastShownSeq + 1 || skipGaps) {
        this.showLive(event);
      } else {
        // Still a gap: look again; fruitless looks are counted only while a gap waits.
        this.held = events.slice(i);
        this.catchUp();
        return;
      }
    }
    this.fruitlessFetches = 0;
  }

  private showChunk(chunk: OutputChunk): number {
    const bytes = utf8Length(chunk.data);
    this.lastShownSeq = chunk.seq;
    this.shownBytes += bytes;
    this.enqueue(this.render(chunk.data, chunk.tMs), 0);
    return bytes;
  }

  private showLive(event: LiveEvent): void {
    this.lastShownSeq = event.seq;
    this.shownBytes += utf8Length(event.data);
    this.enqueue(this.render(event.data, event.tMs), event.data.length);
  }

  /** A duplicate of what is shown: acknowledged at once, or the engine would count it against this view for good. */
  private dropLive(event: LiveEvent): void {
    this.undrawnLiveChars -= event.data.length;
    this.options.acks.drawn(event.data.length);
  }

  private render(data: string, tMs: number): string {
    return this.prefixer ? this.prefixer.transform(data, tMs) : data;
  }

  private notice(text: string): void {
    this.enqueue(`${this.endsLine ? '' : '\r\n'}${noticeLine(text)}`, 0);
    this.prefixer?.lineBreak();
  }

  /** Everything queued within one animation frame becomes one xterm write: fewer parses, one render. */
  private enqueue(text: string, liveChars: number): void {
    if (text === '' && liveChars === 0) return;
    if (text !== '') this.endsLine = endsLine(text);
    this.frameText.push(text);
    this.frameLiveChars += liveChars;
    this.frame ||= requestAnimationFrame(() => this.flush());
  }

  private flush(): void {
    this.frame = 0;
    if (this.disposed || this.frameText.length === 0) return;
    const text = this.frameText.join('');
    const liveChars = this.frameLiveChars;
    this.frameText = [];
    this.frameLiveChars = 0;
    // Acknowledged when xterm has parsed it, not on receipt: that is what keeps a slow view from being flooded.
    this.options.terminal.write(text, () => this.drawn(liveChars));
  }

  private drawn(liveChars: number): void {
    if (this.disposed) return;
    this.undrawnLiveChars -= liveChars;
    if (liveChars > 0) this.options.acks.drawn(liveChars);
    const idle = !this.fetching && this.frame === 0 && this.held.length === 0 && this.undrawnLiveChars <= 0;
    if (this.maybeHeld && idle) {
      clearTimeout(this.quietTimer);
      this.quietTimer = setTimeout(() => {
        this.maybeHeld = false;
        this.catchUp();
      }, QUIET_CHECK_MS);
    }
  }
}
