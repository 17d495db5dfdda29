// Who a process is: its pid and its start time (field 22 of /proc/<pid>/stat), so a pid the kernel handed to another process is never taken for the one that had it.
import fs from 'node:fs';
import { processStartTicks } from './procStat.js';

export interface ProcessIdentity {
  pid: number;
  /** Clock ticks since boot when it started; null in records written before start times were kept. */
  startTicks: number | null;
}

/**
 * Clock ticks per second of /proc's start times (USER_HZ): 100 on every Linux architecture the app is built for
 * (x86_64 and arm64; only a few exotic ones differ), and not readable from Node without running getconf.
 */
const USER_HZ = 100;

/** This process. */
export function ownIdentity(): ProcessIdentity {
  return { pid: process.pid, startTicks: processStartTicks(process.pid) };
}

export function sameProcess(a: ProcessIdentity, b: ProcessIdentity): boolean {
  return a.pid === b.pid && a.startTicks === b.startTicks;
}

/**
 * Whether the process a record names is still running: its pid is alive (not a zombie) with the same start time.
 * For a record without a start time, the process with that pid counts only if it started no later than `writtenAt`
 * (when the record was made): the recorder was alive then, and a pid reused afterwards went to a process started after.
 */
export function isStillRunning(identity: ProcessIdentity, writtenAt?: Date): boolean {
  const state = processState(identity.pid);
  if (state === null || state.zombie) return false;
  if (identity.startTicks !== null) return state.startTicks === identity.startTicks;
  if (writtenAt === undefined) return true;
  const startedAt = startTime(state.startTicks);
  // A tick of slack: start times are in hundredths of a second, the record's time in milliseconds.
  return startedAt === null || startedAt.getTime() <= writtenAt.getTime() + 1000 / USER_HZ;
}

/** When a process with these start ticks began, by the wall clock (boot time from /proc/stat). */
export function startTime(startTicks: number): Date | null {
  const boot = bootTimeSeconds();
  return boot === null ? null : new Date(boot * 1000 + (startTicks * 1000) / USER_HZ);
}

function bootTimeSeconds(): number | null {
  try {
    const btime = /^btime (\d+)$/mu.exec(fs.readFileSync('/proc/stat', 'utf8'))?.[1];
    return btime === undefined ? null : Number(btime);
  } catch {
    return null;
  }
}

function processState(pid: number): { startTicks: number; zombie: boolean } | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) may hold spaces and parentheses; the fields after it follow the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const startTicks = Number(fields[19]);
  return Number.isFinite(startTicks) ? { startTicks, zombie: fields[0] === 'Z' } : null;
}
