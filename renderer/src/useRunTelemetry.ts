// A run's telemetry as React state: loaded on open, followed live, reloaded after a reconnect and when the run ends.
import { useEffect, useRef, useState } from 'react';
import { useBridge, useConnectionState } from './bridge/context.js';
import { RunTelemetryFeed, type TelemetrySnapshot } from './telemetryFeed.js';

export function useRunTelemetry(runId: number, running: boolean): TelemetrySnapshot {
  const bridge = useBridge();
  const connection = useConnectionState();
  const [snapshot, setSnapshot] = useState<TelemetrySnapshot>({ status: 'loading' });
  const feedRef = useRef<RunTelemetryFeed | null>(null);

  useEffect(() => {
    const feed = new RunTelemetryFeed({ runId, api: bridge.api, on: bridge.on, onChange: setSnapshot });
    feedRef.current = feed;
    feed.reload();
    return () => {
      feed.dispose();
      if (feedRef.current === feed) feedRef.current = null;
    };
  }, [bridge, runId]);

  // Samples sent while the socket was down are gone; the store has them.
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
