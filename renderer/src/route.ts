// What the main area shows, kept in the URL hash so a reload (or a shared link) reopens the same run.
import { useCallback, useSyncExternalStore } from 'react';
import { compareRouteHash, isCompareRoute, parseCompareHash, type CompareRoute } from './compare/compareRoute.js';
import { isSweepRoute, parseSweepHash, sweepRouteHash, type SweepRoute } from './sweeps/sweepRoute.js';

/** `home`: the address with no view named; the first-run view while there are no runs, else New run. */
export type View = { kind: 'home' } | { kind: 'new' } | { kind: 'gpu' } | { kind: 'run'; id: number } | SweepRoute | CompareRoute;

const RUN_HASH = /^#\/runs\/(\d+)$/u;
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
  const match = RUN_HASH.exec(hash);
  const id = match ? Number(match[1]) : NaN;
  return Number.isSafeInteger(id) && id > 0 ? { kind: 'run', id } : { kind: 'new' };
}

export function viewHash(view: View): string {
  if (view.kind === 'home') return HOME_HASH;
  if (view.kind === 'gpu') return GPU_HASH;
  if (isSweepRoute(view)) return sweepRouteHash(view);
  if (isCompareRoute(view)) return compareRouteHash(view);
  return view.kind === 'run' ? `#/runs/${view.id}` : '#/new';
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
