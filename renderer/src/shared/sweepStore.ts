// The sweeps the UI knows, one copy per bridge: listed on every (re)connect, kept live by sweeps.onDidChange, and
// the place that notices a sweep ending (for the toast and the title), wherever the person is in the app.
import { useEffect, useMemo, useState } from 'react';
import type { Sweep } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import type { Bridge } from '../bridge/types.js';
import { errorMessage } from './format.js';
import { LiveList, useLiveList } from './liveList.js';
import { ACTIVE_STATUSES, ENDED_STATUSES } from './sweepStatus.js';

export interface SweepsSnapshot {
  /** Newest first. */
  sweeps: readonly Sweep[];
  loaded: boolean;
  error: string | null;
}

/** The sweeps as a live list (shared/liveList.ts), and the place that hears an active sweep end. */
export class SweepStore extends LiveList<Sweep> {
  private readonly endListeners = new Set<(sweep: Sweep) => void>();

  constructor(bridge: Bridge) {
    super(() => bridge.api['sweeps.list']({}));
    bridge.on('sweeps.onDidChange', (sweep) => this.put(sweep));
    this.follow(bridge);
  }

  /** A sweep from a call (start, control, get) or an event; an active one turning ended is news. */
  override put(sweep: Sweep): void {
    const before = this.find(sweep.id);
    super.put(sweep);
    if (before && ACTIVE_STATUSES.has(before.status) && ENDED_STATUSES.has(sweep.status)) {
      for (const listener of [...this.endListeners]) listener(sweep);
    }
  }

  onDidEnd(listener: (sweep: Sweep) => void): () => void {
    this.endListeners.add(listener);
    return () => {
      this.endListeners.delete(listener);
    };
  }
}

const stores = new WeakMap<Bridge, SweepStore>();

export function sweepStore(bridge: Bridge): SweepStore {
  let store = stores.get(bridge);
  if (!store) {
    store = new SweepStore(bridge);
    stores.set(bridge, store);
  }
  return store;
}

export function useSweepStore(): SweepStore {
  return sweepStore(useBridge());
}

export function useSweeps(): SweepsSnapshot {
  const { items, loaded, error } = useLiveList(useSweepStore());
  return useMemo(() => ({ sweeps: items, loaded, error }), [items, loaded, error]);
}

/** One sweep, live; one older than the list's window is fetched on its own. */
export function useSweep(id: number): { sweep: Sweep | null; error: string | null } {
  const store = useSweepStore();
  const { api } = useBridge();
  const { sweeps, loaded } = useSweeps();
  const sweep = sweeps.find((s) => s.id === id) ?? null;
  const [failure, setFailure] = useState<{ id: number; error: string } | null>(null);
  const missing = loaded && sweep === null;
  useEffect(() => {
    if (!missing) return;
    let cancelled = false;
    api['sweeps.get']({ id }).then(
      (found) => {
        if (!cancelled) store.put(found);
      },
      (error: unknown) => {
        if (!cancelled) setFailure({ id, error: errorMessage(error) });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [api, store, id, missing]);
  return { sweep, error: failure?.id === id && sweep === null ? failure.error : null };
}
