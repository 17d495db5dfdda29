// Readings from /proc: CPU time per core, memory and swap, and the per-process counters of a process group.
import fs from 'node:fs';
import { processGroupMembers } from './procStat.js';

/**
 * The process and its descendants, from /proc/<pid>/task/<tid>/children: a handful of small reads,
 * where scanning all of /proc for a process group reads a file per process on the machine. Falls
 * back to the scan where the kernel lacks the children files.
 */
export function processTree(root: number): number[] {
  const seen: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    let tasks: string[];
    try {
      tasks = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    seen.push(pid);
    for (const tid of tasks) {
      let children: string;
      try {
        children = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
      } catch {
        return processGroupMembers(root);
      }
      for (const child of children.split(' ')) if (child.trim()) queue.push(Number(child));
    }
  }
  return seen;
}

export interface CpuTimes {
  /** Jiffies busy (everything but idle and iowait) and total, per core; index 0 is the whole machine. */
  busy: number[];
  iowait: number[];
  total: number[];
}

export function readCpuTimes(stat = fs.readFileSync('/proc/stat', 'utf8')): CpuTimes {
  const times: CpuTimes = { busy: [], iowait: [], total: [] };
  for (const line of stat.split('\n')) {
    if (!line.startsWith('cpu')) continue;
    const [, ...fields] = line.trim().split(/\s+/u);
    // user nice system idle iowait irq softirq steal (guest time is already inside user)
    const [user, nice, system, idle, iowait, irq, softirq, steal] = fields.slice(0, 8).map(Number) as number[];
    const total = user! + nice! + system! + idle! + iowait! + irq! + softirq! + (steal ?? 0);
    times.busy.push(total - idle! - iowait!);
    times.iowait.push(iowait!);
    times.total.push(total);
  }
  return times;
}

/** Percent busy per entry between two readings: [machine, core0, core1, ...]. */
export function cpuPercent(before: CpuTimes, after: CpuTimes): { busy: number[]; iowait: number } {
  const busy = after.total.map((total, i) => {
    const dt = total - (before.total[i] ?? 0);
    return dt > 0 ? (100 * (after.busy[i]! - (before.busy[i] ?? 0))) / dt : 0;
  });
  const dt = after.total[0]! - (before.total[0] ?? 0);
  return { busy, iowait: dt > 0 ? (100 * (after.iowait[0]! - (before.iowait[0] ?? 0))) / dt : 0 };
}

export interface MemoryReading {
  usedMiB: number;
  totalMiB: number;
  swapUsedMiB: number;
}

export function readMemory(meminfo = fs.readFileSync('/proc/meminfo', 'utf8')): MemoryReading {
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'mu').exec(meminfo)?.[1] ?? 0);
  return {
    usedMiB: (kib('MemTotal') - kib('MemAvailable')) / 1024,
    totalMiB: kib('MemTotal') / 1024,
    swapUsedMiB: (kib('SwapTotal') - kib('SwapFree')) / 1024,
  };
}

export interface GroupCounters {
  rssMiB: number;
  threads: number;
  readBytes: number;
  writeBytes: number;
  /**
   * Per member: pid, and its CPU time with the children it waited for, in clock ticks (utime + stime + cutime +
   * cstime): a reading's CPU is its members' change since the last (see HostSampler's ticksSince).
   */
  members: Array<{ pid: number; cpuTicks: number }>;
}

const PAGE_SIZE_BYTES = 4096;

/** Sums the counters of the run's processes: the pty's first process and all its descendants (trainer, workers). */
export function readGroupCounters(root: number): GroupCounters {
  const counters: GroupCounters = { rssMiB: 0, threads: 0, readBytes: 0, writeBytes: 0, members: [] };
  for (const pid of processTree(root)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Fields after the name: utime is 14th overall (index 11 here), stime 15th, cutime 16th, cstime 17th,
      // num_threads 20th, rss 24th.
      // Children that ended and were waited for (a compiler run per kernel by torch.compile's workers, each gone
      // before the next reading) are in their parent's cutime and cstime: counted, or their CPU would read as other
      // processes' work and flag the run host-busy. A child still running counts in its own fields, never in both.
      const cpuTicks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      counters.threads += Number(fields[17]);
      counters.rssMiB += (Number(fields[21]) * PAGE_SIZE_BYTES) / 2 ** 20;
      counters.members.push({ pid, cpuTicks });
      const io = readIo(pid);
      counters.readBytes += io.readBytes;
      counters.writeBytes += io.writeBytes;
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return counters;
}

/**
 * The engine's own children and what it has waited for: each direct child with its CPU (with the children it waited
 * for, in clock ticks) and whether it is a helper, in the engine's process group (the Python fingerprint's probe, git,
 * nvidia-smi); a run's pty leads a session of its own.
 */
export interface OwnChildren {
  children: Array<{ pid: number; cpuTicks: number; helper: boolean }>;
  /** cutime + cstime of the engine's process: the children it has waited for, their whole count each. */
  waitedTicks: number;
}

/** Fields of /proc/PID/stat after the name: state is index 0, ppid 1, pgrp 2, utime 11, stime 12, cutime 13, cstime 14. */
function statFields(pid: number | 'self'): string[] {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

export function readOwnChildren(): OwnChildren {
  const self = statFields('self');
  const result: OwnChildren = { children: [], waitedTicks: Number(self[13]) + Number(self[14]) };
  let tasks: string[];
  try {
    tasks = fs.readdirSync('/proc/self/task');
  } catch {
    return result;
  }
  for (const tid of tasks) {
    let listed: string;
    try {
      listed = fs.readFileSync(`/proc/self/task/${tid}/children`, 'utf8');
    } catch {
      continue; // a kernel without the children file: helpers count once they end (waitedTicks)
    }
    for (const child of listed.split(' ')) {
      if (!child.trim()) continue;
      try {
        const fields = statFields(Number(child));
        const cpuTicks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
        result.children.push({ pid: Number(child), cpuTicks, helper: fields[2] === self[2] });
      } catch {
        // ended between the listing and the read
      }
    }
  }
  return result;
}

function readIo(pid: number): { readBytes: number; writeBytes: number } {
  try {
    const io = fs.readFileSync(`/proc/${pid}/io`, 'utf8');
    return {
      readBytes: Number(/^read_bytes:\s+(\d+)/mu.exec(io)?.[1] ?? 0),
      writeBytes: Number(/^write_bytes:\s+(\d+)/mu.exec(io)?.[1] ?? 0),
    };
  } catch {
    return { readBytes: 0, writeBytes: 0 }; // /proc/<pid>/io needs the same user or CAP_SYS_PTRACE
  }
}
