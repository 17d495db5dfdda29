// Under --json a script reads stdout: failures are JSON objects there too, with the exit status the contract gives.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/tempCore.js';

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('errors under --json', () => {
  it('are JSON on stdout for bad arguments, a missing run and a refused database', () => {
    dir = makeTempDir('tb-json-errors-');
    const db = path.join(dir, 'runs.db');
    const foreign = path.join(dir, 'notes.txt');
    fs.writeFileSync(foreign, 'not a database at all, just notes\n'.repeat(200));
    for (const [args, status, code] of [
      [['--db', db, '--json', 'show', '999'], 2, 'bad_arguments'],
      [['--db', db, '--json', 'show', 'abc'], 2, 'bad_arguments'],
      [['--db', foreign, '--json', 'runs'], 1, 'DatabaseCorruptError'],
    ] as const) {
      const result = runCli([...args]);
      expect(result.status, result.stderr).toBe(status);
      const parsed = JSON.parse(result.stdout) as { error: { code: string; message: string; exitStatus: number } };
      expect(parsed.error).toMatchObject({ code, exitStatus: status });
      expect(parsed.error.message.length).toBeGreaterThan(0);
      expect(result.stderr).toMatch(/tuning-bench|error/u);
    }
  }, 60_000);
});
