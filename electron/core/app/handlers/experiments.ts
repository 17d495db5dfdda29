// sweeps.* and git.*: planned experiments, and the revisions a before/after picks from.
import { ApiFailure } from '../../../shared/api.js';
import { GitRevisionError, listRevisions, resolveTyped, revisionDiff } from '../../experiments/gitRevisions.js';
import type { DomainHandlers, EngineServices } from '../services.js';

export function experimentHandlers({ sweeps, config }: EngineServices): DomainHandlers<'sweeps' | 'git'> {
  const env = config.childEnv;
  return {
    'sweeps.plan': (input) => sweeps.preview(input),
    'sweeps.start': (input) => sweeps.start(input),
    'sweeps.list': ({ limit }) => sweeps.list(limit),
    'sweeps.get': ({ id }) => sweeps.get(id),
    'sweeps.control': ({ id, action }) => sweeps.control(id, action),
    'sweeps.findBatch': (input) => sweeps.findBatch(input),
    'git.revisions': ({ cwd, limit }) => gitAnswer(() => listRevisions(cwd, limit, env)),
    'git.resolve': ({ cwd, revision }) => gitAnswer(() => resolveTyped(cwd, revision, env)),
    'git.diff': ({ cwd, from, to }) => gitAnswer(() => revisionDiff(cwd, from, to, env)),
  };
}

/** A git question whose answer is the person's to fix (not a repository, no such revision) crosses as invalid input. */
async function gitAnswer<T>(ask: () => Promise<T>): Promise<T> {
  try {
    return await ask();
  } catch (error) {
    if (error instanceof GitRevisionError) throw new ApiFailure('invalid_input', error.message);
    throw error;
  }
}
