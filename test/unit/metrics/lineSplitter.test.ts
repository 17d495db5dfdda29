// TerminalLineSplitter: lines, `\r` bar states, ANSI removal, chunk boundaries, the line length cap.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_LINE_CHARS, TerminalLineSplitter, splitTerminalText, type Line } from '../../../electron/core/metrics/text/lineSplitter.js';

const texts = (lines: readonly Line[]): string[] => lines.map((line) => line.text);
const shape = (lines: readonly Line[]): Array<[string, boolean]> => lines.map((line) => [line.text, line.redraw]);

/** Feeds the text in the given chunk sizes (cycled), then ends the stream. */
function splitInChunks(text: string, sizes: readonly number[]): Line[] {
  const splitter = new TerminalLineSplitter();
  const lines: Line[] = [];
  let at = 0;
  for (let i = 0; at < text.length; i++) {
    const size = Math.max(1, sizes[i % sizes.length] ?? 1);
    lines.push(...splitter.push(text.slice(at, at + size), i));
    at += size;
  }
  lines.push(...splitter.end(-1));
  return lines;
}

describe('TerminalLineSplitter', () => {
  it('returns every \\r state of a tqdm bar as its own redraw line, and the final state as a kept line', () => {
    const text = 'start\n 10%|#  | 1/10\r 50%|## | 5/10\r100%|###| 10/10\nend\n';
    expect(shape(splitTerminalText(text))).toEqual([
      ['start', false],
      [' 10%|#  | 1/10', true],
      [' 50%|## | 5/10', true],
      ['100%|###| 10/10', false],
      ['end', false],
    ]);
  });

  it('treats \\r\\n as a line end, also when a chunk ends between the two', () => {
    const splitter = new TerminalLineSplitter();
    expect(splitter.push('a\r', 1)).toEqual([]);
    expect(splitter.push('\nb\r\nc', 2)).toEqual([
      { text: 'a', tMs: 1, redraw: false },
      { text: 'b', tMs: 2, redraw: false },
    ]);
    expect(splitter.end(3)).toEqual([{ text: 'c', tMs: 2, redraw: false }]);
  });

  it('holds a partial line until its end arrives, and dates it by its last character', () => {
    const splitter = new TerminalLineSplitter();
    expect(splitter.push('iter 10: loss', 100)).toEqual([]);
    expect(splitter.push(' 2.5', 200)).toEqual([]);
    expect(splitter.push('\n', 300)).toEqual([{ text: 'iter 10: loss 2.5', tMs: 200, redraw: false }]);
  });

  it('strips colours, erase codes and tqdm cursor-up, marking cursor-up lines as redraws', () => {
    const lines = splitTerminalText('\x1b[32mtrain\x1b[0m ok\n\r\x1b[2Kstep 1: loss 2\n\r  0%|     | 2/2948 [00:00<03:13, 15.24it/s]\x1b[A\n');
    expect(shape(lines)).toEqual([
      ['train ok', false],
      ['step 1: loss 2', false],
      ['  0%|     | 2/2948 [00:00<03:13, 15.24it/s]', true],
    ]);
  });

  it("drops Keras's backspaces and blank redraw states, keeps empty lines", () => {
    const lines = splitTerminalText('1/2 [==>..] - loss: 1\b\b\b\r2/2 [=====] - loss: 0.5\n\r     \r\r\n\nx\n');
    expect(shape(lines)).toEqual([
      ['1/2 [==>..] - loss: 1', true],
      ['2/2 [=====] - loss: 0.5', false],
      ['', false],
      ['', false],
      ['x', false],
    ]);
  });

  it('with a redraw interval, keeps the first redraw state of each interval and every kept line, as the collector did after splitting', () => {
    const splitter = new TerminalLineSplitter({ redrawIntervalMs: 50 });
    const lines = [
      // A blank state (tqdm clearing its bar) is dropped without starting an interval.
      ...splitter.push('\r     \r', 0),
      ...splitter.push('\x1b[32m 1%\x1b[0m|a\r 2%|b\rstep 1: loss 2\n 3%|c\r', 10),
      ...splitter.push(' 4%|d\r 5%|e\x1b[A\n', 40),
      ...splitter.push(' 6%|f\x1b[A\n 7%|g\r', 70),
    ];
    expect(lines.map((line) => [line.text, line.redraw, line.tMs])).toEqual([
      [' 1%|a', true, 10],
      ['step 1: loss 2', false, 10],
      [' 6%|f', true, 70],
    ]);
    expect(splitter.end(80)).toEqual([]);
  });

  it('with a redraw interval, keeps exactly the lines that filtering the unthinned split would keep', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', '\r', '\n', ' ', '\x1b[A', '\x1b[32m', '1'), fc.integer({ min: 0, max: 40 })), { maxLength: 60 }),
        (pieces) => {
          const thinned = new TerminalLineSplitter({ redrawIntervalMs: 50 });
          const plain = new TerminalLineSplitter();
          const got: Line[] = [];
          const all: Line[] = [];
          let tMs = 0;
          for (const [text, step] of pieces) {
            tMs += step;
            got.push(...thinned.push(text, tMs));
            all.push(...plain.push(text, tMs));
          }
          got.push(...thinned.end(tMs));
          all.push(...plain.end(tMs));
          let last = Number.NEGATIVE_INFINITY;
          const expected = all.filter((line) => {
            if (!line.redraw) return true;
            if (line.tMs - last < 50) return false;
            last = line.tMs;
            return true;
          });
          expect(got).toEqual(expected);
        },
      ),
    );
  });

  it('cuts a line longer than MAX_LINE_CHARS into pieces and never holds more', () => {
    const long = 'x'.repeat(MAX_LINE_CHARS * 2 + 10);
    const splitter = new TerminalLineSplitter();
    const pieces = splitter.push(long, 0);
    expect(pieces.map((line) => line.text.length)).toEqual([MAX_LINE_CHARS, MAX_LINE_CHARS]);
    expect(texts(splitter.push('\n', 1))).toEqual(['x'.repeat(10)]);
    expect(texts(splitInChunks(`${long}\n`, [1000]))).toEqual(texts(splitTerminalText(`${long}\n`)));
  });

  it('gives the same lines however the text is cut into chunks', () => {
    const alphabet = fc.constantFrom('a', 'b', ' ', '1', '\n', '\r', '\r\n', '\x1b[32m', '\x1b[0m', '\x1b[A', '\x1b[2K', '\b', '█', '😀', '|');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 200 }), fc.array(fc.integer({ min: 1, max: 17 }), { minLength: 1, maxLength: 10 }), (parts, sizes) => {
        const text = parts.join('');
        expect(shape(splitInChunks(text, sizes))).toEqual(shape(splitTerminalText(text)));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads every bar state of a real capture, however it is chunked', () => {
    const states = Array.from(
      { length: 50 },
      (_, i) =>
        `\r${String(i * 2).padStart(3)}%|${'█'.repeat(i % 10)}| ${i}/50 [00:${String(i).padStart(2, '0')}<00:10, 5.00it/s, loss=${(3 - i / 50).toFixed(3)}]`,
    );
    const text = `${states.join('')}\n`;
    const whole = texts(splitTerminalText(text));
    expect(whole).toHaveLength(50);
    expect(whole[49]).toContain('49/50');
    for (const size of [1, 2, 7, 64, 4096]) expect(texts(splitInChunks(text, [size]))).toEqual(whole);
  });

  it('never throws on random text or random bytes decoded as UTF-8', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.uint8Array({ maxLength: 300 }), (text, bytes) => {
        splitInChunks(text, [3, 5]);
        splitInChunks(Buffer.from(bytes).toString('utf8'), [7]);
      }),
      { numRuns: 3000 },
    );
  });
});
