// What a run is called in lists: its workload, and for a sweep's run its config and repeat (`+batch=16 · rep 2`).
import type { Run } from '../../../electron/shared/api.js';

/** What a label needs of a sweep: its id and its configs' names. */
type SweepNames = { id: number; configs: readonly { name: string }[] };

/** The run's place in its sweep in words, or null outside a sweep. */
export function sweepPlace(run: Pick<Run, 'sweepId' | 'configIndex' | 'repeatIndex'>, sweeps: readonly SweepNames[]): string | null {
  if (run.sweepId === null || run.configIndex === null) return null;
  const sweep = sweeps.find((s) => s.id === run.sweepId);
  const config = sweep?.configs[run.configIndex]?.name ?? `config ${run.configIndex + 1}`;
  return run.repeatIndex === null ? config : `${config} · rep ${run.repeatIndex + 1}`;
}

export function runLabel(run: Run, sweeps: readonly SweepNames[]): string {
  const name = run.workloadName ?? 'ad-hoc';
  const place = sweepPlace(run, sweeps);
  return place === null ? name : `${name} · ${place}`;
}
