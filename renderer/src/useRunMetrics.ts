// A run's metrics as React state: loaded on open, followed live, reloaded after a reconnect and when the run ends.
import { useEffect, useRef, useState } from 'react';
import { useBridge, useConnectionState } from './bridge/context.js';
import { RunMetricsFeed, type MetricsSnapshot } from './metricsFeed.js';

export function useRunMetrics(runId: number, running: boolean): MetricsSnapshot {
  const bridge = useBridge();
  const connection = useConnectionState();
  const [snapshot, setSnapshot] = useState<MetricsSnapshot>({ status: 'loading' });
  const feedRef = useRef<RunMetricsFeed | null>(null);

  useEffect(() => {
    const feed = new RunMetricsFeed({ runId, api: bridge.api, on: bridge.on, onChange: setSnapshot });
    feedRef.current = feed;
    feed.reload();
    return () => {
      feed.dispose();
      if (feedRef.current === feed) feedRef.current = null;
    };
  }, [bridge, runId]);

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
