// The sweep views' places in the URL hash: the list (#/sweeps), the builder (#/sweeps/new), a before/after of two
// commits (#/sweeps/before-after) and one sweep (#/sweeps/3).

export type SweepRoute = { kind: 'sweeps' } | { kind: 'new-sweep' } | { kind: 'before-after' } | { kind: 'sweep'; id: number };

const SWEEPS_HASH = '#/sweeps';
const NEW_SWEEP_HASH = '#/sweeps/new';
const BEFORE_AFTER_HASH = '#/sweeps/before-after';
const SWEEP_HASH = /^#\/sweeps\/(\d+)$/u;

/** The sweep view a hash names, or null when it names none. */
export function parseSweepHash(hash: string): SweepRoute | null {
  if (hash === SWEEPS_HASH) return { kind: 'sweeps' };
  if (hash === NEW_SWEEP_HASH) return { kind: 'new-sweep' };
  if (hash === BEFORE_AFTER_HASH) return { kind: 'before-after' };
  const match = SWEEP_HASH.exec(hash);
  const id = match ? Number(match[1]) : NaN;
  return Number.isSafeInteger(id) && id > 0 ? { kind: 'sweep', id } : null;
}

export function sweepRouteHash(route: SweepRoute): string {
  if (route.kind === 'sweeps') return SWEEPS_HASH;
  if (route.kind === 'before-after') return BEFORE_AFTER_HASH;
  return route.kind === 'new-sweep' ? NEW_SWEEP_HASH : `#/sweeps/${route.id}`;
}

export function isSweepRoute(view: { kind: string }): view is SweepRoute {
  return view.kind === 'sweeps' || view.kind === 'new-sweep' || view.kind === 'before-after' || view.kind === 'sweep';
}
