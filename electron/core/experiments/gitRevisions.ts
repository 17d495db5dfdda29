// What a before/after can pick from: the recent commits of a directory's repository and whether its tree has
// uncommitted changes; and the diff between two revisions (or the working tree), read without writing anything.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { untrackedFilesDiff, workingTreeStatus } from '../runner/gitProvenance.js';
import type { GitUntrackedPath } from '../../shared/api.js';
import { untrackedEntries, untrackedOffers } from './gitData.js';
import { WORKTREE_VALUE } from './gitWorktrees.js';

/** Each git call is quick; one that hangs (a network filesystem, a lock) is given up on. */
const GIT_TIMEOUT_MS = 20_000;
/** The most of a diff one answer carries: a page shows 2 MiB of text without stalling, and a larger change is not read line by line. */
export const MAX_SHOWN_DIFF_BYTES = 2 * 1024 * 1024;
/** git's output buffer: the diff's limit with room for what is cut, so a large diff is cut by us, not failed by Node. */
const MAX_GIT_OUTPUT_BYTES = 8 * MAX_SHOWN_DIFF_BYTES;
/** Field and record separators git's --format writes (US and RS), which never occur in a subject line. */
const FIELD = '\x1f';
const RECORD = '\x1e';

/** Bad input a person can fix (not a repository, an unknown revision): the message says what to do. */
export class GitRevisionError extends Error {
  override name = 'GitRevisionError';
}

export interface Commit {
  sha: string;
  subject: string;
  /** Committer date, ISO 8601. */
  date: string;
  author: string;
}

export interface RepositoryRevisions {
  /** The repository's top folder. */
  root: string;
  /** The branch checked out, null when HEAD is detached. */
  branch: string | null;
  /** HEAD's commit, null in a repository with no commit yet. */
  head: string | null;
  /** Uncommitted changes or untracked files: "working tree vs HEAD" has something to measure. */
  dirty: boolean;
  /** Newest first, from HEAD. */
  commits: Commit[];
  /** Branches, tags and remote branches, newest commit first. */
  refs: Array<{ name: string; kind: 'branch' | 'tag' | 'remote'; commit: Commit }>;
  /** What git does not track, by top folder: data a before/after links into each worktree. */
  untracked: GitUntrackedPath[];
}

/** Branches and tags offered: a repository with more is picked from by typing the name. */
const MAX_REFS = 200;

export interface RevisionDiff {
  root: string;
  from: { value: string; commit: string | null };
  to: { value: string; commit: string | null };
  diff: string;
  /** The whole diff's size; `truncated` when only the first MAX_SHOWN_DIFF_BYTES of it are in `diff`. */
  bytes: number;
  truncated: boolean;
}

function git(
  cwd: string,
  args: readonly string[],
  env: Record<string, string>,
  okCodes: readonly number[] = [0],
): Promise<{ ok: boolean; stdout: Buffer; stderr: string }> {
  return new Promise((resolve) => {
    // No pager, no prompts, and the user's tree never written (no index refresh: --no-optional-locks).
    execFile(
      'git',
      ['--no-pager', '--no-optional-locks', '-C', cwd, ...args],
      { env: { ...env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' }, timeout: GIT_TIMEOUT_MS, encoding: 'buffer', maxBuffer: MAX_GIT_OUTPUT_BYTES },
      (error, stdout, stderr) => {
        const code = error ? ((error as NodeJS.ErrnoException & { code?: unknown }).code as unknown) : 0;
        resolve({ ok: !error || (typeof code === 'number' && okCodes.includes(code)), stdout, stderr: stderr.toString('utf8').trim() });
      },
    );
  });
}

/** The repository holding `cwd`, or an error that says what to give instead. */
async function repositoryRoot(cwd: string, env: Record<string, string>): Promise<string> {
  if (!fs.existsSync(cwd) || !fs.statSync(cwd).isDirectory()) {
    throw new GitRevisionError(`${cwd} is not a directory: give the directory your command runs in, inside a git repository`);
  }
  const top = await git(cwd, ['rev-parse', '--show-toplevel'], env);
  if (!top.ok) {
    throw new GitRevisionError(
      `${cwd} is not in a git repository, so it has no commits to compare: give a directory inside your project's repository (or run \`git init\` and commit there first)`,
    );
  }
  return top.stdout.toString('utf8').trim();
}

export async function listRevisions(cwd: string, limit: number, env: Record<string, string>): Promise<RepositoryRevisions> {
  const root = await repositoryRoot(cwd, env);
  const [head, branch, tree] = await Promise.all([
    git(root, ['rev-parse', '--verify', '-q', 'HEAD'], env),
    git(root, ['symbolic-ref', '--short', '-q', 'HEAD'], env),
    workingTreeStatus(root, env),
  ]);
  const headCommit = head.ok ? head.stdout.toString('utf8').trim() || null : null;
  let commits: Commit[] = [];
  if (headCommit !== null) {
    const log = await git(root, ['log', `-n${limit}`, `--format=%H${FIELD}%s${FIELD}%cI${FIELD}%an${RECORD}`, 'HEAD'], env);
    if (!log.ok) throw new Error(`git log in ${root}: ${log.stderr}`);
    commits = log.stdout
      .toString('utf8')
      .split(RECORD)
      .map((record) => record.replace(/^\n/u, ''))
      .filter((record) => record !== '')
      .map((record) => {
        const [sha = '', subject = '', date = '', author = ''] = record.split(FIELD);
        return { sha, subject, date, author };
      });
  }
  const [refs, untracked] = await Promise.all([listRefs(root, env), untrackedEntries(root, env).then(untrackedOffers)]);
  return { root, branch: branch.ok ? branch.stdout.toString('utf8').trim() || null : null, head: headCommit, dirty: tree.dirty, commits, refs, untracked };
}

const REF_KINDS = { 'refs/heads/': 'branch', 'refs/tags/': 'tag', 'refs/remotes/': 'remote' } as const;

async function listRefs(root: string, env: Record<string, string>): Promise<RepositoryRevisions['refs']> {
  // An annotated tag names a tag object: its commit's fields are the peeled ones (`*`).
  const peeled = (field: string) => `%(if)%(*objectname)%(then)%(*${field})%(else)%(${field})%(end)`;
  const format =
    [`%(refname)`, peeled('objectname'), peeled('contents:subject'), peeled('committerdate:iso-strict'), peeled('authorname')].join(FIELD) + RECORD;
  const listed = await git(
    root,
    ['for-each-ref', '--sort=-committerdate', `--count=${MAX_REFS}`, `--format=${format}`, 'refs/heads', 'refs/tags', 'refs/remotes'],
    env,
  );
  if (!listed.ok) return [];
  return listed.stdout
    .toString('utf8')
    .split(RECORD)
    .map((record) => record.replace(/^\n/u, ''))
    .filter((record) => record !== '')
    .flatMap((record) => {
      const [ref = '', sha = '', subject = '', date = '', author = ''] = record.split(FIELD);
      const prefix = (Object.keys(REF_KINDS) as Array<keyof typeof REF_KINDS>).find((p) => ref.startsWith(p));
      // A remote's HEAD is an alias of one of its branches.
      if (!prefix || ref.endsWith('/HEAD')) return [];
      return [{ name: ref.slice(prefix.length), kind: REF_KINDS[prefix], commit: { sha, subject, date, author } }];
    });
}

/** Any revision typed, as the commit it names: what the before/after form shows under a typed name. */
export async function resolveTyped(cwd: string, value: string, env: Record<string, string>): Promise<{ value: string; commit: Commit }> {
  const root = await repositoryRoot(cwd, env);
  const sha = await resolveRevision(root, value, env);
  const target = sha ?? 'HEAD';
  const shown = await git(root, ['log', '-1', `--format=%H${FIELD}%s${FIELD}%cI${FIELD}%an`, target], env);
  if (!shown.ok) throw new GitRevisionError(`${root} has no commit yet: commit once, then compare your changes against it`);
  const [commitSha = '', subject = '', date = '', author = ''] = shown.stdout.toString('utf8').trim().split(FIELD);
  return { value, commit: { sha: commitSha, subject, date, author } };
}

async function resolveRevision(root: string, value: string, env: Record<string, string>): Promise<string | null> {
  if (value === WORKTREE_VALUE) return null;
  const resolved = await git(root, ['rev-parse', '--verify', '--quiet', `${value}^{commit}`], env);
  if (!resolved.ok) {
    throw new GitRevisionError(
      `"${value}" is no commit, branch or tag in ${root}: pick a commit from the list (or \`git log\`), or ${WORKTREE_VALUE} for the working tree`,
    );
  }
  return resolved.stdout.toString('utf8').trim();
}

/** `from` → `to`, either of them WORKTREE (the tree as it is, untracked files included). Never writes the tree or its index. */
export async function revisionDiff(cwd: string, from: string, to: string, env: Record<string, string>): Promise<RevisionDiff> {
  const root = await repositoryRoot(cwd, env);
  const fromCommit = await resolveRevision(root, from, env);
  const toCommit = await resolveRevision(root, to, env);
  const options = ['--no-color', '--no-ext-diff'];
  const parts: Buffer[] = [];
  const run = async (args: readonly string[]) => {
    const result = await git(root, ['diff', ...options, ...args], env);
    if (!result.ok) throw new Error(`git diff in ${root}: ${result.stderr}`);
    parts.push(result.stdout);
  };
  if (fromCommit !== null && toCommit !== null) {
    await run([fromCommit, toCommit]);
  } else if (fromCommit !== null || toCommit !== null) {
    // One side is the working tree: tracked changes against the commit, then the untracked files the run would see.
    const { untracked } = await workingTreeStatus(root, env);
    const toWorkingTree = toCommit === null;
    await run(toWorkingTree ? [fromCommit!] : ['-R', toCommit!]);
    parts.push(...(await untrackedFilesDiff(root, untracked, env, !toWorkingTree)));
  }
  const whole = Buffer.concat(parts);
  const truncated = whole.length > MAX_SHOWN_DIFF_BYTES;
  return {
    root,
    from: { value: from, commit: fromCommit },
    to: { value: to, commit: toCommit },
    diff: (truncated ? whole.subarray(0, MAX_SHOWN_DIFF_BYTES) : whole).toString('utf8'),
    bytes: whole.length,
    truncated,
  };
}
