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

export interface ProcEntry {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  startTicks: number;
  zombie: boolean;
}

/** One /proc walk: fields 3 (state), 4 (ppid), 5 (pgrp), 6 (session) and 22 (starttime) of each /proc/<pid>/stat. */
export function readProcTable(): ProcEntry[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return []; // no /proc (not Linux): only the process group is known
  }
  const table: ProcEntry[] = [];
  for (const entry of entries) {
    if (!/^\d+$/u.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    table.push({
      pid: Number(entry),
      ppid: Number(fields[1]),
      pgid: Number(fields[2]),
      sid: Number(fields[3]),
      startTicks: Number(fields[19]),
      zombie: fields[0] === 'Z',
    });
  }
  return table;
}

/** Pids of the live (not zombie) processes whose process group is `pgid`. */
export function processGroupMembers(pgid: number): number[] {
  return readProcTable()
    .filter((entry) => !entry.zombie && entry.pgid === pgid)
    .map((entry) => entry.pid);
}
