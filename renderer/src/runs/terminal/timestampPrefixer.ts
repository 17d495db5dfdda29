// Puts a dim `[+12.345s] ` before each line of terminal output, the time since the run started, for the Timestamps view.

const ESC = 0x1b;
const BEL = 0x07;

/** SGR 2 (faint) and 22 (normal intensity): the program's colours around the prefix are left as they were. */
export function formatTimestampPrefix(tMs: number): string {
  return `\x1b[2m[+${(tMs / 1000).toFixed(3)}s]\x1b[22m `;
}

/** Where the scanner is inside an escape sequence, so a prefix never lands in the middle of one. */
type EscapeState = 'text' | 'esc' | 'escIntermediate' | 'csi' | 'string' | 'stringEsc';

/**
 * Stateful over chunks: a line may start in one chunk and continue in the next.
 *
 * The prefix goes before a line's first printable character, not right after the line break: progress bars
 * redraw with `\r`, often followed by `ESC[2K` (erase line), and synthetic/tqdm print each log line as
 * `\r ESC[2K step 10: … \n`. A prefix written straight after `\n` would be erased or overwritten by that
 * redraw, leaving the log lines with no time at all. So a bare `\r` (one not followed by `\n`) also starts
 * a line again, and each redraw carries the time it was drawn.
 *
 * Where only colour changes (SGR) stand between the line break and that character, the prefix goes before
 * them instead, so it does not take on the line's colour and its own reset does not undo the line's bold.
 */
export class TimestampPrefixer {
  private atLineStart = true;
  /** Nothing but colour changes since the line began. */
  private onlySgr = true;
  /** Nothing at all since the line began: the next chunk may put the prefix at its very start. */
  private nothingYet = true;
  private escape: EscapeState = 'text';

  /** The next printable character starts a line (after a notice the feed writes on a line of its own). */
  lineBreak(): void {
    this.atLineStart = true;
    this.onlySgr = true;
    this.nothingYet = true;
  }

  transform(data: string, tMs: number): string {
    const prefix = formatTimestampPrefix(tMs);
    const pieces: string[] = [];
    let copied = 0;
    /** Where the current line began in `data`, or -1 if it began in an earlier chunk with something written since. */
    let lineStart = this.atLineStart && this.nothingYet ? 0 : -1;
    for (let i = 0; i < data.length; i += 1) {
      const code = data.charCodeAt(i);
      if (this.escape !== 'text') {
        const next = nextEscapeState(this.escape, code);
        const sgrEnded = this.escape === 'csi' && next === 'text' && code === 0x6d; // m
        if ((this.escape === 'esc' && next !== 'csi') || (this.escape === 'csi' && next === 'text' && !sgrEnded)) {
          this.onlySgr = false;
        }
        this.escape = next;
        continue;
      }
      if (code === ESC) {
        this.escape = 'esc';
        this.nothingYet = false;
      } else if (code === 0x0a || code === 0x0d) {
        this.lineBreak();
        lineStart = i + 1;
      } else if (this.atLineStart && (code >= 0x20 || code === 0x09)) {
        const at = this.onlySgr && lineStart >= 0 ? lineStart : i;
        pieces.push(data.slice(copied, at), prefix);
        copied = at;
        this.atLineStart = false;
        this.nothingYet = false;
      }
    }
    if (pieces.length === 0) return data;
    pieces.push(data.slice(copied));
    return pieces.join('');
  }
}

/** ECMA-48 in brief: CSI ends at a final byte 0x40-0x7E; OSC/DCS/APC/PM/SOS strings end at BEL or ESC \. */
function nextEscapeState(state: EscapeState, code: number): EscapeState {
  switch (state) {
    case 'esc':
      if (code === 0x5b) return 'csi'; // [
      if (code === 0x5d || code === 0x50 || code === 0x58 || code === 0x5e || code === 0x5f) return 'string'; // ] P X ^ _
      if (code >= 0x20 && code <= 0x2f) return 'escIntermediate'; // ESC ( B and friends
      return 'text';
    case 'escIntermediate':
      return code >= 0x20 && code <= 0x2f ? 'escIntermediate' : 'text';
    case 'csi':
      return code >= 0x40 && code <= 0x7e ? 'text' : 'csi';
    case 'string':
      if (code === BEL) return 'text';
      return code === ESC ? 'stringEsc' : 'string';
    case 'stringEsc':
      return code === 0x5c ? 'text' : 'string';
    default:
      return 'text';
  }
}
