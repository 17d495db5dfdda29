// Reads a process's start time from /proc, to tell a surviving training process from a reused pid.
import fs from 'node:fs';

/** Field 22 of /proc/<pid>/stat: start time in clock ticks since boot; null when the process is gone. */
export function processStartTicks(pid: number): number | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) may contain spaces and parentheses; fields after it follow the last ')'.
  const afterName = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(afterName[19]);
  return Number.isFinite(ticks) ? ticks : null;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Pids of the processes whose process group is `pgid` (field 5 of /proc/<pid>/stat). */
export function processGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/u.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // A zombie has already exited; it only waits to be reaped.
    if (fields[0] !== 'Z' && Number(fields[2]) === pgid) members.push(Number(entry));
  }
  return members;
}
