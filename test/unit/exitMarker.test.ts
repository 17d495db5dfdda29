import { describe, expect, it } from 'vitest';
import { ExitMarkerScanner, exitMarkerPrefix, type ProgramEnding } from '../../electron/core/runner/exitMarker.js';

const prefix = exitMarkerPrefix('0123abcd');
const marker = Buffer.concat([prefix, Buffer.from('130\x07')]);

function scanAll(parts: Buffer[]) {
  const scanner = new ExitMarkerScanner(prefix);
  const out: Buffer[] = [];
  let ending: ProgramEnding | null = null;
  for (const part of parts) {
    const scan = scanner.push(part);
    out.push(scan.output);
    ending ??= scan.ending;
  }
  out.push(scanner.flush());
  return { output: Buffer.concat(out).toString('latin1'), ending };
}

describe('ExitMarkerScanner', () => {
  it('finds the marker and removes it, wherever the stream is cut', () => {
    const stream = Buffer.concat([Buffer.from('last line\x1b[0m\n'), marker, Buffer.from('late worker output')]);
    for (let cut = 0; cut <= stream.length; cut++) {
      const { output, ending } = scanAll([stream.subarray(0, cut), stream.subarray(cut)]);
      expect(ending, `cut ${cut}`).toEqual({ exitCode: 130 });
      expect(output, `cut ${cut}`).toBe('last line\x1b[0m\nlate worker output');
    }
  });

  it('reads a signal ending apart from an exit code', () => {
    expect(scanAll([Buffer.concat([prefix, Buffer.from('s9\x07')])]).ending).toEqual({ signalNumber: 9 });
    expect(scanAll([Buffer.concat([prefix, Buffer.from('137\x07')])]).ending).toEqual({ exitCode: 137 });
    expect(scanAll([Buffer.concat([prefix, Buffer.from('s\x07')])]).ending).toBeNull();
  });

  it('passes a forged marker with another nonce through as output', () => {
    const forged = Buffer.concat([exitMarkerPrefix('ffffffff'), Buffer.from('0\x07')]);
    expect(scanAll([forged])).toEqual({ output: forged.toString('latin1'), ending: null });
  });

  it('holds nothing back for ordinary escape sequences', () => {
    const scanner = new ExitMarkerScanner(prefix);
    expect(scanner.push(Buffer.from('\x1b]0;title\x07text\x1b[')).output.toString()).toBe('\x1b]0;title\x07text\x1b[');
  });

  it('gives back a held tail when the stream ends without the marker', () => {
    expect(scanAll([Buffer.concat([Buffer.from('x'), prefix.subarray(0, 5)])]).output).toBe(`x${prefix.subarray(0, 5).toString('latin1')}`);
  });
});
