// Training processes that outlived a crashed engine: listed for the user, stopped on request.
import type { Orphan } from '../../shared/api.js';
import { ApiFailure } from '../../shared/api.js';
import { isOurGroupAlive, type OrphanedProcess } from './recovery.js';

/** After SIGTERM, an orphan gets this long before SIGKILL. */
const ORPHAN_KILL_GRACE_MS = 3000;

export class OrphanRegistry {
  private readonly orphans = new Map<number, OrphanedProcess>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(found: readonly OrphanedProcess[]) {
    for (const orphan of found) this.orphans.set(orphan.runId, orphan);
  }

  /** Those whose process group still has live members. */
  list(): Orphan[] {
    return [...this.orphans.values()]
      .filter((orphan) => this.isSameProcess(orphan))
      .map(({ runId, pid, command }) => ({ runId, pid, command }));
  }

  /** SIGTERM to the orphan's process group (its DataLoader workers too), then SIGKILL if it lingers. */
  kill(runId: number): void {
    const orphan = this.orphans.get(runId);
    if (!orphan || !this.isSameProcess(orphan)) {
      this.orphans.delete(runId);
      throw new ApiFailure('not_found', `run ${runId} has no surviving process`);
    }
    signalGroup(orphan.pid, 'SIGTERM');
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.isSameProcess(orphan)) signalGroup(orphan.pid, 'SIGKILL');
      this.orphans.delete(runId);
    }, ORPHAN_KILL_GRACE_MS);
    this.timers.add(timer);
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private isSameProcess(orphan: OrphanedProcess): boolean {
    return isOurGroupAlive(orphan.pid, orphan.startTicks);
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group went between the check and the signal.
  }
}
