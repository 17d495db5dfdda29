// Before/after on a repository shaped like nanoGPT: data git ignores, inside a tracked directory whose code is under
// test too. The data follows the code into every worktree by links to the ignored files only (never over a tracked
// file); a side that fails says why, with a hint when it misses a path your tree has; the working-tree side runs a
// snapshot taken at the start; a side can be profiled (run again) after its sweep, in a worktree made again.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createClient, dispatch, type Run } from '../../electron/shared/api.js';
import type { Sweep } from '../../electron/shared/api.js';
import { readGitProvenance } from '../../electron/core/runner/gitProvenance.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir, tempCore, type TempCore } from '../helpers/tempCore.js';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

/** The data preparation script, tracked in data/ like nanoGPT's prepare.py: it says the step time the trainer prints. */
const prepare = (ms: number) => `echo ${ms}\n`;
/** The trainer: reads the ignored data file (failing as Python would without it), then prints nanoGPT's step lines. */
const TRAIN = [
  'test -f data/shakespeare_char/train.bin || { echo "FileNotFoundError: [Errno 2] No such file or directory: \'data/shakespeare_char/train.bin\'"; exit 1; }',
  'ms=$(sh data/shakespeare_char/prepare.sh)',
  'for i in $(seq 1 12); do echo "iter $i: loss 3.0$i, time ${ms}.00ms, mfu 1.00%"; done',
  '',
].join('\n');

/** Two commits (40 ms, then 20 ms per step: the change is in data/'s tracked script), the data ignored and present. */
function nanoRepo(dir: string): { repo: string; slow: string; fast: string } {
  const repo = path.join(dir, 'nano');
  fs.mkdirSync(path.join(repo, 'data/shakespeare_char'), { recursive: true });
  git(repo, 'init', '-q');
  fs.writeFileSync(path.join(repo, '.gitignore'), '*.bin\n__pycache__/\n');
  fs.writeFileSync(path.join(repo, 'train.sh'), TRAIN);
  fs.writeFileSync(path.join(repo, 'data/shakespeare_char/prepare.sh'), prepare(40));
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'the first version');
  const slow = git(repo, 'rev-parse', 'HEAD').trim();
  fs.writeFileSync(path.join(repo, 'data/shakespeare_char/prepare.sh'), prepare(20));
  git(repo, 'commit', '-qam', 'faster data preparation');
  const fast = git(repo, 'rev-parse', 'HEAD').trim();
  fs.writeFileSync(path.join(repo, 'data/shakespeare_char/train.bin'), 'tokens');
  fs.mkdirSync(path.join(repo, '__pycache__'));
  fs.writeFileSync(path.join(repo, '__pycache__/x.pyc'), 'cache');
  return { repo, slow, fast };
}

/** The contract's typed client: inputs parsed (defaults filled) as every face's are. */
const api = (h: TempCore) => createClient((method, input) => dispatch(h.core.handlers, method, input));

describe('a before/after of a repository whose data git ignores', () => {
  const dir = makeTempDir('tb-gitdata-');
  const db = path.join(dir, 'runs.db');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('links the ignored files inside data/ one by one: each side runs its own tracked code in data/, and no run is dirty', () => {
    const { repo, slow, fast } = nanoRepo(dir);
    const statusBefore = git(repo, 'status', '--porcelain', '--ignored');
    const result = runCli(
      [
        '--db',
        db,
        'sweep',
        '--json',
        '--vary',
        `git=${slow.slice(0, 8)},main`,
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
    // The change under test is in data/: the two sides ran different code there.
    expect(sweep.configs.map((c) => [c.status, c.stepTimeMsMedian])).toEqual([
      ['done', 40],
      ['done', 20],
    ]);
    // Named after its revisions, sides by short SHA and subject.
    expect(sweep.name).toBe(`before/after: ${slow.slice(0, 7)} → ${fast.slice(0, 7)}`);
    expect(sweep.configs.map((c) => c.name)).toEqual([`${slow.slice(0, 7)} the first version`, `${fast.slice(0, 7)} faster data preparation`]);
    const runs = sweep.configs.map((c) => JSON.parse(runCli(['--db', db, 'show', String(c.runIds[0]), '--json']).stdout) as Run);
    expect(runs.map((r) => [r.git?.commit, r.git?.dirty])).toEqual([
      [slow, false],
      [fast, false],
    ]);
    // The record says what was linked: the ignored file, not the tracked directory.
    expect(runs[0]!.checkout).toMatchObject({
      root: repo,
      revision: slow.slice(0, 8),
      commit: slow,
      snapshot: null,
      links: ['data/shakespeare_char/train.bin'],
    });
    // The code diff between the two sides, long after their worktrees are gone.
    const diff = runCli(['--db', db, 'diff', String(runs[0]!.id), String(runs[1]!.id)]);
    expect(diff.status, diff.stderr).toBe(0);
    expect(diff.stdout).toContain(`# run ${runs[0]!.id} (${slow.slice(0, 12)}) → run ${runs[1]!.id} (${fast.slice(0, 12)}), in ${repo}`);
    expect(diff.stdout).toContain('--- a/data/shakespeare_char/prepare.sh');
    expect(diff.stdout).toContain('-echo 40\n+echo 20');
    // The sweep's worktree folder is gone whole; the user's tree (ignored files included) is as it was.
    expect(fs.existsSync(path.join(dir, 'worktrees', `sweep-${sweep.id}`))).toBe(false);
    expect(git(repo, 'status', '--porcelain', '--ignored')).toBe(statusBefore);
    expect(git(repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
  }, 150_000);

  it('refuses to link a tracked file, before anything runs', () => {
    const repo = path.join(dir, 'nano');
    const result = runCli(['--db', db, 'sweep', '--vary', 'git=HEAD~1,HEAD', '--no-wait-idle', '--link', 'train.sh', '--cwd', repo, '--', 'sh', 'train.sh']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--link train.sh: git tracks it, so each revision has its own');
  });

  it('says why a side failed, with a hint when it misses a path your tree has', () => {
    const repo = path.join(dir, 'nano');
    const result = runCli(
      ['--db', db, 'sweep', '--json', '--vary', 'git=HEAD~1,HEAD', '--repeats', '1', '--no-wait-idle', '--cwd', repo, '--', 'sh', 'train.sh'],
      {
        timeoutMs: 120_000,
      },
    );
    // Before anything runs, the CLI says which untracked data it could link.
    expect(result.stderr).toContain('not linked: data/ (ignored files inside a tracked directory)');
    const sweep = JSON.parse(result.stdout) as Sweep;
    expect(sweep.status).toBe('failed');
    for (const config of sweep.configs) {
      expect(config.failure?.reason).toContain("FileNotFoundError: [Errno 2] No such file or directory: 'data/shakespeare_char/train.bin'");
      expect(config.failure?.hint).toContain('data/shakespeare_char/train.bin is in your tree but not in the worktree: git does not track it');
      expect(config.failure?.hint).toContain('--link data/shakespeare_char/train.bin');
    }
    const table = runCli(['--db', db, 'sweep', '--vary', 'git=HEAD~1,HEAD', '--repeats', '1', '--no-wait-idle', '--cwd', repo, '--', 'sh', 'train.sh'], {
      timeoutMs: 120_000,
    });
    expect(table.stdout).toContain('FileNotFoundError');
    expect(table.stdout).toContain('hint: data/shakespeare_char/train.bin is in your tree');
  }, 150_000);
});

describe('the untracked data a before/after can link, as the form offers it', () => {
  let h: TempCore | undefined;
  afterEach(async () => {
    await h?.cleanup();
    h = undefined;
  });

  it('lists each ignored or untracked path by its top folder, data pre-selected, caches not', async () => {
    h = tempCore();
    const { repo } = nanoRepo(h.dir);
    fs.mkdirSync(path.join(repo, 'out'));
    fs.writeFileSync(path.join(repo, 'out/ckpt.pt'), 'weights');
    fs.writeFileSync(path.join(repo, 'notes.txt'), 'todo');
    const revisions = await api(h)['git.revisions']({ cwd: repo, limit: 10 });
    expect(revisions.untracked.map((u) => [u.path, u.kind, u.suggested])).toEqual([
      ['__pycache__/', 'ignored', false],
      ['data/', 'inside-tracked', true],
      ['notes.txt', 'untracked', false],
      ['out/', 'untracked', false],
    ]);
    expect(revisions.untracked.find((u) => u.path === 'data/')!.inside).toEqual(['data/shakespeare_char/train.bin']);
  });
});

describe('the working-tree side and sides after their sweep', () => {
  let h: TempCore | undefined;
  afterEach(async () => {
    await h?.cleanup();
    h = undefined;
  });

  it('runs the working tree from a snapshot taken at the start: an edit made mid-sweep does not reach its repeats', async () => {
    h = tempCore();
    const { repo } = nanoRepo(h.dir);
    const prepareFile = path.join(repo, 'data/shakespeare_char/prepare.sh');
    fs.writeFileSync(prepareFile, prepare(10));
    const atStart = await readGitProvenance(repo, process.env as Record<string, string>);
    // Every run edits your tree's copy, as a person would mid-sweep: the working-tree side must not see it.
    const command = `sh train.sh; printf 'echo 99\\n' > '${prepareFile}'`;
    const sweep = await api(h)['sweeps.start']({
      command: { template: [command], mode: 'shell', cwd: repo },
      vary: [{ name: 'git', values: ['HEAD', 'WORKTREE'] }],
      links: ['data'],
      plan: 'one-at-a-time',
      repeats: 2,
      waitForIdle: false,
    });
    const ended = await h.core.waitForSweepEnd(sweep.id);
    expect(ended.configs.map((c) => [c.status, c.stepTimeMsMedian])).toEqual([
      ['done', 20],
      ['done', 10],
    ]);
    expect(fs.readFileSync(prepareFile, 'utf8')).toBe(prepare(99));
    const worktreeRuns = ended.configs[1]!.runIds.map((id) => h!.core.store.runs.get(id)!);
    for (const run of worktreeRuns) {
      // The snapshot's diff is the record's: the same as your tree's when the sweep started.
      expect(run.git).toMatchObject({ dirty: true, diffSha256: atStart!.provenance.diffSha256 });
      expect(run.checkout?.snapshot).toMatch(/^[0-9a-f]{40}$/u);
    }
    const diff = await api(h)['runs.codeDiff']({ id: worktreeRuns[0]!.id });
    expect(diff.diff).toContain('+echo 10');
    // Between the sides: HEAD's code against the snapshot's, rebuilt from the records.
    const between = await api(h)['runs.codeDiffBetween']({ fromId: ended.configs[0]!.runIds[0]!, toId: worktreeRuns[0]!.id });
    expect(between.diff).toContain('-echo 20\n+echo 10');
    expect(git(repo, 'status', '--porcelain')).toBe(' M data/shakespeare_char/prepare.sh\n');
  }, 120_000);

  it('profiles (runs again) a side after its sweep, in its worktree made again with the same code and links, removed after', async () => {
    h = tempCore();
    const { repo, slow } = nanoRepo(h.dir);
    fs.writeFileSync(path.join(repo, 'data/shakespeare_char/prepare.sh'), prepare(10));
    const sweep = await api(h)['sweeps.start']({
      command: { template: ['sh train.sh'], mode: 'shell', cwd: repo },
      vary: [{ name: 'git', values: [slow, 'WORKTREE'] }],
      links: ['data'],
      plan: 'one-at-a-time',
      repeats: 1,
      waitForIdle: false,
    });
    const ended = await h.core.waitForSweepEnd(sweep.id);
    expect(ended.configs.map((c) => c.status)).toEqual(['done', 'done']);
    // Your tree moves on after the sweep: the side is made again from what was recorded, not from your tree now.
    fs.writeFileSync(path.join(repo, 'data/shakespeare_char/prepare.sh'), prepare(77));
    for (const config of ended.configs) {
      const side = h.core.store.runs.get(config.runIds[0]!)!;
      expect(fs.existsSync(side.cwd)).toBe(false);
      const again = await api(h)['runs.profile']({ id: side.id, warmupSteps: 2, steps: 2 });
      const rerun = await h.core.waitForExit(again.id);
      expect(
        rerun.status,
        h.core.store.runs
          .outputAfter(rerun.id, -1)
          .map((c) => c.data.toString())
          .join(''),
      ).toBe('succeeded');
      expect(rerun.summary.stepTimeMs.median).toBe(side.summary.stepTimeMs.median);
      expect(rerun.git).toMatchObject({ commit: side.git!.commit, dirty: side.git!.dirty, diffSha256: side.git!.diffSha256 });
      expect(rerun.checkout).toMatchObject({ commit: side.checkout!.commit, snapshot: side.checkout!.snapshot, links: side.checkout!.links });
      // Removed as the re-run ends.
      await vi.waitFor(() => expect(fs.existsSync(rerun.cwd)).toBe(false), { timeout: 10_000 });
    }
    // Run again (no profile): the same side, in its worktree made again.
    const side = h.core.store.runs.get(ended.configs[1]!.runIds[0]!)!;
    const again = await h.core.waitForExit((await api(h)['runs.rerun']({ id: side.id })).id);
    expect(again).toMatchObject({ status: 'succeeded', notes: `re-run of run #${side.id}`, config: { git: 'WORKTREE' } });
    expect(again.summary.stepTimeMs.median).toBe(10);
    await vi.waitFor(() => expect(git(repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1), { timeout: 10_000 });
  }, 120_000);
});
