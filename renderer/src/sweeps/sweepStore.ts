// The sweeps the UI knows, one copy per bridge: listed on every (re)connect, kept live by sweeps.onDidChange, and
// the place that notices a sweep ending (for the toast and the title), wherever the person is in the app.
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import type { Sweep } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import type { Bridge } from '../bridge/types.js';
import { errorMessage } from '../shared/format.js';
import { ACTIVE_STATUSES, ENDED_STATUSES } from './sweepText.js';

export interface SweepsSnapshot {
  /** Newest first. */
  sweeps: readonly Sweep[];
  loaded: boolean;
  error: string | null;
}

export class SweepStore {
  private readonly byId = new Map<number, Sweep>();
  private snapshot: SweepsSnapshot = { sweeps: [], loaded: false, error: null };
  private readonly listeners = new Set<() => void>();
  private readonly endListeners = new Set<(sweep: Sweep) => void>();
  /** Sweeps an event brought while a list was on its way: the event's state is the newer one. */
  private touchedDuringLoad: Set<number> | null = null;

  constructor(private readonly bridge: Bridge) {
    bridge.on('sweeps.onDidChange', (sweep) => {
      this.touchedDuringLoad?.add(sweep.id);
      this.put(sweep);
    });
    // Whatever changed while the socket was down arrives only by listing again.
    bridge.onConnectionState((state) => {
      if (state === 'open') void this.reload();
    });
    if (bridge.connectionState() === 'open') void this.reload();
  }

  get(): SweepsSnapshot {
    return this.snapshot;
  }

  find(id: number): Sweep | null {
    return this.byId.get(id) ?? null;
  }

  async reload(): Promise<void> {
    const touched = new Set<number>();
    this.touchedDuringLoad = touched;
    try {
      const list = await this.bridge.api['sweeps.list']({});
      for (const sweep of list) if (!touched.has(sweep.id)) this.byId.set(sweep.id, sweep);
      this.publish({ loaded: true, error: null });
    } catch (error) {
      this.publish({ loaded: true, error: errorMessage(error) });
    } finally {
      if (this.touchedDuringLoad === touched) this.touchedDuringLoad = null;
    }
  }

  /** A sweep from a call (start, control, get) or an event; an active one turning ended is news. */
  put(sweep: Sweep): void {
    const before = this.byId.get(sweep.id);
    this.byId.set(sweep.id, sweep);
    this.publish({});
    if (before && ACTIVE_STATUSES.has(before.status) && ENDED_STATUSES.has(sweep.status)) {
      for (const listener of [...this.endListeners]) listener(sweep);
    }
  }

  /** A sweep a call just created: an event may already have brought a newer state of it, which stays. */
  adopt(sweep: Sweep): void {
    if (!this.byId.has(sweep.id)) this.put(sweep);
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  onDidEnd(listener: (sweep: Sweep) => void): () => void {
    this.endListeners.add(listener);
    return () => {
      this.endListeners.delete(listener);
    };
  }

  private publish(change: Partial<Omit<SweepsSnapshot, 'sweeps'>>): void {
    const sweeps = [...this.byId.values()].sort((a, b) => b.id - a.id);
    this.snapshot = { ...this.snapshot, ...change, sweeps };
    for (const listener of [...this.listeners]) listener();
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
  const store = useSweepStore();
  const subscribe = useCallback((onChange: () => void) => store.subscribe(onChange), [store]);
  const getSnapshot = useCallback(() => store.get(), [store]);
  return useSyncExternalStore(subscribe, getSnapshot);
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
