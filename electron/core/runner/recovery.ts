// At start: runs left "running" by an engine that died are marked interrupted; survivors are reported.
import type { Run } from '../../shared/api.js';
import type { RunStore } from '../store/runStore.js';
import { isAlive, processStartTicks } from './procStat.js';

export interface OrphanedProcess {
  runId: number;
  pid: number;
  /** /proc start time, checked again before any signal so a reused pid is never hit. */
  startTicks: number;
  command: string[];
}

export interface RecoveryReport {
  interrupted: Run[];
  /** Training processes of interrupted runs that are still alive (same pid and start time). */
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
    if (candidate.pid !== null && candidate.pidStartTicks !== null && processStartTicks(candidate.pid) === candidate.pidStartTicks) {
      report.orphans.push({ runId: candidate.id, pid: candidate.pid, startTicks: candidate.pidStartTicks, command: interrupted.command });
    }
  }
  return report;
}
