// runs.import*: a log given as text or in pieces becomes a run; runs.reparse parses stored runs again.
import { ApiFailure } from '../../../shared/api.js';
import { ImportEmpty, ImportNotText, importLogText, ImportTooLarge } from '../../ingest/importLog.js';
import { ImportSessionError } from '../../ingest/importSessions.js';
import { ReparseRefused } from '../../ingest/reparse.js';
import { refuseImported, requireRun, requireWorkload } from '../lookups.js';
import type { EngineServices, HandlersOf } from '../services.js';

type ImportMethod = 'runs.import' | 'runs.importBegin' | 'runs.importAppend' | 'runs.importFinish' | 'runs.importCancel' | 'runs.reparse';

export function importHandlers({ store, recording, tasks, imports, events, runner, clock }: EngineServices): HandlersOf<ImportMethod> {
  const refused = (error: unknown) => Promise.reject(importFailure(error));
  return {
    'runs.import': async ({ name, text }) => {
      const run = await importLogText({ recording, tasks }, text, { name: name ?? 'imported log', now: clock.now() }).catch(refused);
      events.emit('runs.onDidChange', run);
      return run;
    },
    'runs.importBegin': ({ name, totalBytes }) => {
      try {
        return imports.begin({ name: name ?? 'imported log', totalBytes });
      } catch (error) {
        throw importFailure(error);
      }
    },
    'runs.importAppend': ({ importId, text }) => imports.append(importId, text).catch(refused),
    'runs.importFinish': async ({ importId }) => {
      const run = await imports.finish(importId).catch(refused);
      events.emit('runs.onDidChange', run);
      return run;
    },
    'runs.importCancel': async ({ importId }) => {
      await imports.cancel(importId);
      return { ok: true as const };
    },
    'runs.reparse': async ({ ids, workloadId }) => {
      const workload = workloadId === undefined ? null : requireWorkload(store, workloadId);
      for (const id of ids) requireRun(store, id);
      for (const id of ids) refuseImported(store, id, 'its output stayed on the machine it ran on, so it cannot be parsed again here');
      const results = [];
      for (const id of ids) {
        if (runner.isActive(id)) throw new ApiFailure('conflict', `run ${id} is still running; parse it again once it has ended`);
        if (workload) store.runs.setWorkload(id, workload);
        try {
          // Anything still queued for the run (its channel's samples, its last output) is stored before the task reads it.
          await recording.flush();
          const result = await tasks.reparse(id, clock.now());
          const updated = requireRun(store, id);
          events.emit('runs.onDidChange', updated);
          events.emit('runs.onMetricsReplaced', { runId: id });
          results.push({ ...result, run: updated });
        } catch (error) {
          if (error instanceof ReparseRefused) throw new ApiFailure(store.runs.get(id) ? 'conflict' : 'not_found', error.message);
          throw error;
        }
      }
      return results;
    },
  };
}

/** An import's refusals the person can act on cross as such; the rest are the engine's. */
function importFailure(error: unknown): unknown {
  // What the person gave is not a log (empty, too large, not text): theirs to fix, not an internal fault.
  if (error instanceof ImportEmpty || error instanceof ImportTooLarge || error instanceof ImportNotText) return new ApiFailure('invalid_input', error.message);
  if (error instanceof ImportSessionError) return new ApiFailure(error.kind, error.message);
  return error;
}
