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
