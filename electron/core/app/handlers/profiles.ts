// profiles.*: a run's step profile, compared with a baseline's, and its Chrome trace.
import fs from 'node:fs';
import { ApiFailure } from '../../../shared/api.js';
import { compareProfiles } from '../../profile/compareProfiles.js';
import { requireProfile, requireRun } from '../lookups.js';
import type { DomainHandlers, EngineServices } from '../services.js';

/** A trace larger than this is opened from its file instead: a string this size is what a page handles without stalling. */
const MAX_TRACE_DOWNLOAD_BYTES = 64 * 2 ** 20;

export function profileHandlers({ store }: EngineServices): DomainHandlers<'profiles'> {
  return {
    'profiles.get': ({ runId }) => {
      requireRun(store, runId);
      return store.profiles.forRun(runId);
    },
    'profiles.compare': ({ runId, baselineRunId }) => compareProfiles(requireProfile(store, runId), requireProfile(store, baselineRunId)),
    'profiles.trace': ({ runId }) => {
      const profile = requireProfile(store, runId);
      if (!profile.tracePath || !fs.existsSync(profile.tracePath)) {
        throw new ApiFailure('not_found', `the profile of run ${runId} has no trace file${profile.tracePath ? ` (${profile.tracePath} is gone)` : ''}`);
      }
      const bytes = fs.statSync(profile.tracePath).size;
      if (bytes > MAX_TRACE_DOWNLOAD_BYTES) {
        throw new ApiFailure(
          'unavailable',
          `the trace is ${Math.round(bytes / 2 ** 20)} MiB, too large to pass through the app; open ${profile.tracePath} in https://ui.perfetto.dev`,
        );
      }
      return { content: fs.readFileSync(profile.tracePath, 'utf8'), filename: `run-${profile.runId}-trace.json`, mimeType: 'application/json' };
    },
  };
}
