// The warm-up and left-out steps a summary uses: a run's own (or its sweep's) over its workload's, the automatic rules otherwise.
import type { Run, Workload } from '../../shared/api.js';
import type { SummaryOptions } from '../metrics/summary.js';

export type SummaryChoices = Pick<SummaryOptions, 'warmup' | 'warmupSetBy' | 'excludeSteps'>;

/** What the summary of `run` uses; steps left out by the run and by its workload both stay out. */
export function summaryChoices(run: Pick<Run, 'steps'>, workload: Pick<Workload, 'steps'> | null | undefined): SummaryChoices {
  const own = run.steps;
  const shared = workload?.steps ?? null;
  const excludeSteps = [...new Set([...(own?.excludeSteps ?? []), ...(shared?.excludeSteps ?? [])])].sort((a, b) => a - b);
  if (own?.warmupSteps != null) return { warmup: { kind: 'steps', steps: own.warmupSteps }, warmupSetBy: own.setBy, excludeSteps };
  if (shared?.warmupSteps != null) return { warmup: { kind: 'steps', steps: shared.warmupSteps }, warmupSetBy: 'workload', excludeSteps };
  return { warmup: { kind: 'auto' }, warmupSetBy: null, excludeSteps };
}
