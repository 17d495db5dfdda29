// A before/after's engine side, through the contract: a repository's recent commits and whether its tree is dirty,
// the diff between two commits or a commit and the working tree, clear errors for a directory outside git and an
// unknown revision, and a before/after sweep that says which directory its revisions belong to.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GitRevisionDiff, GitRevisions, Sweep } from '../../electron/shared/api.js';
import { dispatch } from '../../electron/shared/api.js';
import { makeTempDir, tempCore, type TempCore } from '../helpers/tempCore.js';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

/** A script in nanoGPT's format whose printed step time is `ms`. */
function trainScript(ms: number): string {
  return `for i in $(seq 1 10); do echo "iter $i: loss 3.0$i, time ${ms}.00ms, mfu 1.00%"; done\n`;
}

describe('git revisions and diffs for a before/after', () => {
  const dir = makeTempDir('tb-gitrev-');
  const repo = path.join(dir, 'project');
  const outside = path.join(dir, 'not-a-repo');
  let temp: TempCore;
  let slow = '';
  let fast = '';

  beforeAll(() => {
    fs.mkdirSync(repo, { recursive: true });
    fs.mkdirSync(outside);
    git(repo, 'init', '-q');
    fs.writeFileSync(path.join(repo, 'train.sh'), trainScript(40));
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'slow: the first version');
    slow = git(repo, 'rev-parse', 'HEAD').trim();
    fs.writeFileSync(path.join(repo, 'train.sh'), trainScript(20));
    git(repo, 'commit', '-qam', 'fast: half the step time');
    fast = git(repo, 'rev-parse', 'HEAD').trim();
    temp = tempCore({ env: { ...process.env, TUNING_BENCH_NVIDIA_SMI: '/nonexistent/nvidia-smi' } });
  });
  afterAll(async () => {
    await temp.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const call = async (method: string, input: unknown) => dispatch(temp.core.handlers, method, input);

  it('lists the commits newest first, with subject and date, and a clean tree as clean', async () => {
    const answer = await call('git.revisions', { cwd: repo });
    expect(answer.ok).toBe(true);
    const revisions = (answer as { value: GitRevisions }).value;
    expect(revisions).toMatchObject({ root: fs.realpathSync(repo), branch: 'main', head: fast, dirty: false });
    expect(revisions.commits.map((c) => [c.sha, c.subject, c.author])).toEqual([
      [fast, 'fast: half the step time', 'Test'],
      [slow, 'slow: the first version', 'Test'],
    ]);
    expect(Number.isNaN(Date.parse(revisions.commits[0]!.date))).toBe(false);
    // From a subdirectory, the same repository.
    fs.mkdirSync(path.join(repo, 'sub'), { recursive: true });
    const fromSub = await call('git.revisions', { cwd: path.join(repo, 'sub'), limit: 1 });
    expect((fromSub as { value: GitRevisions }).value.commits.map((c) => c.sha)).toEqual([fast]);
  });

  it('gives the diff between two commits', async () => {
    const answer = await call('git.diff', { cwd: repo, from: slow.slice(0, 10), to: 'main' });
    expect(answer.ok).toBe(true);
    const diff = (answer as { value: GitRevisionDiff }).value;
    expect(diff.from).toEqual({ value: slow.slice(0, 10), commit: slow });
    expect(diff.to).toEqual({ value: 'main', commit: fast });
    expect(diff.diff).toContain('-for i in $(seq 1 10); do echo "iter $i: loss 3.0$i, time 40.00ms, mfu 1.00%"; done');
    expect(diff.diff).toContain('+for i in $(seq 1 10); do echo "iter $i: loss 3.0$i, time 20.00ms, mfu 1.00%"; done');
    expect(diff).toMatchObject({ truncated: false, bytes: Buffer.byteLength(diff.diff) });
  });

  it('sees uncommitted changes and untracked files as the working tree, without writing the tree or its index', async () => {
    fs.writeFileSync(path.join(repo, 'train.sh'), trainScript(10));
    fs.writeFileSync(path.join(repo, 'new_module.py'), 'FAST = True\n');
    const statusBefore = git(repo, 'status', '--porcelain');
    const indexBefore = fs.readFileSync(path.join(repo, '.git/index'));

    const listed = await call('git.revisions', { cwd: repo });
    expect((listed as { value: GitRevisions }).value.dirty).toBe(true);
    const answer = await call('git.diff', { cwd: repo, from: 'HEAD', to: 'WORKTREE' });
    const diff = (answer as { value: GitRevisionDiff }).value;
    expect(diff.to).toEqual({ value: 'WORKTREE', commit: null });
    expect(diff.diff).toContain('+for i in $(seq 1 10); do echo "iter $i: loss 3.0$i, time 10.00ms, mfu 1.00%"; done');
    expect(diff.diff).toContain('+++ b/new_module.py');
    expect(diff.diff).toContain('+FAST = True');
    // The other way round, the untracked file is a deletion.
    const back = (await call('git.diff', { cwd: repo, from: 'WORKTREE', to: 'HEAD' })) as { value: GitRevisionDiff };
    expect(back.value.diff).toContain('-FAST = True');
    expect(back.value.diff).toContain('+for i in $(seq 1 10); do echo "iter $i: loss 3.0$i, time 20.00ms, mfu 1.00%"; done');

    expect(git(repo, 'status', '--porcelain')).toBe(statusBefore);
    expect(fs.readFileSync(path.join(repo, '.git/index')).equals(indexBefore)).toBe(true);
    fs.rmSync(path.join(repo, 'new_module.py'));
    git(repo, 'checkout', '-q', '--', 'train.sh');
  });

  it('refuses a directory outside git and an unknown revision, saying what to give instead', async () => {
    const notRepo = await call('git.revisions', { cwd: outside });
    expect(notRepo).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect((notRepo as { error: { message: string } }).error.message).toMatch(
      /is not in a git repository.*give a directory inside your project's repository.*git init/u,
    );

    const missing = await call('git.revisions', { cwd: path.join(dir, 'nowhere') });
    expect((missing as { error: { message: string } }).error.message).toMatch(/is not a directory: give the directory your command runs in/u);

    const unknown = await call('git.diff', { cwd: repo, from: 'no-such-branch', to: 'main' });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect((unknown as { error: { message: string } }).error.message).toMatch(/"no-such-branch" is no commit, branch or tag in .*pick a commit from the list/u);

    // An option smuggled in as a revision never reaches git.
    const option = await call('git.diff', { cwd: repo, from: '--output=/tmp/x', to: 'main' });
    expect(option).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it('a before/after sweep of a typed command names its directory and revisions, baseline first', async () => {
    const answer = await call('sweeps.start', {
      command: { template: ['sh train.sh'], mode: 'shell', cwd: repo },
      vary: [{ name: 'git', values: [slow, fast] }],
      plan: 'one-at-a-time',
      repeats: 1,
      waitForIdle: false,
    });
    expect(answer.ok).toBe(true);
    const started = (answer as { value: Sweep }).value;
    expect(started.git).toMatchObject({ cwd: repo, revisions: [slow, fast], links: [] });
    // Each side as resolved when the sweep started, labelled by short SHA and subject.
    expect(started.git!.sides.map((side) => [side.commit, side.snapshot, side.label])).toEqual([
      [slow, null, `${slow.slice(0, 7)} slow: the first version`],
      [fast, null, `${fast.slice(0, 7)} fast: half the step time`],
    ]);
    const sweep = await temp.core.sweeps.waitForEnd(started.id);
    expect(sweep.configs.map((c) => [c.status, c.stepTimeMsMedian])).toEqual([
      ['done', 40],
      ['done', 20],
    ]);
    // A sweep over other variables has no revisions to diff.
    const plain = (await call('sweeps.start', {
      command: { template: ['sh train.sh {n}'], mode: 'shell', cwd: repo },
      vary: [{ name: 'n', values: ['1', '2'] }],
      repeats: 1,
      waitForIdle: false,
    })) as { value: Sweep };
    expect(plain.value.git).toBeNull();
    await temp.core.sweeps.waitForEnd(plain.value.id);
  }, 90_000);
});
