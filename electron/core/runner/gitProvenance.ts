// Which code a run ran: the git commit, branch and uncommitted changes of the directory it started in.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Each git call is quick; one that hangs (a network filesystem, a lock) is given up on. */
const GIT_TIMEOUT_MS = 10_000;
/** The stored diff's limit: larger changes are recorded by hash and size only (a generated file, a dataset). */
export const MAX_STORED_DIFF_BYTES = 8 * 1024 * 1024;
/** Untracked files put into the diff, at most: a tree with thousands of them is not a code change. */
const MAX_UNTRACKED_FILES = 50;

export interface GitProvenance {
  /** The repository's top folder. */
  root: string;
  /** HEAD's commit, or null in a repository with no commit yet. */
  commit: string | null;
  /** The branch checked out, or null when HEAD is detached. */
  branch: string | null;
  /** Uncommitted changes to tracked files, or untracked files, were there. */
  dirty: boolean;
  /** sha256 of the uncommitted diff (tracked changes against HEAD, then untracked files), null when clean. */
  diffSha256: string | null;
  diffBytes: number;
}

export interface GitSnapshot {
  provenance: GitProvenance;
  /** The diff itself when it is within MAX_STORED_DIFF_BYTES. */
  diff: Buffer | null;
}

function git(cwd: string, args: readonly string[], env: Record<string, string>, okCodes: readonly number[] = [0]): Promise<Buffer | null> {
  return new Promise((resolve) => {
    // No pager, no prompts, and the user's tree never written (no index refresh: --no-optional-locks).
    execFile(
      'git',
      ['--no-pager', '--no-optional-locks', '-C', cwd, ...args],
      { env: { ...env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' }, timeout: GIT_TIMEOUT_MS, encoding: 'buffer', maxBuffer: 4 * MAX_STORED_DIFF_BYTES },
      (error, stdout) => {
        const code = error ? ((error as NodeJS.ErrnoException & { code?: unknown }).code as unknown) : 0;
        if (error && !(typeof code === 'number' && okCodes.includes(code))) return resolve(null);
        resolve(stdout);
      },
    );
  });
}

/** Null outside a repository, or where git is not installed. Never throws. */
export async function readGitProvenance(cwd: string, env: Record<string, string>): Promise<GitSnapshot | null> {
  const top = await git(cwd, ['rev-parse', '--show-toplevel'], env);
  if (top === null) return null;
  const root = top.toString('utf8').trim();
  const [head, branch, tree] = await Promise.all([
    git(cwd, ['rev-parse', '--verify', '-q', 'HEAD'], env),
    git(cwd, ['symbolic-ref', '--short', '-q', 'HEAD'], env),
    workingTreeStatus(root, env),
  ]);
  const commit = head?.toString('utf8').trim() || null;
  const { dirty, untracked } = tree;

  const parts: Buffer[] = [];
  if (dirty && commit !== null) {
    const tracked = await git(root, ['diff', 'HEAD', '--binary', '--no-color', '--no-ext-diff'], env);
    if (tracked) parts.push(tracked);
  }
  parts.push(...(await untrackedFilesDiff(root, untracked, env)));
  const diff = Buffer.concat(parts);
  const diffSha256 = dirty ? createHash('sha256').update(diff).digest('hex') : null;
  return {
    provenance: { root, commit, branch: branch?.toString('utf8').trim() || null, dirty, diffSha256, diffBytes: diff.length },
    diff: dirty && diff.length <= MAX_STORED_DIFF_BYTES ? diff : null,
  };
}

/** Whether the tree differs from HEAD, and its untracked files (an untracked symlink is a way to reach data, not code). */
export async function workingTreeStatus(root: string, env: Record<string, string>): Promise<{ dirty: boolean; untracked: string[] }> {
  const status = await git(root, ['status', '--porcelain=v1', '-z', '--untracked-files=all'], env);
  // A sweep links data/ into each worktree: such a link is not a code change.
  const isSymlink = (file: string) => {
    try {
      return fs.lstatSync(path.join(root, file.replace(/\/$/u, ''))).isSymbolicLink();
    } catch {
      return false;
    }
  };
  const entries = (status?.toString('utf8') ?? '').split('\0').filter((entry) => entry !== '' && !(entry.startsWith('?? ') && isSymlink(entry.slice(3))));
  return { dirty: entries.length > 0, untracked: entries.filter((entry) => entry.startsWith('?? ')).map((entry) => entry.slice(3)) };
}

/**
 * Untracked files as a diff from nothing (they are part of what runs: a new module), read-only; `reverse`
 * gives them as deletions, for a diff from the working tree to a commit.
 */
export async function untrackedFilesDiff(root: string, untracked: readonly string[], env: Record<string, string>, reverse = false): Promise<Buffer[]> {
  const parts: Buffer[] = [];
  for (const file of untracked.slice(0, MAX_UNTRACKED_FILES)) {
    const sides = reverse ? [file, '/dev/null'] : ['/dev/null', file];
    const added = await git(root, ['diff', '--no-index', '--binary', '--no-color', '--', ...sides], env, [0, 1]);
    if (added) parts.push(added);
  }
  if (untracked.length > MAX_UNTRACKED_FILES) parts.push(Buffer.from(`# and ${untracked.length - MAX_UNTRACKED_FILES} more untracked files, not shown\n`));
  return parts;
}
