// LogTextParser, fed a log in pieces as a pty delivers it, gives what parseLogText gives for the whole text.
import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DETECTION_HOLD_MS, LogTextParser, parseLogText, type ParsedLog } from '../../../electron/core/metrics/parsers/index.js';
import { readCapturedFixture, capturedFixture } from '../../helpers/fixtures.js';

const LOGS = fs
  .readdirSync(capturedFixture('training-logs'))
  .filter((name) => name.endsWith('.log'))
  .sort()
  .map((name) => [name, readCapturedFixture('training-logs', name)] as const);

/** Feeds the text in pieces of the given sizes (cycled); piece i arrives at `timeOf(i)`. */
function parseInPieces(text: string, sizes: readonly number[], timeOf = (_piece: number): number => 0): ParsedLog & { times: number[] } {
  const records: ParsedLog['records'] = [];
  const times: number[] = [];
  const parser = new LogTextParser((record, line, tMs) => {
    records.push({ ...record, line });
    times.push(tMs);
  });
  let at = 0;
  for (let piece = 0; at < text.length; piece++) {
    const size = sizes[piece % sizes.length] ?? 1;
    parser.push(text.slice(at, at + size), timeOf(piece));
    at += size;
  }
  parser.end(-1);
  return { framework: parser.framework, records, times };
}

describe('LogTextParser', () => {
  it.each(LOGS)('%s: pieces of any size give the records of the whole text', (_name, text) => {
    const whole = parseLogText(text);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 4096 }), { minLength: 1, maxLength: 8 }), (sizes) => {
        const { framework, records } = parseInPieces(text, sizes);
        expect(framework).toBe(whole.framework);
        expect(records).toEqual(whole.records);
      }),
      { numRuns: 20 },
    );
  });

  it("dates each record by the piece that completed its line's text", () => {
    const text = 'iter 0: loss 4.2648, time 9371.81ms\niter 10: loss 3.2202, time 893.76ms\n';
    const { records, times } = parseInPieces(text, [37, 1000], (piece) => piece);
    expect(records.map((record) => record.step)).toEqual([0, 10]);
    expect(times).toEqual([0, 1]);
  });

  it('gives a live run its first records after DETECTION_HOLD_MS, not after 2,000 lines', () => {
    const seen: number[] = [];
    const parser = new LogTextParser((record) => seen.push(record.step ?? -1));
    parser.push('iter 0: loss 4.2648, time 9371.81ms, mfu -100.00%\n', 0);
    parser.push('iter 10: loss 3.2202, time 893.76ms, mfu 16.68%\n', DETECTION_HOLD_MS / 2);
    expect(seen).toEqual([]);
    parser.push('iter 20: loss 2.7697, time 894.88ms, mfu 16.67%\n', DETECTION_HOLD_MS);
    expect(seen).toEqual([0, 10, 20]);
    expect(parser.framework).toBe('nanogpt');
  });
});
