// A list the UI keeps live, one pattern for runs, sweeps and workloads: listed on every (re)connect, kept current by
// the engine's change events. A list answers the state at the moment it was read, so an event that arrives while it
// is on its way is the newer state and stays; nothing an event brought is lost to a reload.
import { useCallback, useSyncExternalStore } from 'react';
import type { ConnectionState } from '../bridge/types.js';
import { errorMessage } from './format.js';

export interface LiveListSnapshot<T> {
  /** In the list's order (newest first unless told otherwise). */
  items: readonly T[];
  /** A first list has come (or failed): until then an empty list means nothing. */
  loaded: boolean;
  error: string | null;
}

/** The part of the bridge a list follows: it lists again on every (re)connect. */
export interface ConnectionSource {
  connectionState(): ConnectionState;
  onConnectionState(listener: (state: ConnectionState) => void): () => void;
}

export class LiveList<T extends { id: number }> {
  private readonly byId = new Map<number, T>();
  private snapshot: LiveListSnapshot<T> = { items: [], loaded: false, error: null };
  private readonly listeners = new Set<() => void>();
  /** Items an event brought while a list was on its way. */
  private touchedDuringLoad: Set<number> | null = null;
  /** Moved by replaceAll: a list asked for before a whole new list came is older than it, and is dropped. */
  private generation = 0;

  constructor(
    private readonly list: () => Promise<readonly T[]>,
    private readonly order: (a: T, b: T) => number = (a, b) => b.id - a.id,
  ) {}

  /** Lists now if the connection is open, and again each time it opens. */
  follow(connection: ConnectionSource): void {
    connection.onConnectionState((state) => {
      if (state === 'open') void this.reload();
    });
    if (connection.connectionState() === 'open') void this.reload();
  }

  get(): LiveListSnapshot<T> {
    return this.snapshot;
  }

  find(id: number): T | null {
    return this.byId.get(id) ?? null;
  }

  async reload(): Promise<void> {
    const touched = new Set<number>();
    this.touchedDuringLoad = touched;
    const generation = this.generation;
    try {
      const items = await this.list();
      if (generation === this.generation) for (const item of items) if (!touched.has(item.id)) this.byId.set(item.id, item);
      this.publish({ loaded: true, error: null });
    } catch (error) {
      this.publish({ loaded: true, error: errorMessage(error) });
    } finally {
      if (this.touchedDuringLoad === touched) this.touchedDuringLoad = null;
    }
  }

  /** An item from an event or a call's answer: the newest state of it. */
  put(item: T): void {
    this.touchedDuringLoad?.add(item.id);
    this.byId.set(item.id, item);
    this.publish({});
  }

  /** An item a call just answered with: an event may already have brought a newer state of it, which stays. */
  adopt(item: T): void {
    if (!this.byId.has(item.id)) this.put(item);
  }

  /** A whole list an event brought (workloads change as one list): it replaces what is held, and a list on its way is older. */
  replaceAll(items: readonly T[]): void {
    this.generation += 1;
    this.byId.clear();
    for (const item of items) this.byId.set(item.id, item);
    this.publish({ loaded: true, error: null });
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private publish(change: Partial<Omit<LiveListSnapshot<T>, 'items'>>): void {
    const items = [...this.byId.values()].sort(this.order);
    this.snapshot = { ...this.snapshot, ...change, items };
    for (const listener of [...this.listeners]) listener();
  }
}

/** The list's snapshot in a component, re-rendered as it changes. */
export function useLiveList<T extends { id: number }>(list: LiveList<T>): LiveListSnapshot<T> {
  const subscribe = useCallback((onChange: () => void) => list.subscribe(onChange), [list]);
  const getSnapshot = useCallback(() => list.get(), [list]);
  return useSyncExternalStore(subscribe, getSnapshot);
}
