// The GPU control status (`gpu.status`), one copy per bridge: the GPU view, the New run form and the app-wide
// banner of abandoned settings all read it, so a refresh by any of them (after a change, a restore, a run's start)
// reaches the others too.
import { useCallback, useSyncExternalStore } from 'react';
import type { ApiClient, MethodOutput } from '../../../../electron/shared/api.js';
import { useBridge } from '../../bridge/context.js';
import type { Bridge } from '../../bridge/types.js';
import { errorMessage } from '../format.js';

export type GpuStatus = MethodOutput<'gpu.status'>;

export interface GpuStatusSnapshot {
  /** The latest answer; kept through a failed refresh, so the view does not blank out. */
  status: GpuStatus | null;
  /** Why the latest refresh failed, or null. */
  error: string | null;
  loading: boolean;
}

export class GpuStatusStore {
  private snapshot: GpuStatusSnapshot = { status: null, error: null, loading: false };
  private readonly listeners = new Set<() => void>();
  /** Only the newest request may set the answer: an older one may have read the GPU before a change. */
  private latest = 0;

  constructor(private readonly api: ApiClient) {}

  get(): GpuStatusSnapshot {
    return this.snapshot;
  }

  /** Asks the engine again; resolves with the answer, or null when it failed (the snapshot says why). */
  async refresh(): Promise<GpuStatus | null> {
    const request = ++this.latest;
    this.set({ ...this.snapshot, loading: true });
    try {
      const status = await this.api['gpu.status']({});
      if (request === this.latest) this.set({ status, error: null, loading: false });
      return status;
    } catch (failure) {
      if (request === this.latest) this.set({ ...this.snapshot, error: errorMessage(failure), loading: false });
      return null;
    }
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private set(next: GpuStatusSnapshot): void {
    this.snapshot = next;
    for (const listener of [...this.listeners]) listener();
  }
}

const stores = new WeakMap<Bridge, GpuStatusStore>();

export function gpuStatusStore(bridge: Bridge): GpuStatusStore {
  let store = stores.get(bridge);
  if (!store) {
    store = new GpuStatusStore(bridge.api);
    stores.set(bridge, store);
  }
  return store;
}

/** The shared snapshot, and the function that refreshes it for everyone. */
export function useGpuStatus(): GpuStatusSnapshot & { refresh: () => Promise<GpuStatus | null> } {
  const store = gpuStatusStore(useBridge());
  const subscribe = useCallback((onChange: () => void) => store.subscribe(onChange), [store]);
  const getSnapshot = useCallback(() => store.get(), [store]);
  const snapshot = useSyncExternalStore(subscribe, getSnapshot);
  const refresh = useCallback(() => store.refresh(), [store]);
  return { ...snapshot, refresh };
}
