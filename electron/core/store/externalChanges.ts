// Notices runs that another process (the CLI beside the desktop app or the server) adds or ends in the same database.
import type { Run } from '../../shared/api.js';
import type { Clock, Timer } from '../clock.js';
import type { Db } from './open.js';
import type { RunStore } from './runStore.js';
import type { SweepStore } from './sweepStore.js';

/** Sweeps to watch as well: those another engine runs (this one reports its own). */
export interface WatchedSweeps {
  store: SweepStore;
  /** This engine (pid and /proc start time): its own sweeps are not news. */
  owner: { pid: number; startTicks: number | null };
  onSweep: (id: number) => void;
}

/** A UI should show another process's run within a second (issue 15); a pragma read this often costs microseconds. */
export const EXTERNAL_POLL_INTERVAL_MS = 500;

/**
 * Polls SQLite's `data_version`, which changes when another connection commits, and reports runs that are new
 * or whose status changed since last seen. Runs this engine owns are skipped (it reports those itself).
 */
export class ExternalChangeWatcher {
  private readonly timer: Timer;
  private dataVersion: number;
  private lastId: number;
  /** Runs seen running, with their status, so their end is noticed too. */
  private readonly seenRunning = new Map<number, Run['status']>();
  /** Another engine's sweeps seen unfinished, so their progress and their end are reported. */
  private readonly seenSweeps = new Set<number>();

  constructor(
    private readonly db: Db,
    private readonly runs: RunStore,
    private readonly ownsRun: (id: number) => boolean,
    private readonly onRun: (run: Run) => void,
    clock: Clock,
    private readonly sweeps: WatchedSweeps | null = null,
    intervalMs = EXTERNAL_POLL_INTERVAL_MS,
  ) {
    this.dataVersion = this.readVersion();
    const known = this.runs.list(1)[0];
    this.lastId = known?.id ?? 0;
    for (const run of this.runs.newOrRunning(this.lastId)) this.seenRunning.set(run.id, run.status);
    this.timer = clock.setInterval(() => this.poll(), intervalMs, { background: true });
  }

  poll(): void {
    try {
      if (!this.db.open) return;
      const version = this.readVersion();
      if (version === this.dataVersion) return;
      this.dataVersion = version;
      const current = this.runs.newOrRunning(this.lastId);
      const stillRunning = new Set<number>();
      for (const run of current) {
        this.lastId = Math.max(this.lastId, run.id);
        if (run.status === 'running') stillRunning.add(run.id);
        if (this.ownsRun(run.id)) continue;
        const before = this.seenRunning.get(run.id);
        if (run.status === 'running') this.seenRunning.set(run.id, run.status);
        if (before === undefined) {
          this.onRun(run);
          // A resumed sweep's re-run: the interrupted run it replaces now links to it, so it changed too.
          const replaced = run.replacesRunId === null ? undefined : this.runs.get(run.replacesRunId);
          if (replaced) this.onRun(replaced);
        }
      }
      // Runs that were running and are no longer: ended (or recovered) by another process.
      for (const id of [...this.seenRunning.keys()]) {
        if (stillRunning.has(id)) continue;
        this.seenRunning.delete(id);
        const ended = this.runs.get(id);
        if (ended && !this.ownsRun(id)) this.onRun(ended);
      }
      this.pollSweeps();
    } catch {
      // A busy or closing file: the next tick looks again. Never a throw from a timer.
    }
  }

  /** Any commit may be a sweep's progress: each unfinished sweep of another engine is reported, and once more when it ends. */
  private pollSweeps(): void {
    if (!this.sweeps) return;
    const { store, owner, onSweep } = this.sweeps;
    const unfinished = new Set<number>();
    for (const sweep of store.unfinished()) {
      if (sweep.ownerPid === owner.pid && sweep.ownerStartTicks === owner.startTicks) continue;
      unfinished.add(sweep.id);
      this.seenSweeps.add(sweep.id);
      onSweep(sweep.id);
    }
    for (const id of [...this.seenSweeps]) {
      if (unfinished.has(id)) continue;
      this.seenSweeps.delete(id);
      onSweep(id);
    }
  }

  close(): void {
    this.timer.cancel();
  }

  private readVersion(): number {
    return this.db.pragma('data_version', { simple: true }) as number;
  }
}
