// What the main area shows, kept in the URL hash so a reload (or a shared link) reopens the same run.
import { useCallback, useSyncExternalStore } from 'react';
import { compareRouteHash, isCompareRoute, parseCompareHash, type CompareRoute } from './shared/comparisons/compareRoute.js';
import { isSweepRoute, parseSweepHash, sweepRouteHash, type SweepRoute } from './shared/sweepRoute.js';

/**
 * `home`: the address with no view named; the first-run view while there are no runs, else New run. `new` with
 * `from`: New run filled in from that run (Edit and run again).
 */
export type View = { kind: 'home' } | { kind: 'new'; from?: number } | { kind: 'gpu' } | { kind: 'run'; id: number } | SweepRoute | CompareRoute;

const RUN_HASH = /^#\/runs\/(\d+)$/u;
const NEW_FROM_HASH = /^#\/new\?from=(\d+)$/u;
const GPU_HASH = '#/gpu';
const HOME_HASH = '#/';

export function parseHash(hash: string): View {
  // The browser reads a bare `#` as ''.
  if (hash === '' || hash === HOME_HASH) return { kind: 'home' };
  if (hash === GPU_HASH) return { kind: 'gpu' };
  const sweep = parseSweepHash(hash);
  if (sweep) return sweep;
  const compare = parseCompareHash(hash);
  if (compare) return compare;
  const from = NEW_FROM_HASH.exec(hash);
  if (from && Number(from[1]) > 0) return { kind: 'new', from: Number(from[1]) };
  const match = RUN_HASH.exec(hash);
  const id = match ? Number(match[1]) : NaN;
  return Number.isSafeInteger(id) && id > 0 ? { kind: 'run', id } : { kind: 'new' };
}

export function viewHash(view: View): string {
  if (view.kind === 'home') return HOME_HASH;
  if (view.kind === 'gpu') return GPU_HASH;
  if (isSweepRoute(view)) return sweepRouteHash(view);
  if (isCompareRoute(view)) return compareRouteHash(view);
  if (view.kind === 'run') return `#/runs/${view.id}`;
  return view.from === undefined ? '#/new' : `#/new?from=${view.from}`;
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

const getHash = () => window.location.hash;

export function useView(): [View, (view: View) => void] {
  const hash = useSyncExternalStore(subscribe, getHash);
  const navigate = useCallback((view: View) => {
    window.location.hash = viewHash(view);
  }, []);
  return [parseHash(hash), navigate];
}
