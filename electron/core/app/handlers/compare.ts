// compare.*: runs compared against a baseline, exported, and their series for the charts.
import type { DomainHandlers, EngineServices } from '../services.js';

export function compareHandlers({ compare }: EngineServices): DomainHandlers<'compare'> {
  return {
    'compare.runs': (input) => compare.compare(input),
    'compare.export': ({ format, ...input }) => compare.export(input, format),
    'compare.series': ({ runIds }) => compare.series(runIds),
  };
}
