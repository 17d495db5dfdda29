// tune.*: the knobs' ladder, run to its end or kept step by step.
import { requireRun } from '../lookups.js';
import type { DomainHandlers, EngineServices } from '../services.js';
import { tuneToEnd } from '../tunes.js';

export function tuneHandlers({ tunes, store }: EngineServices): DomainHandlers<'tune'> {
  return {
    'tune.run': (input) => tuneToEnd(tunes, input),
    'tune.start': ({ request, sourceRunId }) => {
      if (sourceRunId !== null) requireRun(store, sourceRunId);
      return tunes.start(request, sourceRunId);
    },
    'tune.get': ({ id }) => tunes.get(id),
    'tune.list': ({ sourceRunId, limit }) => tunes.list(limit, sourceRunId),
    'tune.cancel': ({ id }) => tunes.cancel(id),
    'tune.resume': ({ id }) => tunes.resume(id),
    'tune.export': ({ id, format }) => tunes.export(id, format),
  };
}
