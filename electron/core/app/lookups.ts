// Finding what a call names, or refusing it in the words a person acts on.
import { ApiFailure } from '../../shared/api.js';
import type { Store } from '../store/store.js';

type Stored = Pick<Store, 'runs' | 'workloads' | 'profiles'>;

export function requireRun(store: Stored, id: number) {
  const run = store.runs.get(id);
  if (!run) throw new ApiFailure('not_found', `no run ${id}`);
  return run;
}

export function requireWorkload(store: Stored, id: number) {
  const workload = store.workloads.get(id);
  if (!workload) throw new ApiFailure('not_found', `no workload ${id}`);
  return workload;
}

export function requireProfile(store: Stored, runId: number) {
  requireRun(store, runId);
  const profile = store.profiles.forRun(runId);
  if (!profile) throw new ApiFailure('not_found', `run ${runId} has no profile; make one with \`tuning-bench profile ${runId} --rerun\` or the Profile button`);
  return profile;
}

/** A run pulled back from MLflow was recorded on another box: what depends on its output or its machine is refused, saying so. */
export function refuseImported(store: Stored, id: number, what: string): void {
  const origin = store.runs.get(id)?.origin;
  if (origin)
    throw new ApiFailure(
      'conflict',
      `run ${id} was pulled back from MLflow (recorded on ${origin.machine.label}) and is read-only here: ${what}; its MLflow run is ${origin.url}`,
    );
}
