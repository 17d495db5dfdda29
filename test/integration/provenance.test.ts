// Every run records the code it ran: commit, branch, uncommitted changes (stored once, by hash), and compare flags a difference.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { conditionDifferences } from '../../electron/core/compare/compare.js';
import { dispatch, type MethodOutput } from '../../electron/shared/api.js';
import { makeTempDir, tempCore } from '../helpers/tempCore.js';

const harness = tempCore();
afterAll(() => harness.cleanup());

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

async function runIn(cwd: string) {
  const run = harness.core.runner.start({ workload: null, values: {}, adHoc: { command: ['sh', 'train.sh'], cwd } });
  return harness.core.runner.waitForExit(run.id);
}

describe('git provenance of a run', () => {
  const repo = makeTempDir('tb-repo-');
  afterAll(() => fs.rmSync(repo, { recursive: true, force: true }));

  it('records commit, branch, and the uncommitted diff with its hash; the user tree is untouched', async () => {
    git(repo, 'init', '-q');
    fs.writeFileSync(path.join(repo, 'train.sh'), 'echo "step 1: loss 3.0"\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'first');
    const head = git(repo, 'rev-parse', 'HEAD').trim();

    const clean = await runIn(repo);
    expect(clean.git).toMatchObject({ root: fs.realpathSync(repo), commit: head, branch: 'main', dirty: false, diffSha256: null });

    fs.writeFileSync(path.join(repo, 'train.sh'), 'echo "step 1: loss 2.0"\n');
    fs.writeFileSync(path.join(repo, 'helper.py'), 'print("new module")\n');
    const statusBefore = git(repo, 'status', '--porcelain');
    const dirty = await runIn(repo);
    expect(dirty.git).toMatchObject({ commit: head, dirty: true });
    expect(dirty.git!.diffSha256).toMatch(/^[0-9a-f]{64}$/u);
    expect(git(repo, 'status', '--porcelain')).toBe(statusBefore);

    const answer = (await dispatch(harness.core.handlers, 'runs.codeDiff', { id: dirty.id })) as { ok: true; value: MethodOutput<'runs.codeDiff'> };
    expect(answer.value.diff).toContain('+echo "step 1: loss 2.0"');
    expect(answer.value.diff).toContain('+print("new module")');

    // The same tree again: the same hash, the diff stored once.
    const again = await runIn(repo);
    expect(again.git!.diffSha256).toBe(dirty.git!.diffSha256);
    expect(harness.core.store.db.prepare('SELECT COUNT(*) AS n FROM code_diffs').get()).toEqual({ n: 1 });

    expect(conditionDifferences(dirty, clean)).toContainEqual(
      `code: ${head.slice(0, 10)} + uncommitted ${dirty.git!.diffSha256!.slice(0, 8)} vs ${head.slice(0, 10)}`,
    );
    expect(conditionDifferences(again, dirty).filter((d) => d.startsWith('code:'))).toEqual([]);
  });

  it('is null outside a repository', async () => {
    const plain = makeTempDir();
    fs.writeFileSync(path.join(plain, 'train.sh'), 'echo hi\n');
    const run = await runIn(plain);
    expect(run.git).toBeNull();
    const answer = (await dispatch(harness.core.handlers, 'runs.codeDiff', { id: run.id })) as { ok: true; value: MethodOutput<'runs.codeDiff'> };
    expect(answer.value).toEqual({ diff: null, reason: 'the run did not start in a git repository' });
    fs.rmSync(plain, { recursive: true, force: true });
  });
});
