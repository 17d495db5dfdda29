// `--min-seconds` on `run` and `sweep`, as on `tune`: a step limit on a script whose steps take milliseconds measured
// a moment of warm-up; with it the run goes on past the count until its steps span the time given.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run as runSchema, type Run } from '../../electron/shared/api.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/tempCore.js';

const dir = makeTempDir('tb-minseconds-');
const db = path.join(dir, 'runs.db');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A training loop that never ends on its own: a step every 20 ms, as long as it is let run. */
const LOOP = path.join(dir, 'loop.js');
fs.writeFileSync(
  LOOP,
  "let step = 0;\nsetInterval(() => {\n  step += 1;\n  console.log('step ' + step + ': loss ' + (2 / Math.sqrt(step)).toFixed(4));\n}, 20);\n",
);
const FAST_STEPS = ['node', LOOP];

function cli(args: string[]) {
  return runCli(['--db', db, ...args], { cwd: dir, env: { INIT_CWD: dir } });
}

function runOf(result: ReturnType<typeof cli>): Run {
  expect(result.status, result.stderr).toBe(0);
  return runSchema.parse(JSON.parse(result.stdout));
}

describe('run --min-seconds', () => {
  it('goes on past the step limit until the steps span the seconds given, and says so', () => {
    const run = runOf(cli(['run', '--json', '--max-steps', '5', '--min-seconds', '1', '--', ...FAST_STEPS]));
    // 1 s of 20 ms steps is about 50 steps past the first: far beyond 5, whatever the machine's timer does.
    expect(run.summary.steps).toBeGreaterThan(25);
    expect(run.exitReason).toContain('went on past the count until they spanned 1 s');
  });

  it('stops at the count without it, as before', () => {
    const run = runOf(cli(['run', '--json', '--max-steps', '5', '--', ...FAST_STEPS]));
    expect(run.summary.steps).toBeLessThan(15);
    expect(run.exitReason).not.toContain('went on past the count');
  });

  it('is refused without --max-steps, with what to give, and records nothing', () => {
    const result = cli(['run', '--min-seconds', '1', '--', ...FAST_STEPS]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--min-seconds stretches a step limit: give --max-steps N with it');
    const sweep = cli(['sweep', '--min-seconds', '1', '--vary', 'a=1,2', '--', ...FAST_STEPS, '{a}']);
    expect(sweep.status).toBe(2);
    expect(sweep.stderr).toContain('give --max-steps N with it');
    expect(JSON.parse(cli(['runs', '--json']).stdout)).toHaveLength(2);
  });
});

describe('sweep --min-seconds', () => {
  it('stretches every run of the sweep', () => {
    const result = cli([
      'sweep',
      '--json',
      '--no-wait-idle',
      '--repeats',
      '1',
      '--max-steps',
      '5',
      '--min-seconds',
      '1',
      '--vary',
      'a=1,2',
      '--',
      ...FAST_STEPS,
      '{a}',
    ]);
    expect(result.status, result.stderr).toBe(0);
    const sweep = JSON.parse(result.stdout) as { configs: Array<{ runIds: number[] }> };
    const ids = sweep.configs.flatMap((c) => c.runIds);
    expect(ids).toHaveLength(2);
    for (const id of ids) {
      const run = runSchema.parse(JSON.parse(cli(['show', String(id), '--json']).stdout));
      expect(run.summary.steps).toBeGreaterThan(25);
      expect(run.exitReason).toContain('went on past the count');
    }
  });
});
