// The records the store keeps, declared here so the store imports no other engine folder: metrics and telemetry make them, the store writes and reads them.

/** Where a sample came from: parsed from the terminal, the structured channel, or computed by the engine. */
export type MetricSource = 'text' | 'channel' | 'derived';
/** What printed it: a training step, an evaluation, a progress bar's redraw, or end-of-run totals. */
export type MetricKind = 'train' | 'eval' | 'progress' | 'summary';

/** A metric sample as the engine stores it: one named value at a step and a time. */
export interface MetricSample {
  step: number | null;
  /** Milliseconds since the run started. */
  tMs: number;
  name: string;
  /** NaN and ±Infinity are kept: a NaN loss is a fact worth recording. */
  value: number;
  source: MetricSource;
  kind: MetricKind;
}

/** One host sample of a run: the machine's CPU and memory, and the run's own processes. */
export interface HostSample {
  tMs: number;
  cpuTotal: number;
  cpuPerCore: number[];
  iowait: number;
  memUsedMiB: number;
  swapUsedMiB: number;
  /** The run's processes together, percent of one core (200 = two cores busy). */
  procCpu: number;
  procRssMiB: number;
  threads: number;
  readBytesPerSec: number;
  writeBytesPerSec: number;
  /** The busiest single thread of the run, percent of one core: near 100 means something is core-bound. */
  busiestThreadCpu: number;
  /** CPU cores used by processes outside the run's tree and Tuning Bench's own process (absent in samples from before it was kept). */
  otherCpuCores?: number;
}

/**
 * What the store needs of a GPU sample: the values it keeps in columns for fast comparisons. The whole
 * sample, whatever else telemetry measured, is kept as JSON beside them and read back as it was written.
 */
export interface GpuSampleRecord {
  tMs: number;
  index: number | null;
  utilGpu: number | null;
  utilMem: number | null;
  memUsedMiB: number | null;
  memTotalMiB: number | null;
  powerW: number | null;
  tempC: number | null;
  smClockMHz: number | null;
  memClockMHz: number | null;
  throttleReasons: number | null;
}
