// Streaming terminal output into plain lines: every `\n` line and every `\r` redraw state of a progress bar.
import { stripAnsi } from '../../../shared/ansi.js';

export interface Line {
  /** The text with escape sequences and backspaces removed, without its terminator. */
  text: string;
  /** The time of the chunk that delivered the line's last character (the terminator's, for an empty line). */
  tMs: number;
  /**
   * True for a state the terminal will overwrite: text ended by a lone `\r` (tqdm, Keras and
   * Lightning redraw their bars this way), or a line that moves the cursor up (tqdm's nested bars
   * end each state with `ESC[A`). False for a line the terminal keeps.
   */
  redraw: boolean;
}

/**
 * The most a line may hold, in UTF-16 code units. Longer text is cut into pieces of this size so
 * a stream without line ends (a binary dump, a bar that never ends) cannot grow memory; no metric
 * line comes near it.
 */
export const MAX_LINE_CHARS = 64 * 1024;

const LF = 0x0a;
const ESC = '\u001b';
const C1_CSI = '\u009b';
const BACKSPACE = '\b';
// eslint-disable-next-line no-control-regex -- cursor-up is a control sequence
const CURSOR_UP = /\u001b\[\d*A/u;
// eslint-disable-next-line no-control-regex -- Keras's progbar erases with backspaces before each `\r`
const BACKSPACES = /\u0008/gu;

/**
 * Feed decoded text as it arrives; get back the lines it completed. A line is complete at `\n`
 * (or `\r\n`); a bar state is complete at the next `\r` or `\n`. A `\r` at the very end of a chunk
 * waits for the next chunk, which tells a CRLF from a redraw. Empty and blank redraw states (the
 * spaces tqdm writes to clear its bar) are dropped; empty `\n` lines are kept, so line counts match
 * the log. The same text gives the same lines however it is cut into chunks.
 */
export interface SplitterOptions {
  /**
   * Redraw states closer together than this (stream time) are dropped, the first of each interval
   * kept; 0 keeps every state. Done here rather than after splitting so that a dropped state is never
   * cleaned of its escape sequences: in a flood of coloured bar redraws that cleaning is most of the cost.
   */
  redrawIntervalMs?: number;
}

export class TerminalLineSplitter {
  private readonly redrawIntervalMs: number;
  /** Time of the last redraw state handed out (for the interval). */
  private lastRedrawTMs = Number.NEGATIVE_INFINITY;

  constructor(options: SplitterOptions = {}) {
    this.redrawIntervalMs = options.redrawIntervalMs ?? 0;
  }

  /** Raw text (escapes not yet removed) of the line under way. */
  private held = '';
  /** Time of the chunk that delivered the last character of `held`. */
  private heldTMs = 0;
  /** `held` is complete and was ended by a `\r` that may yet turn out to be half of `\r\n`. */
  private crPending = false;

  push(text: string, tMs: number): Line[] {
    const out: Line[] = [];
    const length = text.length;
    if (length === 0) return out;
    let start = 0;
    if (this.crPending) {
      this.crPending = false;
      const isCrlf = text.charCodeAt(0) === LF;
      this.emit(out, this.held, this.heldTMs, !isCrlf);
      this.held = '';
      if (isCrlf) start = 1;
    }
    // Two native indexOf scans instead of a per-character loop: this path sees every byte of output.
    let nextLf = text.indexOf('\n', start);
    let nextCr = text.indexOf('\r', start);
    while (nextLf !== -1 || nextCr !== -1) {
      const isLf = nextCr === -1 || (nextLf !== -1 && nextLf < nextCr);
      const end = isLf ? nextLf : nextCr;
      const piece = text.slice(start, end);
      const raw = this.held.length === 0 ? piece : this.held + piece;
      const lineTMs = piece.length > 0 || this.held.length === 0 ? tMs : this.heldTMs;
      this.held = '';
      if (isLf) {
        this.emit(out, raw, lineTMs, false);
        start = end + 1;
        nextLf = text.indexOf('\n', start);
        continue;
      }
      if (end + 1 === length) {
        // A `\r` as the chunk's last character: `\r\n` or a redraw, the next chunk will say.
        this.held = raw;
        this.heldTMs = lineTMs;
        this.crPending = true;
        return out;
      }
      const isCrlf = text.charCodeAt(end + 1) === LF;
      this.emit(out, raw, lineTMs, !isCrlf);
      start = isCrlf ? end + 2 : end + 1;
      nextCr = text.indexOf('\r', start);
      if (isCrlf) nextLf = text.indexOf('\n', start);
    }
    if (start < length) {
      this.held = this.held.length === 0 ? text.slice(start) : this.held + text.slice(start);
      this.heldTMs = tMs;
      if (this.held.length > MAX_LINE_CHARS) this.held = this.cutOverlong(out, this.held, tMs);
    }
    return out;
  }

  /**
   * The stream ended: whatever is held becomes the last line (a redraw, if a `\r` ended it). It
   * keeps the time its text arrived, not the end time: that is when it was printed.
   */
  end(_endTMs: number): Line[] {
    const out: Line[] = [];
    if (this.crPending) {
      this.emit(out, this.held, this.heldTMs, true);
    } else if (this.held.length > 0) {
      this.emit(out, this.held, this.heldTMs, false);
    }
    this.held = '';
    this.crPending = false;
    return out;
  }

  /** Emits MAX_LINE_CHARS pieces while more than that is held; returns the rest. */
  private cutOverlong(out: Line[], raw: string, tMs: number): string {
    let rest = raw;
    while (rest.length > MAX_LINE_CHARS) {
      // Never split a surrogate pair: the piece would end in half a character.
      const highSurrogate = (rest.charCodeAt(MAX_LINE_CHARS - 1) & 0xfc00) === 0xd800;
      const cut = highSurrogate ? MAX_LINE_CHARS - 1 : MAX_LINE_CHARS;
      this.emitCleaned(out, rest.slice(0, cut), tMs, false);
      rest = rest.slice(cut);
    }
    return rest;
  }

  private emit(out: Line[], raw: string, tMs: number, redraw: boolean): void {
    if (raw.length > MAX_LINE_CHARS) raw = this.cutOverlong(out, raw, tMs);
    this.emitCleaned(out, raw, tMs, redraw);
  }

  private emitCleaned(out: Line[], raw: string, tMs: number, redraw: boolean): void {
    // A state ended by a lone `\r` is a redraw whatever its text: when the interval drops it, it needs no cleaning.
    const thinning = this.redrawIntervalMs > 0;
    if (redraw && thinning && tMs - this.lastRedrawTMs < this.redrawIntervalMs) return;
    let text = raw;
    let movesUp = false;
    if (text.includes(ESC) || text.includes(C1_CSI)) {
      movesUp = CURSOR_UP.test(text);
      text = stripAnsi(text);
    }
    if (text.includes(BACKSPACE)) text = text.replace(BACKSPACES, '');
    const isRedraw = redraw || movesUp;
    if (isRedraw && text.trim().length === 0) return;
    if (isRedraw && thinning) {
      // A line that moves the cursor up is known to be a redraw only now.
      if (tMs - this.lastRedrawTMs < this.redrawIntervalMs) return;
      this.lastRedrawTMs = tMs;
    }
    out.push({ text, tMs, redraw: isRedraw });
  }
}

/** A whole text at once: the lines a splitter gives for it, as one list. */
export function splitTerminalText(text: string, tMs = 0): Line[] {
  const splitter = new TerminalLineSplitter();
  const lines = splitter.push(text, tMs);
  for (const line of splitter.end(tMs)) lines.push(line);
  return lines;
}
