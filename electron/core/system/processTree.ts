// Every process a run started, including those that left its tree or its process group (setsid, a double fork, os.setpgrp, `set -m`): found by /proc walks, stopped together.
import { realInterval, type Timer } from '../clock.js';
import fs from 'node:fs';
import { readProcTable, type ProcEntry } from './procStat.js';

/** How often the tree is walked while the run lives; processes that escape between walks are still found by the run's marker. */
export const TREE_SAMPLE_INTERVAL_MS = 500;

/** The variable that carries a run's marker into every process it starts (inherited unless a process clears its environment). */
export const RUN_MARKER_VARIABLE = 'TUNING_BENCH_RUN_TOKEN';

/** A process the run started, remembered with its start time so a reused pid is never signalled. */
export interface TrackedProcess {
  pid: number;
  startTicks: number;
}

export interface RunProcesses {
  /** The pty's first process: it leads the run's session and process group (node-pty makes it so). */
  rootPid: number;
  /** Its start time: nothing that started before it can be the run's. Null when not known (no /proc). */
  rootStartTicks: number | null;
  /** The run's marker (RUN_MARKER_VARIABLE's value in its environment); null for runs from before markers. */
  marker: string | null;
  /** Processes already known to be the run's. */
  known: readonly TrackedProcess[];
}

/**
 * One /proc walk: the run's processes alive now. Its session and group members (a member keeps the kernel from
 * reusing their id), every process carrying its marker that started after it (a double-forked daemon, whatever its
 * parent), the known ones still the same processes, and every descendant of all of these.
 * `checked` remembers processes found not to be the run's (pid → start ticks), so each environment is read once.
 */
export function findRunProcesses(run: RunProcesses, checked: Map<number, number> = new Map()): TrackedProcess[] {
  const table = readProcTable();
  const byPid = new Map(table.map((entry) => [entry.pid, entry]));
  const children = new Map<number, ProcEntry[]>();
  for (const entry of table) {
    const list = children.get(entry.ppid);
    if (list) list.push(entry);
    else children.set(entry.ppid, [entry]);
  }
  const rootEntry = byPid.get(run.rootPid);
  // A live root that is not the run's first process means its pid was reused: only the group and session ids still count.
  const rootIsOurs = rootEntry !== undefined && (run.rootStartTicks === null || rootEntry.startTicks === run.rootStartTicks);
  const knownTicks = new Map(run.known.map((process) => [process.pid, process.startTicks]));
  const queue: ProcEntry[] = [];
  for (const entry of table) {
    if (entry.pid === process.pid) continue;
    const isRoot = entry.pid === run.rootPid && rootIsOurs;
    const inSessionOrGroup = entry.pid !== run.rootPid && (entry.sid === run.rootPid || entry.pgid === run.rootPid);
    if (isRoot || inSessionOrGroup || knownTicks.get(entry.pid) === entry.startTicks || carriesMarker(entry, run, checked)) queue.push(entry);
  }
  // Forget what was checked of processes that are gone, so the cache is never larger than the process table.
  for (const [pid, ticks] of checked) if (byPid.get(pid)?.startTicks !== ticks) checked.delete(pid);
  const found = new Map<number, TrackedProcess>();
  while (queue.length > 0) {
    const entry = queue.pop()!;
    if (found.has(entry.pid)) continue;
    if (!entry.zombie) found.set(entry.pid, { pid: entry.pid, startTicks: entry.startTicks });
    queue.push(...(children.get(entry.pid) ?? []));
  }
  return [...found.values()];
}

/** Whether the process has the run's marker in its environment (read once per process: `checked` keeps the answer "no"). */
function carriesMarker(entry: ProcEntry, run: RunProcesses, checked: Map<number, number>): boolean {
  if (run.marker === null || entry.zombie) return false;
  if (run.rootStartTicks !== null && entry.startTicks < run.rootStartTicks) return false;
  if (checked.get(entry.pid) === entry.startTicks) return false;
  let environment: Buffer;
  try {
    environment = fs.readFileSync(`/proc/${entry.pid}/environ`);
  } catch {
    // Another user's process (environ is private to its owner), or gone: not the run's.
    checked.set(entry.pid, entry.startTicks);
    return false;
  }
  const needle = Buffer.from(`${RUN_MARKER_VARIABLE}=${run.marker}\0`);
  const ours = environment.indexOf(needle) === 0 || environment.indexOf(Buffer.concat([Buffer.from([0]), needle])) >= 0;
  if (!ours) checked.set(entry.pid, entry.startTicks);
  return ours;
}

/** Whether a tracked process is still running as itself: same start time, not a zombie. */
export function isTrackedAlive(tracked: TrackedProcess): boolean {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${tracked.pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[0] !== 'Z' && Number(fields[19]) === tracked.startTicks;
}

/** The process group a live process is in now, or null when it is gone. */
function groupOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return null;
  }
}

/**
 * Signals a run's processes, each once: the whole group with one signal (as a terminal's Ctrl-C does), then,
 * one by one, only those outside the group. Each is checked against its start time first, so a reused pid is
 * never hit. Returns how many were signalled outside the group.
 */
export function signalRunProcesses(rootPid: number, processes: readonly TrackedProcess[], signal: NodeJS.Signals, options: { group: boolean }): number {
  if (options.group) {
    try {
      process.kill(-rootPid, signal);
    } catch {
      // The group is already gone.
    }
  }
  let outside = 0;
  for (const tracked of processes) {
    if (options.group && groupOf(tracked.pid) === rootPid) continue;
    if (!isTrackedAlive(tracked)) continue;
    try {
      process.kill(tracked.pid, signal);
      outside += 1;
    } catch {
      // Gone between the check and the signal.
    }
  }
  return outside;
}

/** A live run's processes, walked every TREE_SAMPLE_INTERVAL_MS; each new one is reported (to be written down for recovery). */
export class ProcessTree {
  private readonly known = new Map<number, number>();
  private readonly checked = new Map<number, number>();
  private readonly timer: Timer;
  private readonly run: Omit<RunProcesses, 'known'>;

  private readonly onFound: (found: TrackedProcess[]) => void;

  constructor(rootPid: number, options: { rootStartTicks: number | null; marker: string | null; onFound?: (found: TrackedProcess[]) => void }) {
    this.run = { rootPid, rootStartTicks: options.rootStartTicks, marker: options.marker };
    this.onFound = options.onFound ?? (() => undefined);
    this.sample();
    this.timer = realInterval(() => this.sample(), TREE_SAMPLE_INTERVAL_MS, { background: true });
  }

  /** Adds every process of the run alive now to the known set (see findRunProcesses). */
  sample(): void {
    try {
      const found = findRunProcesses({ ...this.run, known: this.knownList() }, this.checked);
      const fresh = found.filter((tracked) => this.known.get(tracked.pid) !== tracked.startTicks);
      for (const tracked of fresh) this.known.set(tracked.pid, tracked.startTicks);
      if (fresh.length > 0) this.onFound(fresh);
    } catch {
      // A walk that fails (a process vanished mid-read) is retried on the next tick; it never throws from the timer.
    }
  }

  /** Known processes still alive and still the same process (start time unchanged). */
  alive(): TrackedProcess[] {
    const alive: TrackedProcess[] = [];
    for (const tracked of this.knownList()) {
      if (isTrackedAlive(tracked)) alive.push(tracked);
      else this.known.delete(tracked.pid);
    }
    return alive;
  }

  /** Walks the tree again, then signals the group once and each live process outside it once. */
  signalAll(signal: NodeJS.Signals): number {
    this.sample();
    return signalRunProcesses(this.run.rootPid, this.alive(), signal, { group: true });
  }

  close(): void {
    this.timer.cancel();
  }

  private knownList(): TrackedProcess[] {
    return [...this.known].map(([pid, startTicks]) => ({ pid, startTicks }));
  }
}
