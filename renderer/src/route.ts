// What the main area shows, kept in the URL hash so a reload (or a shared link) reopens the same run.
import { useCallback, useSyncExternalStore } from 'react';

export type View = { kind: 'new' } | { kind: 'run'; id: number };

const RUN_HASH = /^#\/runs\/(\d+)$/u;

export function parseHash(hash: string): View {
  const match = RUN_HASH.exec(hash);
  const id = match ? Number(match[1]) : NaN;
  return Number.isSafeInteger(id) && id > 0 ? { kind: 'run', id } : { kind: 'new' };
}

export function viewHash(view: View): string {
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
