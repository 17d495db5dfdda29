// workloads.*: the saved commands, their metric patterns checked as they are saved.
import { ApiFailure } from '../../../shared/api.js';
import { adHocWorkload } from '../../../shared/typedCommand.js';
import { compileUserRegex, UserRegexError } from '../../metrics/userRegex.js';
import { BuiltinWorkloadError, WorkloadNameTakenError, WorkloadNotFoundError } from '../../store/workloadStore.js';
import { requireWorkload } from '../lookups.js';
import type { DomainHandlers, EngineServices } from '../services.js';

export function workloadHandlers({ store, events, runner }: EngineServices): DomainHandlers<'workloads'> {
  const changed = () => events.emit('workloads.onDidChange', { workloads: store.workloads.list() });
  return {
    'workloads.list': () => store.workloads.list(),
    'workloads.create': (input) => {
      checkMetricPattern(input.metricRegex);
      const created = refusingAsTheStoreSays(() => store.workloads.create(input));
      changed();
      return created;
    },
    'workloads.update': ({ id, workload: input }) => {
      // A built-in is refused as such by the store, whatever its pattern.
      if (store.workloads.get(id)?.builtin !== true) checkMetricPattern(input.metricRegex);
      const updated = refusingAsTheStoreSays(() => store.workloads.update(id, input));
      changed();
      return updated;
    },
    'workloads.remove': ({ id }) => {
      refusingAsTheStoreSays(() => store.workloads.remove(id));
      changed();
      return { ok: true as const };
    },
    'workloads.preview': ({ workloadId, command: typed, values }) => {
      if ((workloadId === undefined) === (typed === undefined)) throw new ApiFailure('invalid_input', 'give a workload or a typed command (one of the two)');
      const { command, cwd, env } = runner.preview(typed ? adHocWorkload(typed) : requireWorkload(store, workloadId!), values);
      return { command, cwd, env };
    },
  };
}

/** A taken name or a built-in is the person's conflict, a missing workload theirs to look up: said as such. */
function refusingAsTheStoreSays<T>(change: () => T): T {
  try {
    return change();
  } catch (error) {
    if (error instanceof WorkloadNameTakenError || error instanceof BuiltinWorkloadError) throw new ApiFailure('conflict', error.message);
    if (error instanceof WorkloadNotFoundError) throw new ApiFailure('not_found', error.message);
    throw error;
  }
}

/** A workload's metric pattern is checked when it is saved, so no run starts with one that parsing would ignore. */
function checkMetricPattern(pattern: string): void {
  if (pattern === '') return;
  try {
    compileUserRegex(pattern);
  } catch (error) {
    if (error instanceof UserRegexError) throw new ApiFailure('invalid_input', `metric pattern: ${error.message}`);
    throw error;
  }
}
