// Plain-language readings of a run's telemetry: what a careful person would notice in the charts.
import type { HostSample } from '../store/records.js';
import type { GpuSummary } from './summary.js';

/** GPU busy less than this percent on average is a GPU waiting for something. */
const LOW_GPU_UTIL_PERCENT = 50;
/** A thread at this percent of a core or more is saturated. */
const SATURATED_THREAD_PERCENT = 90;
/** ...for at least this share of the samples. */
const SATURATED_SHARE = 0.5;

/** "GPU 40 % busy while a CPU core of the training is saturated" points at the data loader. */
export function inputBoundHint(gpu: GpuSummary | null, host: readonly HostSample[]): string | null {
  if (!gpu || gpu.utilMean === null || gpu.utilMean >= LOW_GPU_UTIL_PERCENT || host.length === 0) return null;
  const saturated = host.filter((s) => s.busiestThreadCpu >= SATURATED_THREAD_PERCENT).length / host.length;
  if (saturated < SATURATED_SHARE) return null;
  return (
    `likely input-bound: the GPU was ${Math.round(gpu.utilMean)} % busy on average while a CPU thread of the training ` +
    `was saturated ${Math.round(saturated * 100)} % of the time; try more data-loader workers or faster preprocessing`
  );
}
