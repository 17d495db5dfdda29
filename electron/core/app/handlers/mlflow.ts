// mlflow.*: where runs are published, what was published, and runs pulled back.
import type { DomainHandlers, EngineServices } from '../services.js';

export function mlflowHandlers({ publisher }: EngineServices): DomainHandlers<'mlflow'> {
  return {
    'mlflow.settings': () => publisher.settings(),
    'mlflow.configure': (input) => publisher.configure(input),
    'mlflow.publish': (input) => publisher.publish(input),
    'mlflow.publications': ({ runId, sweepId, comparison }) => {
      if (runId !== undefined) return publisher.publications({ kind: 'run', runId });
      if (sweepId !== undefined) return publisher.publications({ kind: 'sweep', sweepId });
      if (comparison !== undefined) return publisher.publications({ kind: 'comparison', key: publisher.comparisonKey(comparison), request: comparison });
      return publisher.publications(null);
    },
    'mlflow.import': (input) => publisher.importRuns(input),
  };
}
