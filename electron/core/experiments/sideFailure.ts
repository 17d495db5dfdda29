// Why a before/after side failed, in words a person can act on: the run's own reason, and a hint when its output
// names a path your tree has and its worktree lacked (data git does not track, not linked).
import fs from 'node:fs';
import path from 'node:path';
import type { Run, RunCheckout } from '../../shared/api.js';

/** Quoted paths (Python's FileNotFoundError quotes them) and bare words with a slash. */
const PATH_LIKE = /'([^'\n]+)'|"([^"\n]+)"|([\w.~+-]*\/[\w./~+-]+)/gu;
/** Paths named in a failure's text that are worth a hint: a handful, the first ones. */
const MAX_MISSING = 5;

/**
 * The paths `text` names that your tree has and the side's worktree lacks, relative to the repository's top.
 * Read while the worktree still exists (as the run ends).
 */
export function missingPaths(text: string, run: { cwd: string }, checkout: RunCheckout): string[] {
  const tree = path.resolve(run.cwd, path.relative(checkout.relativeCwd, '.'));
  const found = new Set<string>();
  for (const match of text.matchAll(PATH_LIKE)) {
    const named = (match[1] ?? match[2] ?? match[3] ?? '').replace(/[.,:;)]+$/u, '');
    if (named === '' || named.includes('://')) continue;
    const absolute = path.resolve(run.cwd, named);
    const inTree = path.relative(tree, absolute);
    const relative = inTree.startsWith('..') || path.isAbsolute(inTree) ? path.relative(checkout.root, absolute) : inTree;
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) continue;
    if (!fs.existsSync(path.join(tree, relative)) && fs.existsSync(path.join(checkout.root, relative))) found.add(relative);
    if (found.size >= MAX_MISSING) break;
  }
  return [...found];
}

/** What to do about a side's missing paths, or null when it missed none. */
export function failureHint(checkout: RunCheckout | null): string | null {
  if (!checkout || checkout.missing.length === 0) return null;
  const [first] = checkout.missing;
  const one = checkout.missing.length === 1;
  return (
    `${checkout.missing.join(', ')} ${one ? 'is' : 'are'} in your tree but not in the worktree: git does not track ${one ? 'it' : 'them'}, ` +
    `so a revision's worktree has ${one ? 'it' : 'them'} only if linked. Tick ${one ? 'it' : 'them'} under "Data git does not track" ` +
    `on the Before/after form, or give --link ${first} to tuning-bench sweep`
  );
}

/** A run of a sweep that failed: it ended in an error or ran out of time (one stopped by Skip or Cancel did not). */
export function isFailedRun(run: Pick<Run, 'status'>): boolean {
  return run.status === 'failed' || run.status === 'timed_out';
}

/** Why a failed run failed: its own reason (the line that said why), else how it ended. */
export function failureReason(run: Pick<Run, 'status' | 'exitClass' | 'exitCode' | 'exitReason'>): string {
  return run.exitReason ?? `${run.status.replace('_', ' ')} (${run.exitClass ?? 'no exit class'}, exit code ${run.exitCode ?? 'none'})`;
}

/** A config's failure as the sweep shows it: the first failed run's reason and the hint. */
export function sideFailure(runs: readonly Run[]): { runId: number; exitClass: string | null; reason: string; hint: string | null } | null {
  const failed = runs.find(isFailedRun);
  if (!failed) return null;
  return { runId: failed.id, exitClass: failed.exitClass, reason: failureReason(failed), hint: failureHint(failed.checkout) };
}
