// A run's live feed (metrics, telemetry) as React state: loaded on open, followed live, reloaded after a reconnect and when the run ends.
import { useEffect, useRef, useState } from 'react';
import type { Bridge } from '../../bridge/types.js';
import { useBridge, useConnectionState } from '../../bridge/context.js';

export interface RunFeed {
  reload(): void;
  dispose(): void;
}

export interface RunFeedContext<S> {
  runId: number;
  api: Bridge['api'];
  on: Bridge['on'];
  onChange: (snapshot: S) => void;
}

/** `createFeed` must be a stable (module-level) function: a new one per render would restart the feed. */
export function useRunFeed<S extends { status: string }>(runId: number, running: boolean, createFeed: (context: RunFeedContext<S>) => RunFeed, initial: S): S {
  const bridge = useBridge();
  const connection = useConnectionState();
  const [snapshot, setSnapshot] = useState<S>(initial);
  const feedRef = useRef<RunFeed | null>(null);

  useEffect(() => {
    const feed = createFeed({ runId, api: bridge.api, on: bridge.on, onChange: setSnapshot });
    feedRef.current = feed;
    feed.reload();
    return () => {
      feed.dispose();
      if (feedRef.current === feed) feedRef.current = null;
    };
  }, [bridge, runId, createFeed]);

  // Live events sent while the socket was down are gone; the store has them.
  const wasConnected = useRef(connection === 'open');
  useEffect(() => {
    if (connection === 'open' && !wasConnected.current) feedRef.current?.reload();
    wasConnected.current = connection === 'open';
  }, [connection]);

  const wasRunning = useRef(running);
  useEffect(() => {
    if (wasRunning.current && !running) feedRef.current?.reload();
    wasRunning.current = running;
  }, [running]);

  return snapshot;
}
