// `import` of what is not a training log: before, a 94 MiB binary or a sparse file (holes that read as zero bytes)
// became a "succeeded" run of garbage. Now both are refused, saying why, and nothing is stored.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/tempCore.js';

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function expectRefused(file: string, reason: RegExp): void {
  const db = path.join(dir, 'runs.db');
  const cli = runCli(['--db', db, 'import', file]);
  expect(cli.status, cli.stderr).toBe(2);
  expect(cli.stderr).toContain(file);
  expect(cli.stderr).toMatch(reason);
  expect(runCli(['--db', db, '--json', 'runs']).stdout.trim()).toBe('[]');
}

describe('import of a file that is not a text log', () => {
  it('refuses a binary (the Node executable), naming what it found', () => {
    dir = makeTempDir('tb-import-binary-');
    const file = path.join(dir, 'node.log');
    // Text first, as a binary with a readable header would look: the zero bytes come later.
    const text = Buffer.from('step 1 loss 0.5\n'.repeat(100_000));
    fs.writeFileSync(file, Buffer.concat([text, fs.readFileSync(process.execPath).subarray(0, 4 * 1024 * 1024)]));
    expectRefused(file, /zero bytes.*not a text log/u);
  });

  it('refuses a sparse file, whose holes read as zero bytes', () => {
    dir = makeTempDir('tb-import-sparse-');
    const file = path.join(dir, 'sparse.log');
    fs.writeFileSync(file, 'step 1 loss 0.5\n');
    fs.truncateSync(file, 64 * 1024 * 1024);
    expectRefused(file, /sparse|zero bytes/u);
  });

  it('still imports a real log', () => {
    dir = makeTempDir('tb-import-text-');
    const file = path.join(dir, 'train.log');
    fs.writeFileSync(file, Array.from({ length: 50 }, (_, i) => `step ${i + 1} loss ${(2 - i / 50).toFixed(3)}\n`).join(''));
    const cli = runCli(['--db', path.join(dir, 'runs.db'), 'import', file]);
    expect(cli.status, cli.stderr).toBe(0);
  });
});
