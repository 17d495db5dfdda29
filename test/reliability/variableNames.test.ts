// Variable names that are also names of every JavaScript object's internals (`__proto__`, `constructor`,
// `toString`): before, `--vary __proto__=a,b` ran the same command for both configs under different labels,
// and a `{constructor}` left at its default became the text of Object's constructor.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeTempDir, tempCore, type TempCore } from '../helpers/tempCore.js';

let harness: TempCore | null = null;
let dir: string | null = null;
afterEach(async () => {
  await harness?.cleanup();
  harness = null;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = null;
});

describe('variable names', () => {
  it('`__proto__` is refused before anything runs, with what to use instead', () => {
    dir = makeTempDir('tb-proto-');
    const cli = runCli([
      '--db',
      path.join(dir, 'runs.db'),
      'sweep',
      '--vary',
      '__proto__=a,b',
      '--repeats',
      '1',
      '--no-wait-idle',
      '--',
      'sh',
      '-c',
      'echo {__proto__}',
    ]);
    expect(cli.status, cli.stderr).toBe(2);
    expect(cli.stderr).toMatch(/__proto__.*another name/u);
    expect(runCli(['--db', path.join(dir, 'runs.db'), '--json', 'runs']).stdout.trim()).toBe('[]');
  });

  it("named like an object's own methods take their values and defaults, never the method", () => {
    harness = tempCore();
    const workload = {
      name: 'internals',
      command: ['echo', '{constructor}', '{toString}', '{hasOwnProperty}'],
      cwd: '/',
      env: {},
      variables: [
        { name: 'constructor', default: 'c0', description: '' },
        { name: 'toString', default: 't0', description: '' },
        { name: 'hasOwnProperty', default: 'h0', description: '' },
      ],
    };
    expect(harness.core.runner.preview(workload as never, {}).command).toEqual(['echo', 'c0', 't0', 'h0']);
    expect(harness.core.runner.preview(workload as never, { toString: 't1' }).command).toEqual(['echo', 'c0', 't1', 'h0']);
  });
});
