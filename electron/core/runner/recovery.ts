// At start: runs left "running" by an engine that died are marked interrupted, summarised from the steps they logged; survivors are reported.
import { summarizeStored } from '../metrics/summaryInput.js';
import type { Run, RunSummary } from '../../shared/api.js';
import { stepUnits } from '../ingest/unitsPerStep.js';
import { summaryChoices } from '../ingest/stepChoices.js';
import type { RunProcessStore } from '../store/runProcessStore.js';
import { EMPTY_SUMMARY, type OrphanCandidate, type RunStore } from '../store/runStore.js';
import type { Store } from '../store/store.js';
import { isStillRunning, sameProcess, type ProcessIdentity } from '../system/processIdentity.js';
import { findRunProcesses, type TrackedProcess } from '../system/processTree.js';

export interface OrphanedProcess {
  runId: number;
  /** The pty's first process: it led the run's session and process group. */
  pid: number;
  /** /proc start time of that first process, so a reused pid is never taken for it. */
  startTicks: number;
  /** The run's marker (in every one of its processes' environment), null for runs from before markers. */
  marker: string | null;
  command: string[];
}

export interface RecoveryReport {
  interrupted: Run[];
  /** Interrupted runs with processes still alive. */
  orphans: OrphanedProcess[];
}

/**
 * The processes of a run that are alive now: those written down while it ran (each still the same process), its
 * session and process group, and anything carrying its marker, with their descendants (see findRunProcesses).
 */
export function survivingProcesses(orphan: Pick<OrphanedProcess, 'runId' | 'pid' | 'startTicks' | 'marker'>, processes: RunProcessStore): TrackedProcess[] {
  return findRunProcesses({ rootPid: orphan.pid, rootStartTicks: orphan.startTicks, marker: orphan.marker, known: processes.forRun(orphan.runId) });
}

/**
 * `summarize`: the summary of an interrupted run from the metrics it stored before the engine died
 * (partial: its status says so), so compare can show it; null leaves the summary as it was.
 * `engine`: this engine. A run's engine counts as alive only as the same process (pid and start time).
 */
export function recoverInterruptedRuns(
  runs: RunStore,
  processes: RunProcessStore,
  engine: ProcessIdentity,
  now: Date,
  summarize: (run: Run) => RunSummary | null = () => null,
): RecoveryReport {
  const report: RecoveryReport = { interrupted: [], orphans: [] };
  for (const candidate of runs.runningRuns()) {
    // Another face (the CLI beside the desktop app) may own this run and still be alive: leave it be.
    if (ownedByAnotherLiveEngine(candidate, engine)) continue;
    // The run was last heard from at its last output, not now (recovery may come days later).
    const started = runs.get(candidate.id);
    const lastOutputMs = runs.lastOutputMs(candidate.id);
    const endedAt = started && lastOutputMs !== null ? new Date(Date.parse(started.startedAt) + lastOutputMs) : now;
    const interrupted = runs.markInterrupted(candidate.id, 'the engine stopped while this run was going (crash or kill); output up to then is kept', endedAt);
    const summary = summarize(interrupted);
    if (summary !== null) runs.setSummary(interrupted.id, summary);
    report.interrupted.push(runs.get(interrupted.id) ?? interrupted);
    const orphan = asOrphan(candidate, interrupted.command);
    if (orphan && survivingProcesses(orphan, processes).length > 0) {
      // Kept with the run, so every face that opens the database later lists it too, not only the one that found it.
      runs.markOrphaned(candidate.id);
    }
  }
  for (const candidate of runs.markedOrphanCandidates()) {
    const orphan = asOrphan(candidate, runs.get(candidate.id)?.command ?? []);
    if (orphan && survivingProcesses(orphan, processes).length > 0) report.orphans.push(orphan);
  }
  return report;
}

function ownedByAnotherLiveEngine(candidate: OrphanCandidate, engine: ProcessIdentity): boolean {
  if (candidate.enginePid === null) return false;
  const owner = { pid: candidate.enginePid, startTicks: candidate.engineStartTicks };
  return !sameProcess(owner, engine) && isStillRunning(owner, new Date(candidate.startedAt));
}

function asOrphan(candidate: OrphanCandidate, command: string[]): OrphanedProcess | null {
  if (candidate.pid === null || candidate.pidStartTicks === null) return null;
  return { runId: candidate.id, pid: candidate.pid, startTicks: candidate.pidStartTicks, marker: candidate.processMarker, command };
}

/** An interrupted run's summary from the metrics it stored (tokens per step from its workload, as at a normal end); null without metrics. */
export function summarizeInterrupted(store: Store, run: Run): RunSummary | null {
  if (store.metrics.count(run.id) === 0) return null;
  const workload = run.workloadId === null ? undefined : store.workloads.get(run.workloadId);
  return {
    ...EMPTY_SUMMARY,
    ...run.summary,
    ...summarizeStored(store.metrics, run.id, { ...stepUnits(run.unitsPerStep, workload, run.config), ...summaryChoices(run, workload) }).summary,
  };
}
