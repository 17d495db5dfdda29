// The calls the compare view makes for a route, in one place: the view makes them, and the page's first script
// (boot.ts) sends them as soon as its socket opens, so the engine works while the app's code still loads.
// Imports no runtime code of the contract, so the first script stays small.
import type { MethodInput } from '../../../electron/shared/api.js';
import { parseCompareHash, type CompareViewRoute } from '../shared/comparisons/compareRoute.js';

/** compare.series takes at most 50 runs (electron/shared/api.ts); more lines than that are unreadable anyway. */
export const MAX_CHARTED_RUNS = 50;

/** The request the engine gets for a route: the contract's input, baseline left out for its default. */
export function comparisonRequest(route: CompareViewRoute): MethodInput<'compare.runs'> {
  return {
    runIds: route.runIds,
    sweepIds: route.sweepIds,
    groupBy: route.groupBy,
    gate: route.gate,
    ...(route.acrossMachines ? { acrossMachines: true } : {}),
    ...(route.baselineRunId !== null ? { baselineRunId: route.baselineRunId } : {}),
  };
}

/** Runs named in the URL are known before the comparison comes back: their series can be asked for at once. */
export function knownChartedRuns(route: CompareViewRoute): number[] | null {
  return route.sweepIds.length === 0 && route.runIds.length <= MAX_CHARTED_RUNS ? route.runIds : null;
}

/** The series request for a set of runs, order and repeats aside (the charts order them by row); null for none. */
export function seriesRequest(runIds: readonly number[] | null): MethodInput<'compare.series'> | null {
  if (runIds === null || runIds.length === 0) return null;
  return { runIds: [...new Set(runIds)].sort((a, b) => a - b) };
}

export interface EarlyCall {
  method: 'compare.runs' | 'compare.series';
  input: unknown;
}

/** What the page at `hash` will ask first, when it is a comparison: the same inputs the view sends. */
export function earlyCallsFor(hash: string): EarlyCall[] {
  const route = parseCompareHash(hash);
  if (route?.kind !== 'compare' || (route.runIds.length === 0 && route.sweepIds.length === 0)) return [];
  const calls: EarlyCall[] = [{ method: 'compare.runs', input: comparisonRequest(route) }];
  const series = seriesRequest(knownChartedRuns(route));
  if (series) calls.push({ method: 'compare.series', input: series });
  return calls;
}
