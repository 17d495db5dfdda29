// The options of a workload picker (New run, New sweep): each workload by name, built-ins marked, a placeholder while they load.
import type { Workload } from '../../../../electron/shared/api.js';

export function WorkloadOptions({ workloads }: { workloads: readonly Workload[] }) {
  return (
    <>
      {workloads.length === 0 && <option value="">Loading workloads…</option>}
      {workloads.map((w) => (
        <option key={w.id} value={w.id}>
          {w.name}
          {w.builtin ? ' (builtin)' : ''}
        </option>
      ))}
    </>
  );
}
