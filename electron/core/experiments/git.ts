// Running git for before/after sweeps: no pager, no prompts, no optional locks (your index is never refreshed), no
// hooks of yours; bounded in time and output; an answer, never a throw.
import { execFile } from 'node:child_process';

/** Each call is quick; one that hangs (a network filesystem, a lock) is given up on. */
const DEFAULT_TIMEOUT_MS = 120_000;
/** A listing or a diff larger than this is cut by the caller's own limit, not failed by Node (64 MiB). */
const DEFAULT_MAX_BUFFER = 64 * 1024 * 1024;

export interface GitAnswer {
  ok: boolean;
  stdout: Buffer;
  stderr: string;
}

export interface GitOptions {
  /** Exit codes that count as success (`git diff --no-index` exits 1 when files differ). */
  okCodes?: readonly number[];
  /** Added to the environment: GIT_INDEX_FILE for a temporary index, an identity for a commit object. */
  env?: Record<string, string>;
  timeoutMs?: number;
}

export function runGit(cwd: string, args: readonly string[], env: Record<string, string>, options: GitOptions = {}): Promise<GitAnswer> {
  const okCodes = options.okCodes ?? [0];
  return new Promise((resolve) => {
    execFile(
      'git',
      // core.hooksPath: `git worktree add` would run your post-checkout hook in every temporary worktree.
      ['--no-pager', '--no-optional-locks', '-c', 'core.hooksPath=/dev/null', '-C', cwd, ...args],
      {
        env: { ...env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', ...options.env },
        timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        encoding: 'buffer',
        maxBuffer: DEFAULT_MAX_BUFFER,
      },
      (error, stdout, stderr) => {
        const code = error ? ((error as NodeJS.ErrnoException & { code?: unknown }).code as unknown) : 0;
        resolve({ ok: !error || (typeof code === 'number' && okCodes.includes(code)), stdout, stderr: stderr.toString('utf8').trim() });
      },
    );
  });
}

/** The answer's text, or an error naming the command and git's own words. */
export async function gitText(cwd: string, args: readonly string[], env: Record<string, string>, options: GitOptions = {}): Promise<string> {
  const answer = await runGit(cwd, args, env, options);
  if (!answer.ok) throw new GitCommandError(`git ${args.join(' ')} in ${cwd}: ${answer.stderr || 'failed'}`);
  return answer.stdout.toString('utf8');
}

export class GitCommandError extends Error {
  override name = 'GitCommandError';
}
