// A run's telemetry as React state (see useRunFeed for when it loads and reloads).
import { RunTelemetryFeed, type TelemetrySnapshot } from './telemetryFeed.js';
import { useRunFeed, type RunFeedContext } from '../shared/runFeed/useRunFeed.js';

const LOADING: TelemetrySnapshot = { status: 'loading' };
const createTelemetryFeed = (context: RunFeedContext<TelemetrySnapshot>) => new RunTelemetryFeed(context);

export function useRunTelemetry(runId: number, running: boolean): TelemetrySnapshot {
  return useRunFeed(runId, running, createTelemetryFeed, LOADING);
}
