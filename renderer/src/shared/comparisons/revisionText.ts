// How a git revision reads in the UI: commits short, the working tree in words.

/** The sweep value for the tree as it is (electron/core/experiments/gitWorktrees.ts WORKTREE_VALUE). */
export const WORKTREE = 'WORKTREE';
/** A commit's name as git shortens it by default: enough to tell commits of one repository apart. */
const SHORT_SHA_CHARS = 7;

export function revisionLabel(value: string): string {
  if (value === WORKTREE) return 'working tree';
  return /^[0-9a-f]{40}$/u.test(value) ? value.slice(0, SHORT_SHA_CHARS) : value;
}
