// Git revisions as a sweep variable: each revision checked out once in a temporary worktree, removed when the sweep ends.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The sweep variable whose values are git revisions rather than command values. */
export const GIT_VARIABLE = 'git';
/** The value that means the user's own tree, as it is (uncommitted changes included). */
export const WORKTREE_VALUE = 'WORKTREE';
const GIT_TIMEOUT_MS = 120_000;

export class GitWorktreeError extends Error {
  override name = 'GitWorktreeError';
}

function git(cwd: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', ['-C', cwd, ...args], { timeout: GIT_TIMEOUT_MS, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } }, (error, stdout, stderr) => {
      if (error) reject(new GitWorktreeError(`git ${args.join(' ')}: ${stderr.toString().trim() || error.message}`));
      else resolve(stdout.toString());
    });
  });
}

export interface RevisionPlan {
  /** The repository's top folder holding the command's directory. */
  root: string;
  /** Each value as given and the commit it names (null for WORKTREE). */
  revisions: Array<{ value: string; commit: string | null }>;
}

/** Checks every revision before anything runs: a typo fails the sweep's start, not its fifth run. */
export async function planRevisions(cwd: string, values: readonly string[], links: readonly string[]): Promise<RevisionPlan> {
  let root: string;
  try {
    root = (await git(cwd, ['rev-parse', '--show-toplevel'])).trim();
  } catch {
    throw new GitWorktreeError(`--vary ${GIT_VARIABLE}=... needs the command's directory in a git repository; ${cwd} is not in one`);
  }
  const revisions: RevisionPlan['revisions'] = [];
  for (const value of values) {
    if (value === WORKTREE_VALUE) {
      revisions.push({ value, commit: null });
      continue;
    }
    try {
      revisions.push({ value, commit: (await git(root, ['rev-parse', '--verify', '--quiet', `${value}^{commit}`])).trim() });
    } catch {
      throw new GitWorktreeError(`${GIT_VARIABLE}=${value}: no such commit, branch or tag in ${root}`);
    }
  }
  for (const link of links) {
    const source = path.resolve(root, link);
    if (!fs.existsSync(source)) throw new GitWorktreeError(`--link ${link}: ${source} does not exist; give paths relative to ${root}`);
  }
  return { root, revisions };
}

/**
 * The worktrees of one sweep, made on first use and removed by `close()` (kept on request). The
 * user's own tree and index are never written: `git worktree add` writes only under `.git/worktrees`.
 */
export class SweepWorktrees {
  private readonly made = new Map<string, string>();

  constructor(
    private readonly plan: RevisionPlan,
    private readonly baseDir: string,
    private readonly links: readonly string[],
  ) {}

  /** The directory a config with this revision runs in: `cwd` mapped into the revision's worktree. */
  async cwdFor(value: string, cwd: string): Promise<string> {
    const revision = this.plan.revisions.find((r) => r.value === value);
    if (!revision) throw new GitWorktreeError(`${GIT_VARIABLE}=${value} was not planned`);
    if (revision.commit === null) return cwd;
    let tree = this.made.get(revision.commit);
    if (!tree) {
      tree = path.join(this.baseDir, revision.commit.slice(0, 12));
      fs.mkdirSync(this.baseDir, { recursive: true });
      if (fs.existsSync(tree)) await git(this.plan.root, ['worktree', 'remove', '--force', tree]).catch(() => fs.rmSync(tree!, { recursive: true, force: true }));
      await git(this.plan.root, ['worktree', 'add', '--detach', '--force', tree, revision.commit]);
      for (const link of this.links) {
        const target = path.join(tree, link);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.rmSync(target, { recursive: true, force: true });
        fs.symlinkSync(path.resolve(this.plan.root, link), target);
      }
      this.made.set(revision.commit, tree);
    }
    const relative = path.relative(this.plan.root, fs.realpathSync(cwd));
    return path.join(tree, relative);
  }

  /** Removes every worktree made (unless kept) and prunes git's records of them. */
  async close(keep: boolean): Promise<string[]> {
    const trees = [...this.made.values()];
    if (!keep) {
      for (const tree of trees) await git(this.plan.root, ['worktree', 'remove', '--force', tree]).catch(() => fs.rmSync(tree, { recursive: true, force: true }));
      await git(this.plan.root, ['worktree', 'prune']).catch(() => undefined);
      this.made.clear();
    }
    return trees;
  }
}
