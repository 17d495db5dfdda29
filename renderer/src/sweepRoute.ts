// The sweep views' places in the URL hash: the list (#/sweeps), the builder (#/sweeps/new) and one sweep (#/sweeps/3).

export type SweepRoute = { kind: 'sweeps' } | { kind: 'new-sweep' } | { kind: 'sweep'; id: number };

const SWEEPS_HASH = '#/sweeps';
const NEW_SWEEP_HASH = '#/sweeps/new';
const SWEEP_HASH = /^#\/sweeps\/(\d+)$/u;

/** The sweep view a hash names, or null when it names none. */
export function parseSweepHash(hash: string): SweepRoute | null {
  if (hash === SWEEPS_HASH) return { kind: 'sweeps' };
  if (hash === NEW_SWEEP_HASH) return { kind: 'new-sweep' };
  const match = SWEEP_HASH.exec(hash);
  const id = match ? Number(match[1]) : NaN;
  return Number.isSafeInteger(id) && id > 0 ? { kind: 'sweep', id } : null;
}

export function sweepRouteHash(route: SweepRoute): string {
  if (route.kind === 'sweeps') return SWEEPS_HASH;
  return route.kind === 'new-sweep' ? NEW_SWEEP_HASH : `#/sweeps/${route.id}`;
}

export function isSweepRoute(view: { kind: string }): view is SweepRoute {
  return view.kind === 'sweeps' || view.kind === 'new-sweep' || view.kind === 'sweep';
}
