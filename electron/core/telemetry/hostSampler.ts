// Samples the host from /proc while a run runs: CPU (total, per core, iowait), memory, and the run's process group.
import fs from 'node:fs';
import type { HostSample } from '../store/records.js';
import { cpuPercent, readCpuTimes, readGroupCounters, readMemory, type CpuTimes, type GroupCounters } from '../system/procfs.js';

/** DESIGN: host telemetry every 500 ms by default. */
export const DEFAULT_HOST_INTERVAL_MS = 500;
/** USER_HZ: Linux reports process CPU time in these on every architecture it runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

export class HostSampler {
  private readonly timer: NodeJS.Timeout;
  private lastCpu: CpuTimes;
  private lastGroup: GroupCounters;
  private lastThreads = new Map<number, number>();
  private lastAt: number;

  constructor(
    private readonly pgid: number,
    private readonly startedAtMs: number,
    private readonly onSample: (sample: HostSample) => void,
    intervalMs = DEFAULT_HOST_INTERVAL_MS,
  ) {
    this.lastCpu = readCpuTimes();
    this.lastGroup = readGroupCounters(pgid);
    this.lastThreads = readThreadTicks(this.lastGroup);
    this.lastAt = Date.now();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    const now = Date.now();
    const seconds = (now - this.lastAt) / 1000;
    if (seconds <= 0) return;
    let cpu: CpuTimes;
    try {
      cpu = readCpuTimes();
    } catch {
      return; // no /proc (not Linux): host telemetry is simply absent
    }
    const group = readGroupCounters(this.pgid);
    const threads = readThreadTicks(group);
    const percent = cpuPercent(this.lastCpu, cpu);
    const memory = readMemory();
    const tickPercent = (ticks: number) => (100 * ticks) / CLOCK_TICKS_PER_SECOND / seconds;
    let busiest = 0;
    for (const [tid, ticks] of threads) busiest = Math.max(busiest, tickPercent(ticks - (this.lastThreads.get(tid) ?? ticks)));
    this.onSample({
      tMs: now - this.startedAtMs,
      cpuTotal: percent.busy[0] ?? 0,
      cpuPerCore: percent.busy.slice(1),
      iowait: percent.iowait,
      memUsedMiB: memory.usedMiB,
      swapUsedMiB: memory.swapUsedMiB,
      procCpu: Math.max(0, tickPercent(group.cpuTicks - this.lastGroup.cpuTicks)),
      procRssMiB: group.rssMiB,
      threads: group.threads,
      readBytesPerSec: Math.max(0, (group.readBytes - this.lastGroup.readBytes) / seconds),
      writeBytesPerSec: Math.max(0, (group.writeBytes - this.lastGroup.writeBytes) / seconds),
      busiestThreadCpu: Math.min(100, busiest),
    });
    this.lastCpu = cpu;
    this.lastGroup = group;
    this.lastThreads = threads;
    this.lastAt = now;
  }
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
