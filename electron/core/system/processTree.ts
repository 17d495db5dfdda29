// Every process a run started, including those that left its process group (setsid, os.setpgrp, `set -m`): found by a /proc walk, stopped together.
import fs from 'node:fs';
import { processStartTicks, readProcTable, type ProcEntry } from './procStat.js';

/** How often the tree is walked while the run lives: a child that escapes and is orphaned faster than this can be missed. */
export const TREE_SAMPLE_INTERVAL_MS = 500;

/** A process the run started, remembered with its start time so a reused pid is never signalled. */
export interface TrackedProcess {
  pid: number;
  startTicks: number;
}

export class ProcessTree {
  private readonly known = new Map<number, number>();
  private readonly timer: NodeJS.Timeout;

  /** `rootPid` leads the run's session and process group (node-pty makes it so). */
  constructor(private readonly rootPid: number) {
    this.sample();
    this.timer = setInterval(() => this.sample(), TREE_SAMPLE_INTERVAL_MS);
    this.timer.unref();
  }

  /** Adds every live descendant of the root, and every process in its session or group, to the known set. */
  sample(): void {
    try {
      const table = readProcTable();
      const children = new Map<number, ProcEntry[]>();
      for (const entry of table) {
        const list = children.get(entry.ppid);
        if (list) list.push(entry);
        else children.set(entry.ppid, [entry]);
      }
      const queue = table.filter((e) => e.pid === this.rootPid || e.sid === this.rootPid || e.pgid === this.rootPid);
      const seen = new Set<number>();
      while (queue.length > 0) {
        const entry = queue.pop()!;
        if (seen.has(entry.pid)) continue;
        seen.add(entry.pid);
        if (!entry.zombie && entry.pid !== process.pid) this.known.set(entry.pid, entry.startTicks);
        queue.push(...(children.get(entry.pid) ?? []));
      }
    } catch {
      // A walk that fails (a process vanished mid-read) is retried on the next tick; it never throws from the timer.
    }
  }

  /** Known processes still alive and still the same process (start time unchanged). */
  alive(): TrackedProcess[] {
    const alive: TrackedProcess[] = [];
    for (const [pid, startTicks] of this.known) {
      if (processStartTicks(pid) === startTicks && !isZombie(pid)) alive.push({ pid, startTicks });
      else this.known.delete(pid);
    }
    return alive;
  }

  /** Signals the group and every known process that left it; returns how many were signalled outside the group. */
  signalAll(signal: NodeJS.Signals): number {
    this.sample();
    try {
      process.kill(-this.rootPid, signal);
    } catch {
      // The group is already gone.
    }
    let outside = 0;
    for (const { pid } of this.alive()) {
      try {
        process.kill(pid, signal);
        outside += 1;
      } catch {
        // Gone between the check and the signal.
      }
    }
    return outside;
  }

  close(): void {
    clearInterval(this.timer);
  }
}

function isZombie(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}
