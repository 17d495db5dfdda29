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

export const gitRevisions = z.object({
  root: z.string(),
  branch: z.string().nullable(),
  head: z.string().nullable(),
  /** Uncommitted changes or untracked files: "working tree vs HEAD" has something to measure. */
  dirty: z.boolean(),
  commits: z.array(gitCommit),
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
  /** The diff from one revision to another (either may be `WORKTREE`: the tree as it is, untracked files included). */
  'git.diff': {
    input: z.object({ cwd: z.string().min(1).max(LIMITS.argChars), from: gitRevisionValue, to: gitRevisionValue }),
    output: gitRevisionDiff,
  },
} as const;
