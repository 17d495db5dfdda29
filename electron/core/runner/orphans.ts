// Training processes that outlived a crashed engine: listed for the user, stopped on request, each known by pid and start time.
import type { Orphan } from '../../shared/api.js';
import { ApiFailure } from '../../shared/api.js';
import type { Clock, Timer } from '../clock.js';
import type { RunProcessStore } from '../store/runProcessStore.js';
import { signalRunProcesses, type TrackedProcess } from '../system/processTree.js';
import { survivingProcesses, type OrphanedProcess } from './recovery.js';

/** After SIGTERM, an orphan's processes get this long before SIGKILL. */
const ORPHAN_KILL_GRACE_MS = 3000;

export class OrphanRegistry {
  private readonly orphans = new Map<number, OrphanedProcess>();
  private readonly timers = new Set<Timer>();

  constructor(
    found: readonly OrphanedProcess[],
    private readonly processes: RunProcessStore,
    private readonly clock: Clock,
  ) {
    for (const orphan of found) this.orphans.set(orphan.runId, orphan);
  }

  /** Interrupted runs with processes still alive, each with all of them. */
  list(): Orphan[] {
    const listed: Orphan[] = [];
    for (const orphan of this.orphans.values()) {
      const alive = this.survivors(orphan);
      if (alive.length === 0) continue;
      const leader = alive.find((process) => process.pid === orphan.pid) ?? alive[0]!;
      listed.push({ runId: orphan.runId, pid: leader.pid, pids: alive.map((process) => process.pid), command: orphan.command });
    }
    return listed;
  }

  /**
   * SIGTERM to every surviving process of the run (its group with one signal, each outside it alone), then SIGKILL
   * to those still alive after the grace: the same list recovery made, each checked against its start time first.
   */
  kill(runId: number): void {
    const orphan = this.orphans.get(runId);
    const alive = orphan ? this.survivors(orphan) : [];
    if (!orphan || alive.length === 0) {
      this.orphans.delete(runId);
      throw new ApiFailure('not_found', `run ${runId} has no surviving process`);
    }
    signalRunProcesses(orphan.pid, alive, 'SIGTERM', { group: true });
    const timer = this.clock.setTimeout(() => {
      this.timers.delete(timer);
      const left = this.survivors(orphan);
      if (left.length > 0) signalRunProcesses(orphan.pid, left, 'SIGKILL', { group: true });
    }, ORPHAN_KILL_GRACE_MS);
    this.timers.add(timer);
  }

  close(): void {
    for (const timer of this.timers) timer.cancel();
    this.timers.clear();
  }

  private survivors(orphan: OrphanedProcess): TrackedProcess[] {
    return survivingProcesses(orphan, this.processes);
  }
}
