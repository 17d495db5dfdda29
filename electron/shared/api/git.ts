// Git: the revisions of a run's repository and the diff between two of them.
import { z } from 'zod';
import { LIMITS } from './common.js';
/** A commit, branch or tag (anything `git rev-parse` reads), or `WORKTREE` for the tree as it is; never an option. */
export const gitRevisionValue = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^-\s][^\s]*$/u, 'a revision is a commit, branch or tag (no spaces, not starting with -), or WORKTREE');

export const gitCommit = z.object({ sha: z.string(), subject: z.string(), date: z.string(), author: z.string() });

/** A branch or tag, with the commit it names. */
export const gitRef = z.object({ name: z.string(), kind: z.enum(['branch', 'tag', 'remote']), commit: gitCommit });

/**
 * A path git does not track that a before/after can link into each worktree, by its top folder: `ignored` or
 * `untracked` (the whole path), or `inside-tracked` (a tracked folder holding untracked or ignored paths, listed in
 * `inside`, each linked on its own so the revision's tracked files stay its own).
 */
export const gitUntrackedPath = z.object({
  path: z.string(),
  kind: z.enum(['ignored', 'untracked', 'inside-tracked']),
  directory: z.boolean(),
  /** For `inside-tracked`: the untracked and ignored paths inside (at most 50 listed). */
  inside: z.array(z.string()),
  /** How many there are inside, listed or not. */
  insideCount: z.number().int().nonnegative(),
  /** Likely data the script reads (ignored, a data name or data files, not a cache): offered ticked. */
  suggested: z.boolean(),
});

export const gitRevisions = z.object({
  root: z.string(),
  branch: z.string().nullable(),
  head: z.string().nullable(),
  /** Uncommitted changes or untracked files: "working tree vs HEAD" has something to measure. */
  dirty: z.boolean(),
  commits: z.array(gitCommit),
  /** Local branches, tags and remote branches, newest commit first (at most 200). */
  refs: z.array(gitRef).default([]),
  /** What git does not track, by top folder: data to link into each worktree. */
  untracked: z.array(gitUntrackedPath).default([]),
});

export const gitRevisionDiff = z.object({
  root: z.string(),
  from: z.object({ value: z.string(), commit: z.string().nullable() }),
  to: z.object({ value: z.string(), commit: z.string().nullable() }),
  diff: z.string(),
  /** The whole diff's size; `truncated` when `diff` holds only its beginning. */
  bytes: z.number().int().nonnegative(),
  truncated: z.boolean(),
});

export type GitRevisions = z.output<typeof gitRevisions>;

export type GitUntrackedPath = z.output<typeof gitUntrackedPath>;

export type GitCommit = z.output<typeof gitCommit>;

export type GitRevisionDiff = z.output<typeof gitRevisionDiff>;

/** Git methods: `git.*`, read-only. */
export const gitMethods = {
  /**
   * The recent commits of the repository `cwd` is in (newest first, from HEAD), and whether its tree has uncommitted
   * changes: what a before/after picks its two sides from. Not a repository: `invalid_input`, saying what to give.
   */
  'git.revisions': {
    input: z.object({ cwd: z.string().min(1).max(LIMITS.argChars), limit: z.number().int().min(1).max(500).default(50) }),
    output: gitRevisions,
  },
  /** Any revision typed (a branch, tag, commit, `HEAD~3`, `main@{yesterday}`): the commit it names, with its subject and date. */
  'git.resolve': {
    input: z.object({ cwd: z.string().min(1).max(LIMITS.argChars), revision: gitRevisionValue }),
    output: z.object({ value: z.string(), commit: gitCommit }),
  },
  /** The diff from one revision to another (either may be `WORKTREE`: the tree as it is, untracked files included). */
  'git.diff': {
    input: z.object({ cwd: z.string().min(1).max(LIMITS.argChars), from: gitRevisionValue, to: gitRevisionValue }),
    output: gitRevisionDiff,
  },
} as const;
