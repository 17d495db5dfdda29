// Finds the wrapper's end-of-program marker in the pty byte stream, so the output before it is known complete.

/**
 * The marker is an OSC sequence no terminal acts on, with a per-run random nonce so a program
 * cannot forge it: ESC ] 7770 ; tb-exit ; <nonce> ; <ending> BEL, where the ending is the exit
 * code (`137`) or `s` and the number of the signal that ended the program (`s9`).
 */
export function exitMarkerPrefix(nonce: string): Buffer {
  return Buffer.from(`\x1b]7770;tb-exit;${nonce};`);
}

const BEL = 0x07;
/** An exit code is at most three digits; a signal is `s` and at most two. */
const MAX_ENDING_LENGTH = 3;
const ENDING = /^(?:(\d{1,3})|s(\d{1,2}))$/u;

/** How the program ended: its own exit code, or the signal that ended it. */
export type ProgramEnding = { exitCode: number } | { signalNumber: number };

export interface MarkerScan {
  /** Output to pass on (never contains the marker). */
  output: Buffer;
  /** How the program ended, once the whole marker has been seen. */
  ending: ProgramEnding | null;
}

/**
 * Scans chunks as they arrive. A chunk may end in the middle of the marker, so a tail that could
 * be its start is held back until the next chunk says whether it was.
 */
export class ExitMarkerScanner {
  private held: Buffer = Buffer.alloc(0);
  private found = false;

  constructor(private readonly prefix: Buffer) {}

  push(chunk: Buffer): MarkerScan {
    const data = this.held.length > 0 ? Buffer.concat([this.held, chunk]) : chunk;
    this.held = Buffer.alloc(0);
    if (this.found) return { output: data, ending: null };

    const start = data.indexOf(this.prefix);
    if (start >= 0) {
      const digitsStart = start + this.prefix.length;
      const end = data.indexOf(BEL, digitsStart);
      if (end < 0) {
        if (data.length - digitsStart > MAX_ENDING_LENGTH) return { output: data, ending: null }; // not ours after all
        this.held = data.subarray(start);
        return { output: data.subarray(0, start), ending: null };
      }
      const ending = ENDING.exec(data.subarray(digitsStart, end).toString('latin1'));
      if (ending) {
        this.found = true;
        return {
          output: Buffer.concat([data.subarray(0, start), data.subarray(end + 1)]),
          ending: ending[1] !== undefined ? { exitCode: Number(ending[1]) } : { signalNumber: Number(ending[2]) },
        };
      }
      return { output: data, ending: null };
    }

    // Hold back a tail that is a proper beginning of the prefix.
    const from = Math.max(0, data.length - this.prefix.length + 1);
    for (let i = from; i < data.length; i++) {
      if (data[i] === this.prefix[0] && this.prefix.subarray(0, data.length - i).equals(data.subarray(i))) {
        this.held = data.subarray(i);
        return { output: data.subarray(0, i), ending: null };
      }
    }
    return { output: data, ending: null };
  }

  /** Whatever was held back when the stream ends without the marker. */
  flush(): Buffer {
    const rest = this.held;
    this.held = Buffer.alloc(0);
    return rest;
  }
}
