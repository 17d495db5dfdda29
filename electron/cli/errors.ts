// The CLI's errors and its one exit-status rule: what the person gave was wrong (2, with the flag and the fix), or the tool failed (1).
import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { ApiFailure } from '../shared/api.js';

/**
 * Exit statuses, one rule for every command (the contract's 0 and 2, and 1 for the rest): 0 when the
 * command did its work (a run that ran, whatever the training's own exit); 2 when what the person gave
 * was wrong (a flag's value, a run, sweep, workload or file that is not there); 1 when the tool itself
 * failed, or a run's program could not be started.
 */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_BAD_ARGUMENTS = 2;

/** Something the person gave is wrong: exit 2, with a message that says what to give instead. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** File system failures that mean the person named a path that does not fit, not that the tool broke. */
const PATH_FAULTS: ReadonlySet<string> = new Set(['ENOENT', 'EISDIR', 'ENOTDIR', 'EACCES', 'EPERM', 'EEXIST', 'ENAMETOOLONG', 'EROFS']);

/**
 * A file system error as a sentence about the path it names and what to do (never a raw `ENOENT`), or
 * null for an error that is no such failure. `what` says which file it was (`the log`, `the output file`).
 */
export function describePathFault(error: unknown, what = 'the file'): string | null {
  const fault = error as NodeJS.ErrnoException;
  if (typeof fault?.code !== 'string' || !PATH_FAULTS.has(fault.code) || typeof fault.path !== 'string') return null;
  const file = fault.path;
  switch (fault.code) {
    case 'ENOENT':
      return `${what} ${file} does not exist (nor, maybe, its folder ${path.dirname(file)}): check the path`;
    case 'EISDIR':
      return `${what} ${file} is a folder: give a file`;
    case 'ENOTDIR':
      return `${what} ${file}: a part of that path is a file, not a folder: check the path`;
    case 'EACCES':
    case 'EPERM':
      return `${what} ${file}: permission denied: check its permissions (ls -l ${file}) or choose another path`;
    case 'EEXIST':
      return `${what} ${file} is already there: choose another path`;
    case 'EROFS':
      return `${what} ${file} is on a read-only file system: choose another path`;
    default:
      return `${what} ${file}: the name is too long`;
  }
}

/** The exit status for an error that ended a command (see EXIT_*), and the message to print. */
export function exitStatusOf(error: unknown): { status: number; code: string; message: string } {
  if (error instanceof UsageError) return { status: EXIT_BAD_ARGUMENTS, code: 'bad_arguments', message: error.message };
  if (error instanceof ApiFailure) {
    // Input the engine refused, or a run, sweep or workload that is not there: what the person gave.
    const theirs = error.code === 'invalid_input' || error.code === 'not_found';
    return { status: theirs ? EXIT_BAD_ARGUMENTS : EXIT_FAILED, code: theirs ? 'bad_arguments' : error.code, message: error.message };
  }
  const pathFault = describePathFault(error);
  if (pathFault !== null) return { status: EXIT_BAD_ARGUMENTS, code: 'bad_arguments', message: pathFault };
  return { status: EXIT_FAILED, code: error instanceof Error ? error.name : 'error', message: error instanceof Error ? error.message : String(error) };
}

export interface WholeNumberOption {
  /** The flag as typed: `--max-steps`. */
  flag: string;
  /** What the number counts, plural: `steps`, `runs`. */
  counts: string;
  /** The whole phrase for what the flag takes, where "a whole number of COUNTS" does not read: `a sweep id`. */
  takes?: string;
  /** The least value that makes sense (1 unless 0 means something). */
  min?: number;
  /** A value to show in the fix: `500`. */
  example: string;
}

/**
 * A commander parser for a whole-number option whose refusal names the flag, what it counts and a
 * value that would do: `--max-steps takes a whole number of steps, at least 1 (e.g. --max-steps 500)`.
 */
export function wholeNumberOption({ flag, counts, takes, min = 1, example }: WholeNumberOption): (value: string) => number {
  const expected = takes ?? `a whole number of ${counts}, at least ${min}`;
  return (value) => {
    if (!/^\d+$/u.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
      throw new InvalidArgumentError(`${flag} takes ${expected} (e.g. ${flag} ${example}); got "${value}"`);
    }
    return Number(value);
  };
}

/** A run id as typed (a positive whole number), refused with what a run id is and where to find one. */
export function parseRunId(value: string): number {
  if (!/^\d+$/u.test(value) || Number(value) < 1) {
    throw new InvalidArgumentError(`"${value}" is not a run id: a run id is a positive whole number, as \`tuning-bench runs\` lists them`);
  }
  return Number(value);
}
