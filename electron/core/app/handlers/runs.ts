// runs.* that start, steer and annotate runs, and the orphans a dead engine left.
import { ApiFailure } from '../../../shared/api.js';
import { knobsAsConfig } from '../../../shared/knobs.js';
import { adHocWorkload } from '../../../shared/typedCommand.js';
import { ReparseRefused, resummarizeRun } from '../../ingest/reparse.js';
import { requireRun, requireWorkload } from '../lookups.js';
import type { EngineServices, HandlersOf } from '../services.js';

type RunMethod =
  | 'runs.list'
  | 'runs.get'
  | 'runs.start'
  | 'runs.rerun'
  | 'runs.profile'
  | 'runs.stop'
  | 'runs.write'
  | 'runs.resize'
  | 'runs.annotate'
  | 'runs.setSteps'
  | 'runs.summaryHistory'
  | 'runs.orphans'
  | 'runs.killOrphan';

export function runHandlers({ store, events, runner, orphans, reruns, startRun, clock }: EngineServices): HandlersOf<RunMethod> {
  return {
    'runs.list': ({ limit }) => store.runs.list(limit),
    'runs.get': ({ id }) => requireRun(store, id),
    'runs.start': ({
      workloadId,
      command,
      values,
      cols,
      rows,
      timeoutSeconds,
      maxSteps,
      minStepSeconds,
      gpuSettings,
      confirmOtherProcesses,
      unitsPerStep,
      profile,
      steps,
      knobs,
    }) => {
      if ((workloadId === undefined) === (command === undefined)) throw new ApiFailure('invalid_input', 'give a workload or a typed command (one of the two)');
      const workload = command ? adHocWorkload(command) : requireWorkload(store, workloadId!);
      const own = steps && (steps.warmupSteps !== null || steps.excludeSteps.length > 0) ? { ...steps, setBy: 'run' as const } : undefined;
      // Knobs are recorded in the run's config (`knob.NAME`), where a re-run and a comparison find them like any value.
      const knobConfig = knobs && Object.keys(knobs).length > 0 ? { extraConfig: knobsAsConfig(knobs) } : {};
      return startRun({
        workload,
        values,
        cols,
        rows,
        timeoutSeconds,
        maxSteps,
        minStepSeconds,
        gpuSettings,
        confirmOtherProcesses,
        unitsPerStep,
        profile,
        steps: own,
        ...knobConfig,
      });
    },
    'runs.rerun': ({ id }) => reruns.start(id, null),
    'runs.profile': ({ id, warmupSteps, steps }) => reruns.start(id, { warmupSteps, steps }),
    'runs.stop': ({ id, reason }) => {
      runner.stop(id, reason === undefined ? {} : { reason });
      return { ok: true as const };
    },
    'runs.write': ({ id, data }) => {
      runner.write(id, data);
      return { ok: true as const };
    },
    'runs.resize': ({ id, cols, rows }) => {
      runner.resize(id, cols, rows);
      return { ok: true as const };
    },
    'runs.annotate': ({ id, notes, tags }) => {
      requireRun(store, id);
      store.runs.annotate(id, { notes, tags });
      const run = requireRun(store, id);
      events.emit('runs.onDidChange', run);
      return run;
    },
    'runs.setSteps': async ({ id, warmupSteps, excludeSteps }) => {
      requireRun(store, id);
      if (runner.isActive(id)) throw new ApiFailure('conflict', `run ${id} is still running; set its steps once it has ended`);
      try {
        const run = await resummarizeRun(store, id, { warmupSteps, excludeSteps }, clock.now());
        events.emit('runs.onDidChange', run);
        return run;
      } catch (error) {
        if (error instanceof ReparseRefused) throw new ApiFailure('conflict', error.message);
        throw error;
      }
    },
    'runs.summaryHistory': ({ id }) => {
      requireRun(store, id);
      return store.runs.summaryHistory(id);
    },
    'runs.orphans': () => orphans.list(),
    'runs.killOrphan': ({ runId }) => {
      orphans.kill(runId);
      return { ok: true as const };
    },
  };
}
