// The UI's import of a chosen file, in pieces against a real engine (issue 28, item 17): every byte arrives, a character
// split between two pieces stays whole, the progress reaches the whole, and a cancelled one leaves nothing.
import { afterAll, describe, expect, it } from 'vitest';
import { createClient, dispatch, IMPORT_PIECE_CHARS } from '../../electron/shared/api.js';
import { importFileInPieces, logFileProblem, type ImportProgress } from '../../renderer/src/runs/importFile.js';
import { tempCore } from '../helpers/tempCore.js';

const harness = tempCore();
afterAll(() => harness.cleanup());
const api = createClient((method, input) => dispatch(harness.core.handlers, method, input));

/** Steps whose loss line ends in a 3-byte character, long enough that piece boundaries fall inside characters. */
function logOfBytes(minBytes: number): string {
  const lines: string[] = [];
  let bytes = 0;
  for (let step = 1; bytes < minBytes; step++) {
    const line = `step ${step}: loss ${(3 - step * 1e-6).toFixed(6)}, 45 ms — ok\n`;
    lines.push(line);
    bytes += Buffer.byteLength(line);
  }
  return lines.join('');
}

describe('importFileInPieces', () => {
  it('sends a file over several pieces whole, and says how far it got after each', async () => {
    const text = logOfBytes(2.5 * IMPORT_PIECE_CHARS);
    const file = new Blob([text]);
    const seen: ImportProgress[] = [];
    const run = await importFileInPieces(api, file, 'in pieces', (progress) => seen.push(progress), new AbortController().signal);
    expect(seen.length).toBe(Math.ceil(file.size / IMPORT_PIECE_CHARS));
    expect(seen.at(-1)).toEqual({ sentBytes: file.size, totalBytes: file.size });
    expect(seen.map((p) => p.sentBytes)).toEqual([...seen.map((p) => p.sentBytes)].sort((a, b) => a - b));
    expect(run.outputBytes).toBe(file.size);
    expect(run.summary.steps).toBe(text.split('\n').length - 1);
    const whole = await api['runs.import']({ text, name: 'whole' });
    expect(run.summary).toEqual(whole.summary);
  });

  it('cancelled part way, keeps no run', async () => {
    const before = (await api['runs.list']({})).length;
    const abort = new AbortController();
    const file = new Blob([logOfBytes(3 * IMPORT_PIECE_CHARS)]);
    const importing = importFileInPieces(api, file, 'cancelled', () => abort.abort(), abort.signal);
    await expect(importing).rejects.toThrow(/cancelled; nothing was kept/u);
    expect((await api['runs.list']({})).length).toBe(before);
  });

  it('refuses a file over the import limit before reading it, with the command to use instead', () => {
    expect(logFileProblem({ name: 'my log.txt', size: 3 * 1024 ** 3 })).toMatch(
      /larger than the 2\.0 GiB an import takes.*tuning-bench import 'my log.txt' --max-bytes 3G$/u,
    );
    expect(logFileProblem({ name: 'huge.log', size: 9.5 * 1024 ** 3 })).toMatch(/--max-bytes 10G$/u);
    expect(logFileProblem({ name: 'train.log', size: 10 })).toBeNull();
  });
});
