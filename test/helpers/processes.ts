// Process checks for tests that start real processes: is one still running, and the pid a script wrote down.
import fs from 'node:fs';

/** Running, not a zombie waiting to be reaped (a container's init may never reap it). */
export function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/** The pid a script wrote to `file`, or null until it has. */
export function readPid(file: string): number | null {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '';
  return /^\d+$/u.test(text) ? Number(text) : null;
}
