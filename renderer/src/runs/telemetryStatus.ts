// Telemetry news of each run (no GPU, nvidia-smi restarted, the GPU lost), kept for the page's life.
// The engine sends them as a run starts, before its view opens, and does not store them: so one log per bridge
// listens from the moment the app mounts, and each run view reads its run's part.
import { useCallback, useSyncExternalStore } from 'react';
import type { EventPayload } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import type { Bridge } from '../bridge/types.js';

export interface TelemetryStatusEntry {
  /** Increasing per page: React's key, and the order. */
  id: number;
  level: EventPayload<'runs.onTelemetryStatus'>['level'];
  message: string;
  /** When it came (ms since the epoch). */
  at: number;
}

/** A restarting nvidia-smi can say so every few seconds for hours; the oldest go. */
const MAX_ENTRIES_PER_RUN = 50;
const NONE: readonly TelemetryStatusEntry[] = [];

export class TelemetryStatusLog {
  /** Newest first. */
  private readonly byRun = new Map<number, readonly TelemetryStatusEntry[]>();
  private readonly listeners = new Set<() => void>();
  private nextId = 1;

  constructor(on: Bridge['on']) {
    on('runs.onTelemetryStatus', ({ runId, level, message }) => {
      const entry: TelemetryStatusEntry = { id: this.nextId++, level, message, at: Date.now() };
      this.byRun.set(runId, [entry, ...(this.byRun.get(runId) ?? NONE)].slice(0, MAX_ENTRIES_PER_RUN));
      for (const listener of [...this.listeners]) listener();
    });
  }

  /** The same array until the run's list changes, as useSyncExternalStore needs. */
  entries(runId: number): readonly TelemetryStatusEntry[] {
    return this.byRun.get(runId) ?? NONE;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}

const logs = new WeakMap<Bridge, TelemetryStatusLog>();

/** The bridge's one log, made (and subscribed) on first use; the App asks for it as it mounts. */
export function telemetryStatusLog(bridge: Bridge): TelemetryStatusLog {
  let log = logs.get(bridge);
  if (!log) {
    log = new TelemetryStatusLog(bridge.on);
    logs.set(bridge, log);
  }
  return log;
}

export function useTelemetryStatus(runId: number): readonly TelemetryStatusEntry[] {
  const log = telemetryStatusLog(useBridge());
  const subscribe = useCallback((onChange: () => void) => log.subscribe(onChange), [log]);
  const getSnapshot = useCallback(() => log.entries(runId), [log, runId]);
  return useSyncExternalStore(subscribe, getSnapshot);
}
