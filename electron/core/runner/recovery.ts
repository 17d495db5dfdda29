// At start: runs left "running" by an engine that died are marked interrupted, summarised from the steps they logged; survivors are reported.
import { samplesForSummary } from '../metrics/summaryInput.js';
import type { Run, RunSummary } from '../../shared/api.js';
import { stepUnits } from '../ingest/unitsPerStep.js';
import { summaryChoices } from '../ingest/stepChoices.js';
import { summarizeMetrics } from '../metrics/summary.js';
import { EMPTY_SUMMARY, type RunStore } from '../store/runStore.js';
import type { Store } from '../store/store.js';
import { isAlive, processGroupMembers, processStartTicks } from '../system/procStat.js';

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

/**
 * `summarize`: the summary of an interrupted run from the metrics it stored before the engine died
 * (partial: its status says so), so compare can show it; null leaves the summary as it was.
 */
export function recoverInterruptedRuns(runs: RunStore, now: Date, summarize: (run: Run) => RunSummary | null = () => null): RecoveryReport {
  const report: RecoveryReport = { interrupted: [], orphans: [] };
  for (const candidate of runs.runningRuns()) {
    // Another face (the CLI beside the desktop app) may own this run and still be alive: leave it be.
    if (candidate.enginePid !== null && candidate.enginePid !== process.pid && isAlive(candidate.enginePid)) continue;
    // The run was last heard from at its last output, not now (recovery may come days later).
    const started = runs.get(candidate.id);
    const lastOutputMs = runs.lastOutputMs(candidate.id);
    const endedAt = started && lastOutputMs !== null ? new Date(Date.parse(started.startedAt) + lastOutputMs) : now;
    const interrupted = runs.markInterrupted(
      candidate.id,
      'the engine stopped while this run was going (crash or kill); output up to then is kept',
      endedAt,
    );
    const summary = summarize(interrupted);
    if (summary !== null) runs.setSummary(interrupted.id, summary);
    report.interrupted.push(runs.get(interrupted.id) ?? interrupted);
    if (candidate.pid !== null && candidate.pidStartTicks !== null && isOurGroupAlive(candidate.pid, candidate.pidStartTicks)) {
      // Kept with the run, so every face that opens the database later lists it too, not only the one that found it.
      runs.addFingerprint(candidate.id, { orphan: { pid: candidate.pid, startTicks: candidate.pidStartTicks } });
    }
  }
  for (const run of runs.markedOrphans()) {
    const mark = run.fingerprint?.orphan as { pid?: unknown; startTicks?: unknown } | undefined;
    if (typeof mark?.pid !== 'number' || typeof mark.startTicks !== 'number') continue;
    if (isOurGroupAlive(mark.pid, mark.startTicks)) {
      report.orphans.push({ runId: run.id, pid: mark.pid, startTicks: mark.startTicks, command: run.command });
    }
  }
  return report;
}

/** An interrupted run's summary from the metrics it stored (tokens per step from its workload, as at a normal end); null without metrics. */
export function summarizeInterrupted(store: Store, run: Run): RunSummary | null {
  const samples = samplesForSummary(store.metrics, run.id);
  if (samples.length === 0) return null;
  const workload = run.workloadId === null ? undefined : store.workloads.get(run.workloadId);
  return { ...EMPTY_SUMMARY, ...run.summary, ...summarizeMetrics(samples, { ...stepUnits(run.unitsPerStep, workload, run.config), ...summaryChoices(run, workload) }) };
}
