// Git revisions as a sweep variable: every revision resolved (and the working tree frozen) when the sweep starts,
// each checked out once in a temporary worktree with the untracked data linked in, all removed when the sweep ends;
// and one side made again later from what its run recorded, to profile or run it again.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunCheckout, SweepSide } from '../../shared/api.js';
import { gitText, runGit } from './git.js';
import { LinkError, resolveLinks } from './gitData.js';

/** The sweep variable whose values are git revisions rather than command values. */
export const GIT_VARIABLE = 'git';
/** The value that means your own tree, as it is when the sweep starts (uncommitted changes included). */
export const WORKTREE_VALUE = 'WORKTREE';
/** A commit's name as git shortens it by default. */
export const SHORT_SHA_CHARS = 7;
/** Subjects in labels are cut here: a label is a table cell. */
const SUBJECT_CHARS = 60;
/**
 * An untracked file larger than this is data, not code: the snapshot of the working tree would copy it into your
 * repository's objects. Such a file must be linked (or ignored); 64 MiB is far above any source file.
 */
export const MAX_SNAPSHOT_UNTRACKED_BYTES = 64 * 1024 * 1024;
/** Who a snapshot's commit object says made it (commit-tree needs an identity, and yours need not be configured). */
const SNAPSHOT_IDENTITY = {
  GIT_AUTHOR_NAME: 'Tuning Bench',
  GIT_AUTHOR_EMAIL: 'tuning-bench@localhost',
  GIT_COMMITTER_NAME: 'Tuning Bench',
  GIT_COMMITTER_EMAIL: 'tuning-bench@localhost',
};

export class GitWorktreeError extends Error {
  override name = 'GitWorktreeError';
}

/** What a `git=` sweep runs, fixed when it starts: kept with the sweep, so a resumed sweep runs the same code. */
export interface CheckoutPlan {
  /** The repository's top folder holding the command's directory. */
  root: string;
  sides: SweepSide[];
  /** Untracked or ignored paths linked into each worktree, relative to `root`. */
  links: string[];
}

const FIELD = '\x1f';

async function describeCommit(root: string, commit: string, env: Record<string, string>): Promise<{ subject: string; date: string }> {
  const text = await gitText(root, ['log', '-1', `--format=%s${FIELD}%cI`, commit], env);
  const [subject = '', date = ''] = text.trim().split(FIELD);
  return { subject, date };
}

export function sideLabel(side: Pick<SweepSide, 'value' | 'commit' | 'snapshot' | 'subject'>): string {
  const short = side.commit.slice(0, SHORT_SHA_CHARS);
  if (side.value === WORKTREE_VALUE) return side.snapshot ? `working tree (changes on ${short})` : `working tree (clean, ${short})`;
  const subject = side.subject.length > SUBJECT_CHARS ? `${side.subject.slice(0, SUBJECT_CHARS - 1)}…` : side.subject;
  return `${short} ${subject}`.trim();
}

/**
 * Checks every revision and link before anything runs (a typo fails the sweep's start, not its fifth run), resolves
 * each revision to its commit now (a branch that moves during the sweep does not change what runs), and freezes the
 * working tree as a snapshot commit object, so edits made during the sweep cannot reach its repeats.
 */
export async function planCheckout(
  cwd: string,
  values: readonly string[],
  requestedLinks: readonly string[],
  env: Record<string, string>,
): Promise<CheckoutPlan> {
  const top = await runGit(cwd, ['rev-parse', '--show-toplevel'], env);
  if (!top.ok) throw new GitWorktreeError(`--vary ${GIT_VARIABLE}=... needs the command's directory in a git repository; ${cwd} is not in one`);
  const root = top.stdout.toString('utf8').trim();
  let links: string[];
  try {
    links = await resolveLinks(root, requestedLinks, env);
  } catch (error) {
    if (error instanceof LinkError) throw new GitWorktreeError(error.message);
    throw error;
  }
  const sides: SweepSide[] = [];
  for (const value of values) {
    const asked = value === WORKTREE_VALUE ? 'HEAD' : value;
    const resolved = await runGit(root, ['rev-parse', '--verify', '--quiet', `${asked}^{commit}`], env);
    if (!resolved.ok) {
      throw new GitWorktreeError(
        value === WORKTREE_VALUE
          ? `${GIT_VARIABLE}=${WORKTREE_VALUE}: ${root} has no commit yet to measure its changes against; commit once first`
          : `${GIT_VARIABLE}=${value}: no such commit, branch or tag in ${root}`,
      );
    }
    const commit = resolved.stdout.toString('utf8').trim();
    const snapshot = value === WORKTREE_VALUE ? await snapshotWorkingTree(root, commit, links, env) : null;
    const { subject, date } = await describeCommit(root, commit, env);
    const side = { value, commit, snapshot, subject, date };
    sides.push({ ...side, label: sideLabel(side) });
  }
  return { root, sides, links };
}

/**
 * Your tree as it is now, as a commit object on HEAD: tracked changes and untracked files (not ignored ones, nor the
 * paths linked), staged in a temporary index. Your index, tree and refs are never written; the object stays in the
 * repository's object store, unreferenced, until `git gc` prunes it (two weeks by default). Null when the tree is clean.
 */
export async function snapshotWorkingTree(root: string, head: string, links: readonly string[], env: Record<string, string>): Promise<string | null> {
  const linked = (file: string) => links.some((link) => file === link || file.startsWith(`${link}/`));
  const allUntracked = (await gitText(root, ['status', '--porcelain=v1', '-z', '--untracked-files=all'], env))
    .split('\0')
    .filter((entry) => entry.startsWith('?? '))
    .map((entry) => entry.slice(3));
  const untracked = allUntracked.filter((file) => !linked(file));
  for (const file of untracked) {
    const stat = fs.lstatSync(path.join(root, file), { throwIfNoEntry: false });
    if (stat?.isFile() && stat.size > MAX_SNAPSHOT_UNTRACKED_BYTES) {
      throw new GitWorktreeError(
        `${file} (${Math.round(stat.size / 2 ** 20)} MiB) is untracked: the snapshot of your working tree would copy it into the repository. ` +
          `Link it (--link ${file}, or tick it under the data to link) or add it to .gitignore`,
      );
    }
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-snapshot-'));
  try {
    const index = path.join(scratch, 'index');
    const own = path.resolve(root, (await gitText(root, ['rev-parse', '--git-path', 'index'], env)).trim());
    // Your index's file stats spare hashing every file again; the copy is written, yours only read. The copy keeps
    // the index's own mtime: git reads a file changed in the same second as its index by content ("racy git"), and a
    // newer copy would make such a change look clean.
    if (fs.existsSync(own)) {
      fs.copyFileSync(own, index);
      const { atime, mtime } = fs.statSync(own);
      fs.utimesSync(index, atime, mtime);
    }
    const scratchEnv = { GIT_INDEX_FILE: index };
    // Linked paths that are untracked stay out; ignored ones are out anyway (and git refuses to be told of them).
    const excluded = links.filter((link) => allUntracked.some((file) => file === link || file.startsWith(`${link}/`))).map((link) => `:(exclude)${link}`);
    await gitText(root, ['add', '-A', '--', '.', ...excluded], env, { env: scratchEnv });
    const tree = (await gitText(root, ['write-tree'], env, { env: scratchEnv })).trim();
    const headTree = (await gitText(root, ['rev-parse', `${head}^{tree}`], env)).trim();
    if (tree === headTree) return null;
    const message = 'Tuning Bench: snapshot of the working tree for a before/after';
    return (await gitText(root, ['commit-tree', tree, '-p', head, '-m', message], env, { env: SNAPSHOT_IDENTITY })).trim();
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** A side checked out: its worktree, and what was linked into it. */
export interface SideTree {
  dir: string;
  links: string[];
  notLinked: Array<{ path: string; reason: string }>;
}

/**
 * Checks out `commit` (or the snapshot, with HEAD and the index moved back to the commit, so the snapshot's changes
 * show as uncommitted, as they were in your tree) into `dir`, then links each path from your tree. A path the revision
 * has itself (it tracks it) is never replaced: it is left as the revision has it and said so.
 */
export async function checkoutSide(
  root: string,
  dir: string,
  side: { commit: string; snapshot: string | null },
  links: readonly string[],
  env: Record<string, string>,
): Promise<SideTree> {
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  if (fs.existsSync(dir)) await removeWorktree(root, dir, env);
  const made = await runGit(root, ['worktree', 'add', '--detach', '--force', dir, side.snapshot ?? side.commit], env);
  if (!made.ok) {
    const missing = side.snapshot !== null && /invalid reference|not a valid|unknown revision/iu.test(made.stderr);
    throw new GitWorktreeError(
      missing
        ? `the snapshot ${side.snapshot!.slice(0, 12)} of the working tree is gone from ${root} (git gc prunes unreferenced commits after two weeks): it cannot be checked out again`
        : `git worktree add ${dir} in ${root}: ${made.stderr}`,
    );
  }
  if (side.snapshot !== null) await gitText(dir, ['reset', '-q', side.commit], env);
  const linked: string[] = [];
  const notLinked: SideTree['notLinked'] = [];
  for (const link of links) {
    const target = path.join(dir, link);
    const source = path.join(root, link);
    if (!fs.existsSync(source)) {
      notLinked.push({ path: link, reason: `${source} is gone from your tree` });
      continue;
    }
    if (fs.lstatSync(target, { throwIfNoEntry: false })) {
      notLinked.push({ path: link, reason: 'this revision tracks it: its own copy is kept' });
      continue;
    }
    const blocked = parentsOf(link).find((parent) => {
      const stat = fs.lstatSync(path.join(dir, parent), { throwIfNoEntry: false });
      return stat !== undefined && !stat.isDirectory();
    });
    if (blocked) {
      notLinked.push({ path: link, reason: `this revision has a file at ${blocked}` });
      continue;
    }
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.symlinkSync(source, target);
    linked.push(link);
  }
  return { dir, links: linked, notLinked };
}

function parentsOf(relative: string): string[] {
  const parts = relative.split('/').slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}

export async function removeWorktree(root: string, dir: string, env: Record<string, string>): Promise<void> {
  const removed = await runGit(root, ['worktree', 'remove', '--force', '--force', dir], env);
  // Linked folders are symlinks: rm removes the link, never your data behind it.
  if (!removed.ok || fs.existsSync(dir)) fs.rmSync(dir, { recursive: true, force: true });
  await runGit(root, ['worktree', 'prune'], env);
}

/** The directory a command runs in within a side's worktree: `cwd` mapped from your tree into it. */
export function cwdIn(root: string, tree: string, cwd: string): string {
  return path.join(tree, path.relative(root, fs.realpathSync(cwd)));
}

/**
 * The worktrees of one sweep, in one folder, made on first use and removed with their folder by `close()` (kept on
 * request). Your tree and index are never written: `git worktree add` writes only under `.git/worktrees`.
 */
export class SweepWorktrees {
  private readonly made = new Map<string, SideTree>();

  constructor(
    private readonly plan: CheckoutPlan,
    private readonly baseDir: string,
    private readonly env: Record<string, string>,
  ) {}

  /** The side's worktree and the record its runs keep (enough to make it again). */
  async side(value: string, cwd: string): Promise<{ cwd: string; checkout: RunCheckout; tree: SideTree }> {
    const side = this.plan.sides.find((s) => s.value === value);
    if (!side) throw new GitWorktreeError(`${GIT_VARIABLE}=${value} was not planned`);
    const key = side.snapshot ?? side.commit;
    let tree = this.made.get(key);
    if (!tree) {
      tree = await checkoutSide(this.plan.root, path.join(this.baseDir, key.slice(0, 12)), side, this.plan.links, this.env);
      this.made.set(key, tree);
    }
    const relativeCwd = path.relative(this.plan.root, fs.realpathSync(cwd));
    return {
      cwd: path.join(tree.dir, relativeCwd),
      tree,
      checkout: {
        root: this.plan.root,
        revision: value,
        commit: side.commit,
        snapshot: side.snapshot,
        relativeCwd,
        links: tree.links,
        notLinked: tree.notLinked,
        missing: [],
      },
    };
  }

  /** Removes every worktree made and the sweep's folder (unless kept), and prunes git's records of them. */
  async close(keep: boolean): Promise<string[]> {
    const trees = [...this.made.values()].map((tree) => tree.dir);
    if (!keep) {
      for (const tree of trees) await removeWorktree(this.plan.root, tree, this.env);
      fs.rmSync(this.baseDir, { recursive: true, force: true });
      this.made.clear();
    }
    return trees;
  }
}

/**
 * One side made again from its run's record (to profile or run it again) in `folder` (a new folder it owns), and
 * removed with that folder when done.
 */
export async function checkoutAgain(
  checkout: RunCheckout,
  folder: string,
  env: Record<string, string>,
): Promise<{ cwd: string; checkout: RunCheckout; remove: () => Promise<void> }> {
  if (!fs.existsSync(checkout.root)) {
    throw new GitWorktreeError(`this side ran in a worktree of ${checkout.root}, which is gone: the code cannot be checked out again`);
  }
  const dir = path.join(folder, (checkout.snapshot ?? checkout.commit).slice(0, 12));
  let tree: SideTree;
  try {
    tree = await checkoutSide(checkout.root, dir, checkout, checkout.links, env);
  } catch (error) {
    fs.rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  return {
    cwd: path.join(tree.dir, checkout.relativeCwd),
    checkout: { ...checkout, links: tree.links, notLinked: [...checkout.notLinked, ...tree.notLinked], missing: [] },
    remove: async () => {
      await removeWorktree(checkout.root, dir, env);
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}
