// At start: runs left "running" by an engine that died are marked interrupted; survivors are reported.
import type { Run } from '../../shared/api.js';
import type { RunStore } from '../store/runStore.js';
import { isAlive, processGroupMembers, processStartTicks } from './procStat.js';

/**
 * The run's process group still has members. The pty's first process (whose pid is the group id)
 * dies with the engine's terminal, but a training that ignores SIGHUP lives on in the group; the
 * kernel never hands out a pid that is still some group's id, so those members are ours. While the
 * first process lives, its start time must match too (its pid could have been reused).
 */
export function isOurGroupAlive(pgid: number, startTicks: number): boolean {
  const leaderTicks = processStartTicks(pgid);
  if (leaderTicks !== null && leaderTicks !== startTicks) return false;
  return processGroupMembers(pgid).length > 0;
}

export interface OrphanedProcess {
  runId: number;
  pid: number;
  /** /proc start time, checked again before any signal so a reused pid is never hit. */
  startTicks: number;
  command: string[];
}

export interface RecoveryReport {
  interrupted: Run[];
  /** Process groups of interrupted runs that still have live members. */
  orphans: OrphanedProcess[];
}

export function recoverInterruptedRuns(runs: RunStore, now: Date): RecoveryReport {
  const report: RecoveryReport = { interrupted: [], orphans: [] };
  for (const candidate of runs.runningRuns()) {
    // Another face (the CLI beside the desktop app) may own this run and still be alive: leave it be.
    if (candidate.enginePid !== null && candidate.enginePid !== process.pid && isAlive(candidate.enginePid)) continue;
    const interrupted = runs.markInterrupted(
      candidate.id,
      'the engine stopped while this run was going (crash or kill); output up to then is kept',
      now,
    );
    report.interrupted.push(interrupted);
    if (candidate.pid !== null && candidate.pidStartTicks !== null && isOurGroupAlive(candidate.pid, candidate.pidStartTicks)) {
      report.orphans.push({ runId: candidate.id, pid: candidate.pid, startTicks: candidate.pidStartTicks, command: interrupted.command });
    }
  }
  return report;
}
