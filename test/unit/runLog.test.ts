import { describe, expect, it } from 'vitest';
import { PlainTextStream } from '../../electron/core/runner/runLog.js';

function feed(parts: Buffer[]): string {
  const stream = new PlainTextStream();
  return parts.map((part) => stream.push(part)).join('') + stream.end();
}

describe('PlainTextStream', () => {
  it('gives the same text however the bytes are cut', () => {
    const log = Buffer.from('\x1b[32mtrain\x1b[0m 10%|#\r 100%|###\nstep 1: loss 2.0 ✓\n\x1b[1mdone\x1b[0m');
    const whole = feed([log]);
    expect(whole).toBe(' 100%|###\nstep 1: loss 2.0 ✓\ndone');
    for (let cut = 1; cut < log.length; cut++) expect(feed([log.subarray(0, cut), log.subarray(cut)]), `cut at ${cut}`).toBe(whole);
  });
});

describe('PlainTextStream on a line longer than the parsers read', () => {
  const cutInto = (text: string, size: number) => {
    const bytes = Buffer.from(text);
    const parts: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += size) parts.push(bytes.subarray(at, at + size));
    return parts;
  };

  it('writes it out whole, cleaned of escapes, in pieces as it comes', () => {
    const line = Array.from({ length: 20_000 }, (_, i) => `\x1b[3${i % 8}mcell ${i}\x1b[0m `).join('');
    // eslint-disable-next-line no-control-regex -- escapes are the subject
    const expected = `${line.replaceAll(/\u001b\[\d+m/gu, '')}\nnext\n`;
    const stream = new PlainTextStream();
    const pieces = cutInto(`${line}\nnext\n`, 4096).map((part) => stream.push(part));
    expect(pieces.join('') + stream.end()).toBe(expected);
    // Written as it came: the line was not held whole until its end.
    expect(pieces.filter((piece) => piece.length > 0).length).toBeGreaterThan(2);
  });

  it('keeps the redraw a terminal would show when a long line is redrawn', () => {
    const bar = (percent: number) => `${'#'.repeat(30_000)} ${percent}%`;
    const text = `${bar(10)}\r${bar(50)}\r${bar(100)}\r\ndone\n`;
    expect(feed(cutInto(text, 1000))).toBe(`${bar(100)}\ndone\n`);
  });
});
