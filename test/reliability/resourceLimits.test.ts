// A run started when the engine has no file descriptors left: before, `forkpty(3) failed.` reached the person as
// an internal error and the run stayed `running` in the file (then `interrupted`); now the limit is named.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TSX_LOADER } from '../helpers/cli.js';
import { makeTempDir, REPO_ROOT } from '../helpers/tempCore.js';

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Low enough to use up in a moment, high enough for the engine itself (its database, threads and pipes) to start. */
const OPEN_FILE_LIMIT = 200;

describe('a run started at the open-file limit', () => {
  it('is refused with the limit named and what to do, and recorded as failed, not left running', () => {
    dir = makeTempDir('tb-fd-limit-');
    const program = path.join(REPO_ROOT, 'test/fixtures/programs/startWithoutFds.ts');
    const result = spawnSync(
      'sh',
      ['-c', `ulimit -n ${OPEN_FILE_LIMIT} && exec "$0" --import "$1" "$2" "$3"`, process.execPath, TSX_LOADER, program, path.join(dir, 'runs.db')],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(result.status, result.stderr).toBe(0);
    const { answer, runs } = JSON.parse(result.stdout) as {
      answer: { code?: string; message?: string };
      runs: Array<{ status: string; exitReason: string | null }>;
    };
    expect(answer.code).toBe('unavailable');
    expect(answer.message).toMatch(new RegExp(`of its ${OPEN_FILE_LIMIT} open files in use \\(ulimit -n\\).*raise the limit`, 'u'));
    expect(runs).toHaveLength(2);
    expect(runs.map((run) => run.status)).toEqual(['failed', 'succeeded']);
    expect(runs[0]!.exitReason).toBe(answer.message);
  }, 90_000);
});
