// Sweeps of a typed command, and of git revisions: each revision in a temporary worktree, the user's tree untouched.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Sweep } from '../../electron/shared/api.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/tempCore.js';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

/** A training script in nanoGPT's format whose printed step time is `ms`; it reads data/ that git does not track. */
function trainScript(ms: number): string {
  return `test -f data/shard.bin || { echo "no data/shard.bin"; exit 3; }\nfor i in $(seq 1 20); do echo "iter $i: loss 3.0$i, time ${ms}.00ms, mfu 1.00%"; done\n`;
}

describe('sweeping git revisions of a script', () => {
  const dir = makeTempDir('tb-gitsweep-');
  const repo = path.join(dir, 'project');
  const db = path.join(dir, 'runs.db');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('runs each revision in its own worktree, finds the speedup, and leaves the tree as it was', () => {
    fs.mkdirSync(path.join(repo, 'data'), { recursive: true });
    git(repo, 'init', '-q');
    fs.writeFileSync(path.join(repo, '.gitignore'), 'data/\n');
    fs.writeFileSync(path.join(repo, 'train.sh'), trainScript(40));
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'slow');
    const slow = git(repo, 'rev-parse', 'HEAD').trim();
    fs.writeFileSync(path.join(repo, 'train.sh'), trainScript(20));
    git(repo, 'commit', '-qam', 'fast');
    const fast = git(repo, 'rev-parse', 'HEAD').trim();
    fs.writeFileSync(path.join(repo, 'data/shard.bin'), 'tokens');
    // An uncommitted change: WORKTREE runs it as it is.
    fs.writeFileSync(path.join(repo, 'train.sh'), trainScript(10));
    const statusBefore = git(repo, 'status', '--porcelain');

    const result = runCli(
      [
        '--db',
        db,
        'sweep',
        '--json',
        '--vary',
        `git=${slow.slice(0, 8)},main,WORKTREE`,
        '--plan',
        'one-at-a-time',
        '--repeats',
        '1',
        '--no-wait-idle',
        '--link',
        'data',
        '--cwd',
        repo,
        '--',
        'sh',
        'train.sh',
      ],
      { timeoutMs: 120_000 },
    );
    expect(result.status, result.stderr).toBe(0);
    const sweep = JSON.parse(result.stdout) as Sweep;
    // Sides named by short SHA and subject; the sweep after its revisions.
    expect(sweep.name).toBe(`git ${slow.slice(0, 7)}, ${fast.slice(0, 7)}, working tree`);
    expect(sweep.configs.map((c) => [c.name, c.status, c.stepTimeMsMedian])).toEqual([
      [`${slow.slice(0, 7)} slow`, 'done', 40],
      [`${fast.slice(0, 7)} fast`, 'done', 20],
      [`working tree (changes on ${fast.slice(0, 7)})`, 'done', 10],
    ]);
    const runs = sweep.configs.map(
      (c) =>
        JSON.parse(runCli(['--db', db, 'show', String(c.runIds[0]), '--json']).stdout) as {
          cwd: string;
          config: Record<string, string>;
          git: { commit: string; dirty: boolean };
        },
    );
    expect(runs.map((r) => [r.git.commit, r.git.dirty, r.config.git])).toEqual([
      [slow, false, slow.slice(0, 8)],
      [fast, false, 'main'],
      [fast, true, 'WORKTREE'],
    ]);
    // Every side in a worktree of its own, the working tree's from a snapshot taken as the sweep started.
    expect(runs.map((r) => r.cwd).filter((cwd) => cwd === repo)).toEqual([]);
    // The worktrees are gone, git's record of them pruned, and the user's tree is as it was.
    expect(fs.existsSync(runs[0]!.cwd)).toBe(false);
    expect(git(repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(git(repo, 'status', '--porcelain')).toBe(statusBefore);
    expect(fs.readFileSync(path.join(repo, 'train.sh'), 'utf8')).toBe(trainScript(10));
  }, 150_000);

  it('refuses a revision that does not exist before running anything', () => {
    const result = runCli(['--db', db, 'sweep', '--vary', 'git=main,no-such-branch', '--no-wait-idle', '--cwd', repo, '--', 'sh', 'train.sh']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/git=no-such-branch: no such commit, branch or tag/u);
  });

  it('sweeps a typed command with {var} placeholders, values quoted as one argument each', () => {
    const result = runCli(
      [
        '--db',
        db,
        'sweep',
        '--json',
        '--vary',
        'ms=30,15',
        '--repeats',
        '1',
        '--no-wait-idle',
        '--cwd',
        dir,
        '--',
        'sh',
        '-c',
        'for i in 1 2 3 4 5; do echo "iter $i: loss 3.0, time $0.00ms"; done',
        '{ms}',
      ],
      { timeoutMs: 60_000 },
    );
    expect(result.status, result.stderr).toBe(0);
    const sweep = JSON.parse(result.stdout) as Sweep;
    expect(sweep.configs.map((c) => c.stepTimeMsMedian)).toEqual([30, 15]);
    expect(sweep.workloadName).toBe('ad-hoc command');
  }, 90_000);
});
