// `run --profile` and `profile ID [--json | --format md | --baseline ID | --rerun]` as a user types them.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run as runSchema } from '../../electron/shared/api.js';
import { profileComparison, runProfile } from '../../electron/shared/profile.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir, REPO_ROOT } from '../helpers/tempCore.js';
import { assertTorch, skipTorchTests, TORCH_PYTHON } from '../helpers/torch.js';

const SLEEPY = path.join(REPO_ROOT, 'test/fixtures/profiling/sleepy_loader.py');

const dir = makeTempDir('tb-profile-cli-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const db = path.join(dir, 'runs.db');

describe.skipIf(skipTorchTests('profileCli.test.ts'))('the profile commands', () => {
  beforeAll(assertTorch);
  it('profiles a run, prints it as JSON and as the bottleneck table, and compares it with a re-run of another config', () => {
    const started = runCli(
      [
        '--db',
        db,
        'run',
        '--json',
        '--profile',
        '--profile-warmup',
        '4',
        '--profile-steps',
        '6',
        '--',
        TORCH_PYTHON,
        SLEEPY,
        '--steps',
        '14',
        '--sleep-ms',
        '30',
        '--width',
        '64',
      ],
      { cwd: dir },
    );
    expect(started.status, started.stderr).toBe(0);
    const slow = runSchema.parse(JSON.parse(started.stdout));

    const shown = runCli(['--db', db, 'profile', String(slow.id), '--json']);
    expect(shown.status, shown.stderr).toBe(0);
    const profile = runProfile.parse(JSON.parse(shown.stdout));
    expect(profile).toMatchObject({ runId: slow.id, tool: 'torch.profiler', window: { fromStep: 5, toStep: 10 } });
    for (const key of ['stepMs', 'dataLoadingMs', 'forwardMs', 'backwardMs', 'optimizerMs', 'otherMs'] as const) {
      expect(profile.phases[key]).toBeTypeOf('number');
    }
    expect(profile.ops[0]).toEqual(
      expect.objectContaining({ name: expect.any(String), selfMs: expect.any(Number), calls: expect.any(Number), pct: expect.any(Number) }),
    );
    expect(fs.existsSync(profile.tracePath!)).toBe(true);

    const table = runCli(['--db', db, 'profile', String(slow.id), '--format', 'md']);
    expect(table.stdout).toContain('| Operator | self ms per step | % of step | calls per step |');
    expect(table.stdout).toMatch(/\| data loading \| \d+\.\d\d \| \d+\.\d %/u);
    expect(table.stdout).toContain('input-bound');

    // Another config of the same script: no sleep in its input pipeline.
    const other = runCli(['--db', db, 'run', '--json', '--', TORCH_PYTHON, SLEEPY, '--steps', '14', '--sleep-ms', '0', '--width', '64'], { cwd: dir });
    const fast = runSchema.parse(JSON.parse(other.stdout));
    const none = runCli(['--db', db, 'profile', String(fast.id)]);
    // A profile that is not there is what the person asked for, wrong: 2, as for a run that is not there.
    expect(none.status).toBe(2);
    expect(none.stderr).toContain(`run ${fast.id} has no profile`);
    const rerun = runCli(['--db', db, 'profile', String(fast.id), '--rerun', '--warmup', '4', '--steps', '6', '--baseline', String(slow.id), '--json']);
    expect(rerun.status, rerun.stderr).toBe(0);
    const comparison = profileComparison.parse(JSON.parse(rerun.stdout));
    expect(comparison.baselineRunId).toBe(slow.id);
    expect(comparison.phases.find((p) => p.name === 'data loading')!.deltaMs!).toBeLessThan(-20);
    expect(comparison.changes.some((line) => line.startsWith('data loading:'))).toBe(true);

    const bad = runCli(['--db', db, 'profile', String(slow.id), '--steps', '5']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('give them with --rerun');
  }, 60_000);
});
