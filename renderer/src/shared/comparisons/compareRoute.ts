// The runs table (#/runs) and a comparison (#/compare?runs=1,2&sweeps=4&baseline=5&by=config&metric=accuracy&dir=higher&abs=0.05&rel=0.1&gate=off&machines=across) in the
// URL hash: a reload, or a link pasted into a note, reopens the same comparison with the same baseline and gate.

import { DEFAULT_GATE_ABSOLUTE, type QualityGate } from '../../../../electron/shared/api.js';

export type { QualityGate };

export type CompareRoute =
  | { kind: 'runs' }
  | {
      kind: 'compare';
      runIds: number[];
      sweepIds: number[];
      /** Null: the engine's default (the first sweep's first config, else the first run). */
      baselineRunId: number | null;
      groupBy: 'config' | 'run';
      gate: QualityGate;
      /** Speedups between rows measured on different machines too (runs pulled back from MLflow). */
      acrossMachines: boolean;
    };

export type CompareViewRoute = Extract<CompareRoute, { kind: 'compare' }>;

/** The engine's default gate (qualityGate in electron/shared/api.ts): final eval loss within +0.05 of the baseline. */
export const DEFAULT_GATE: QualityGate = { metric: 'auto', direction: 'lower', absolute: DEFAULT_GATE_ABSOLUTE, relative: null, enabled: true };

const RUNS_HASH = '#/runs';
const COMPARE_PREFIX = '#/compare';

function ids(text: string | null): number[] {
  if (!text) return [];
  const out: number[] = [];
  for (const piece of text.split(',')) {
    const id = Number(piece.trim());
    if (Number.isSafeInteger(id) && id > 0 && !out.includes(id)) out.push(id);
  }
  return out;
}

/** A tolerance from the hash: a number, `off` (none), or the default when absent or unreadable. */
function gateValue(text: string | null, fallback: number | null): number | null {
  if (text === null || text.trim() === '') return fallback;
  if (text === 'off') return null;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? value : fallback;
}

export function compareRoute(parts: Partial<Omit<CompareViewRoute, 'kind'>>): CompareViewRoute {
  return {
    kind: 'compare',
    runIds: parts.runIds ?? [],
    sweepIds: parts.sweepIds ?? [],
    baselineRunId: parts.baselineRunId ?? null,
    groupBy: parts.groupBy ?? 'config',
    gate: parts.gate ?? DEFAULT_GATE,
    acrossMachines: parts.acrossMachines ?? false,
  };
}

/** The route a hash names, or null when it names neither the runs table nor a comparison. */
export function parseCompareHash(hash: string): CompareRoute | null {
  if (hash === RUNS_HASH) return { kind: 'runs' };
  if (hash !== COMPARE_PREFIX && !hash.startsWith(`${COMPARE_PREFIX}?`)) return null;
  const params = new URLSearchParams(hash.slice(COMPARE_PREFIX.length + 1));
  const baseline = ids(params.get('baseline'))[0] ?? null;
  return compareRoute({
    runIds: ids(params.get('runs')),
    sweepIds: ids(params.get('sweeps')),
    baselineRunId: baseline,
    groupBy: params.get('by') === 'run' ? 'run' : 'config',
    gate: {
      metric: params.get('metric')?.trim() || DEFAULT_GATE.metric,
      direction: params.get('dir') === 'higher' ? 'higher' : 'lower',
      absolute: gateValue(params.get('abs'), DEFAULT_GATE.absolute),
      relative: gateValue(params.get('rel'), DEFAULT_GATE.relative),
      enabled: params.get('gate') !== 'off',
    },
    acrossMachines: params.get('machines') === 'across',
  });
}

export function compareRouteHash(route: CompareRoute): string {
  if (route.kind === 'runs') return RUNS_HASH;
  // Built by hand: URLSearchParams would write the commas as %2C, and the link is meant to be read.
  const parts: string[] = [];
  if (route.runIds.length > 0) parts.push(`runs=${route.runIds.join(',')}`);
  if (route.sweepIds.length > 0) parts.push(`sweeps=${route.sweepIds.join(',')}`);
  if (route.baselineRunId !== null) parts.push(`baseline=${route.baselineRunId}`);
  if (route.groupBy !== 'config') parts.push(`by=${route.groupBy}`);
  if (route.gate.metric !== DEFAULT_GATE.metric) parts.push(`metric=${encodeURIComponent(route.gate.metric)}`);
  if (route.gate.direction !== DEFAULT_GATE.direction) parts.push(`dir=${route.gate.direction}`);
  if (route.gate.absolute !== DEFAULT_GATE.absolute) parts.push(`abs=${route.gate.absolute ?? 'off'}`);
  if (route.gate.relative !== DEFAULT_GATE.relative) parts.push(`rel=${route.gate.relative ?? 'off'}`);
  if (!route.gate.enabled) parts.push('gate=off');
  if (route.acrossMachines) parts.push('machines=across');
  return parts.length === 0 ? COMPARE_PREFIX : `${COMPARE_PREFIX}?${parts.join('&')}`;
}

export function isCompareRoute(view: { kind: string }): view is CompareRoute {
  return view.kind === 'runs' || view.kind === 'compare';
}
