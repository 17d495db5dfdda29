// Samples the host from /proc while a run runs: CPU (total, per core, iowait), memory, and the run's process group.
import fs from 'node:fs';
import type { HostSample } from '../store/records.js';
import {
  cpuPercent,
  readCpuTimes,
  readGroupCounters,
  readMemory,
  readOwnChildren,
  type CpuTimes,
  type GroupCounters,
  type MemoryReading,
  type OwnChildren,
} from '../system/procfs.js';
import { systemClock, type Clock, type Timer } from '../clock.js';

/** DESIGN: host telemetry every 500 ms by default. */
export const DEFAULT_HOST_INTERVAL_MS = 500;
/** USER_HZ: Linux reports process CPU time in these on every architecture it runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** What the sampler reads each time: /proc by default; a test hands in counters it knows. */
export interface HostCounters {
  cpuTimes(): CpuTimes;
  group(pgid: number): GroupCounters;
  /** CPU ticks of every thread of the group's processes, by thread id. */
  threadTicks(group: GroupCounters): Map<number, number>;
  memory(): MemoryReading;
  /** CPU ticks Tuning Bench's own process has used (its threads included): the engine's work is not contention. */
  selfTicks(): number;
  /** Tuning Bench's own children: the helpers it runs beside a run (the Python fingerprint's `import torch`, git, nvidia-smi) are its work too. */
  ownChildren(): OwnChildren;
}

export const procCounters: HostCounters = {
  cpuTimes: () => readCpuTimes(),
  group: (pgid) => readGroupCounters(pgid),
  threadTicks: (group) => readThreadTicks(group),
  memory: () => readMemory(),
  selfTicks: () => readSelfTicks(),
  ownChildren: () => readOwnChildren(),
};

/** Ticks of this process: utime + stime of /proc/self/stat. */
export function readSelfTicks(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

export interface HostSamplerOptions {
  /** `startedAtMs` is on its wall reading; rates are per second of its monotonic one. */
  clock?: Clock;
  counters?: HostCounters;
}

export class HostSampler {
  private readonly timer: Timer;
  private readonly clock: Clock;
  private readonly counters: HostCounters;
  private lastCpu: CpuTimes;
  private lastGroup: GroupCounters;
  private lastThreads = new Map<number, number>();
  private lastSelf: number;
  private lastChildren: OwnChildren;
  /** Monotonic: when the last counters were read (rates are per second of this). */
  private lastAt: number;

  constructor(
    private readonly pgid: number,
    private readonly startedAtMs: number,
    private readonly onSample: (sample: HostSample) => void,
    intervalMs = DEFAULT_HOST_INTERVAL_MS,
    options: HostSamplerOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.counters = options.counters ?? procCounters;
    this.lastCpu = this.counters.cpuTimes();
    this.lastGroup = this.counters.group(pgid);
    this.lastThreads = this.counters.threadTicks(this.lastGroup);
    this.lastSelf = this.counters.selfTicks();
    this.lastChildren = this.counters.ownChildren();
    this.lastAt = this.clock.monotonicMs();
    this.timer = this.clock.setInterval(() => this.sample(), intervalMs, { background: true });
  }

  close(): void {
    this.timer.cancel();
  }

  private sample(): void {
    const now = this.clock.monotonicMs();
    const seconds = (now - this.lastAt) / 1000;
    if (seconds <= 0) return;
    let cpu: CpuTimes;
    try {
      cpu = this.counters.cpuTimes();
    } catch {
      return; // no /proc (not Linux): host telemetry is simply absent
    }
    const group = this.counters.group(this.pgid);
    // The run's processes are gone (it ended before the sampler was closed): nothing of the run to read.
    if (group.members.length === 0) return;
    const threads = this.counters.threadTicks(group);
    const percent = cpuPercent(this.lastCpu, cpu);
    const memory = this.counters.memory();
    const self = this.counters.selfTicks();
    const children = this.counters.ownChildren();
    const tickPercent = (ticks: number) => (100 * ticks) / CLOCK_TICKS_PER_SECOND / seconds;
    const runTicks = ticksSince(this.lastGroup, group);
    let busiest = 0;
    for (const [tid, ticks] of threads) busiest = Math.max(busiest, tickPercent(ticks - (this.lastThreads.get(tid) ?? ticks)));
    this.onSample({
      tMs: this.clock.wallMs() - this.startedAtMs,
      cpuTotal: percent.busy[0] ?? 0,
      cpuPerCore: percent.busy.slice(1),
      iowait: percent.iowait,
      memUsedMiB: memory.usedMiB,
      swapUsedMiB: memory.swapUsedMiB,
      procCpu: tickPercent(runTicks),
      procRssMiB: group.rssMiB,
      threads: group.threads,
      readBytesPerSec: Math.max(0, (group.readBytes - this.lastGroup.readBytes) / seconds),
      writeBytesPerSec: Math.max(0, (group.writeBytes - this.lastGroup.writeBytes) / seconds),
      busiestThreadCpu: Math.min(100, busiest),
      otherCpuCores: otherCores(this.lastCpu, cpu, runTicks + (self - this.lastSelf) + helperTicks(this.lastChildren, children), seconds),
    });
    this.lastCpu = cpu;
    this.lastGroup = group;
    this.lastThreads = threads;
    this.lastSelf = self;
    this.lastChildren = children;
    this.lastAt = now;
  }
}

/**
 * CPU ticks the run's processes used between two readings: each member's since the last (its whole count for one
 * that started meanwhile). A member that ended and was waited for by another member moved its count into that one's
 * (cutime); one that ended otherwise (the run's first process, reaped by the engine) takes its count with it, which
 * is not the run giving CPU back: never below zero, and never read as other processes' work.
 */
export function ticksSince(before: GroupCounters, after: GroupCounters): number {
  const last = new Map(before.members.map((m) => [m.pid, m.cpuTicks]));
  let ticks = 0;
  for (const member of after.members) ticks += Math.max(0, member.cpuTicks - (last.get(member.pid) ?? 0));
  return ticks;
}

/**
 * Ticks of the engine's helpers between two readings: each live one's change (its whole count for one that started
 * meanwhile), and what the ones that ended added to the engine's waited-for count beyond their last reading. The
 * run's first process is the engine's child too (not a helper: its pty leads a session of its own), as is another
 * run's: once reaped its whole count moves there, already counted as its run's, so what a child that left had at the
 * last reading is taken off.
 */
export function helperTicks(before: OwnChildren, after: OwnChildren): number {
  const last = new Map(before.children.map((child) => [child.pid, child.cpuTicks]));
  const stayed = new Set(after.children.map((child) => child.pid));
  let live = 0;
  for (const child of after.children) if (child.helper) live += Math.max(0, child.cpuTicks - (last.get(child.pid) ?? 0));
  let departed = 0;
  for (const child of before.children) if (!stayed.has(child.pid)) departed += child.cpuTicks;
  return live + Math.max(0, after.waitedTicks - before.waitedTicks - departed);
}

/**
 * Cores that processes other than `ownTicks`' used between two readings: the machine's busy time (every core,
 * in USER_HZ ticks like the processes' own) less our own, per second. Never below zero: the two are read a few
 * microseconds apart.
 */
export function otherCores(before: CpuTimes, after: CpuTimes, ownTicks: number, seconds: number): number {
  const busy = (after.busy[0] ?? 0) - (before.busy[0] ?? 0);
  return Math.max(0, (busy - ownTicks) / CLOCK_TICKS_PER_SECOND / seconds);
}

/** CPU ticks of every thread of the group's processes, by thread id. */
function readThreadTicks(group: GroupCounters): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const { pid } of group.members) {
    let tasks: string[];
    try {
      tasks = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        ticks.set(Number(tid), Number(fields[11]) + Number(fields[12]));
      } catch {
        // thread ended
      }
    }
  }
  return ticks;
}
