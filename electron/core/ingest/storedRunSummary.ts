// An ended run's training summary, chart series and (for a profiled run) its steps' times, from what it stored: made
// on the task thread for a long run, and in place for a short one, whose summary is quicker than a thread's start.
import { summarizeStored } from '../metrics/summaryInput.js';
import type { SummaryOptions } from '../metrics/summary.js';
import { KIND_CODE } from '../store/sampleColumns.js';
import type { Store } from '../store/store.js';
import { storedGpuSamples } from '../telemetry/summary.js';
import type { StoredRunSummary } from './ingestTaskProtocol.js';
import { buildSeries } from './series.js';

/**
 * At most this many stored samples are summarised on the engine's own thread: 20,000 took 66 ms the first time in a
 * process and 21-47 ms after (2,000: 36 ms, then 6-14), against about 110 ms for the task thread to start (its
 * modules, the API's schemas, its own connection) on the way to the CLI's exit; a short tune run holds about a
 * hundred. Past it, a longer summary would hold up other runs' output on this thread, so it goes to the task thread.
 */
export const SUMMARY_IN_PLACE_SAMPLES = 20_000;

export function storedRunSummary(store: Store, runId: number, options: SummaryOptions, stepMarks: boolean): StoredRunSummary {
  // A profiled run's steps are matched to its trace one by one: read whole.
  const { summary, columns: samples } = summarizeStored(store.metrics, runId, options, { exact: stepMarks });
  const series = buildSeries(samples, storedGpuSamples(store.telemetry, runId));
  const marks = stepMarks
    ? Array.from(
        samples.where((i) => samples.kind[i] === KIND_CODE.train && !Number.isNaN(samples.step[i]!)),
        (i) => ({ step: samples.step[i]!, tMs: samples.tMs[i]! }),
      )
    : null;
  return { summary, series, stepMarks: marks };
}
