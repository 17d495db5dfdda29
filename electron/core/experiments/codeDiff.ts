// The code diff between two runs: each run's code rebuilt as a git tree (its commit, with its recorded uncommitted
// diff applied in a temporary index), then diffed. Only objects are written to the repository; your tree, index and
// refs are never touched.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Run } from '../../shared/api.js';
import { gitText, runGit } from './git.js';

/** Bad input a person can fix (a run outside git, a diff too large to have been kept): the message says what. */
export class CodeDiffError extends Error {
  override name = 'CodeDiffError';
}

/** The most of a diff one answer carries: what a page shows without stalling (gitRevisions.ts's limit too). */
const MAX_SHOWN_DIFF_BYTES = 2 * 1024 * 1024;

export interface RunsCodeDiff {
  /** The repository the diff was made in. */
  root: string;
  /** Each run's code, and the tree object it was rebuilt as (`git diff FROM_TREE TO_TREE` in `root` shows it all). */
  from: { runId: number; code: string; tree: string };
  to: { runId: number; code: string; tree: string };
  diff: string;
  bytes: number;
  truncated: boolean;
}

/** The repository a run's code lives in: your tree for a before/after side (its worktree is temporary), else its own. */
function repositoryOf(run: Run): string {
  if (!run.git) throw new CodeDiffError(`run ${run.id} did not run in a git repository: there is no code to diff`);
  return run.checkout?.root ?? run.git.root;
}

function codeText(run: Run): string {
  const git = run.git!;
  const commit = git.commit?.slice(0, 12) ?? 'no commit';
  return git.dirty ? `${commit} + uncommitted changes (${git.diffBytes} bytes)` : commit;
}

/** The run's code as a tree object in `root`'s repository. */
async function treeOf(run: Run, root: string, storedDiff: (sha256: string) => Buffer | null, env: Record<string, string>, scratch: string): Promise<string> {
  const git = run.git!;
  if (git.commit === null) throw new CodeDiffError(`run ${run.id} ran in a repository with no commit yet: there is nothing to diff against`);
  const known = await runGit(root, ['cat-file', '-e', `${git.commit}^{commit}`], env);
  if (!known.ok) throw new CodeDiffError(`run ${run.id}'s commit ${git.commit.slice(0, 12)} is not in ${root} (another repository, or pruned since)`);
  if (!git.dirty) return (await gitText(root, ['rev-parse', `${git.commit}^{tree}`], env)).trim();
  const diff = git.diffSha256 ? storedDiff(git.diffSha256) : null;
  if (!diff) {
    throw new CodeDiffError(
      `run ${run.id}'s uncommitted changes were ${git.diffBytes} bytes, too large to keep: only their hash (${git.diffSha256 ?? '?'}) was recorded`,
    );
  }
  const index = path.join(scratch, `index-${run.id}`);
  const patch = path.join(scratch, `changes-${run.id}.diff`);
  fs.writeFileSync(patch, diff);
  const scratchEnv = { GIT_INDEX_FILE: index };
  await gitText(root, ['read-tree', git.commit], env, { env: scratchEnv });
  if (diff.length > 0) {
    const applied = await runGit(root, ['apply', '--cached', '--binary', '--whitespace=nowarn', patch], env, { env: scratchEnv });
    if (!applied.ok) throw new CodeDiffError(`run ${run.id}'s recorded changes no longer apply to ${git.commit.slice(0, 12)}: ${applied.stderr}`);
  }
  return (await gitText(root, ['write-tree'], env, { env: scratchEnv })).trim();
}

/** What changed in the code from run `from` to run `to`. */
export async function codeDiffBetween(from: Run, to: Run, storedDiff: (sha256: string) => Buffer | null, env: Record<string, string>): Promise<RunsCodeDiff> {
  const root = repositoryOf(from);
  repositoryOf(to);
  if (!fs.existsSync(root)) throw new CodeDiffError(`run ${from.id}'s repository ${root} is gone`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-codediff-'));
  try {
    const [a, b] = [await treeOf(from, root, storedDiff, env, scratch), await treeOf(to, root, storedDiff, env, scratch)];
    const answer = await runGit(root, ['diff', '--no-color', '--no-ext-diff', a, b], env);
    if (!answer.ok) throw new Error(`git diff in ${root}: ${answer.stderr}`);
    const whole = answer.stdout;
    const truncated = whole.length > MAX_SHOWN_DIFF_BYTES;
    return {
      root,
      from: { runId: from.id, code: codeText(from), tree: a },
      to: { runId: to.id, code: codeText(to), tree: b },
      diff: (truncated ? whole.subarray(0, MAX_SHOWN_DIFF_BYTES) : whole).toString('utf8'),
      bytes: whole.length,
      truncated,
    };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
