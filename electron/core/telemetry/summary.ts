// A run's telemetry summarized for its record: GPU utilisation, memory, power, energy and throttling; host CPU and memory.
import type { HostSample } from '../store/records.js';
import type { TelemetryStore } from '../store/telemetryStore.js';
import { TIMING_THROTTLE_MASK, throttlingReasons } from './nvidiaSmi/index.js';
import type { TimedGpuSample } from './nvidiaSmiSampler.js';

/** A run's stored GPU samples as the sampler made them: the store keeps each one whole, as JSON. */
export function storedGpuSamples(telemetry: TelemetryStore, runId: number): TimedGpuSample[] {
  return telemetry.gpuSamples(runId) as TimedGpuSample[];
}

export interface HostSummary {
  cpuMean: number | null;
  rssPeakMiB: number | null;
  otherCpuCoresMean: number | null;
  cores: number | null;
}

/** The summary's host part: machine CPU mean, the run's peak resident memory, and the cores others used meanwhile. */
export function summarizeHost(samples: readonly HostSample[]): HostSummary | null {
  if (samples.length === 0) return null;
  const cpuMean = samples.reduce((sum, s) => sum + s.cpuTotal, 0) / samples.length;
  const others = samples.map((s) => s.otherCpuCores).filter((v): v is number => v !== undefined);
  const cores = samples[0]!.cpuPerCore.length;
  return {
    cpuMean: Math.round(cpuMean * 10) / 10,
    rssPeakMiB: Math.round(samples.reduce((max, s) => Math.max(max, s.procRssMiB), 0) * 10) / 10,
    otherCpuCoresMean: others.length === 0 ? null : Math.round((others.reduce((a, b) => a + b, 0) / others.length) * 100) / 100,
    cores: cores > 0 ? cores : null,
  };
}

export interface GpuSummary {
  utilMean: number | null;
  utilPeak: number | null;
  vramPeakMiB: number | null;
  powerMeanW: number | null;
  energyJ: number | null;
  /** `counter`: the driver's cumulative energy counter; `integrated`: power integrated over time. */
  energySource: 'counter' | 'integrated' | null;
  throttledSeconds: number | null;
  throttledByReason: Record<string, number>;
  smClockMeanMHz: number | null;
  tempPeakC: number | null;
  /** Peak GPU memory held by the run's own processes (the rest of vramPeakMiB is other processes' and the driver's). */
  runVramPeakMiB: number | null;
}

const mean = (values: number[]) => (values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : null);
// A loop, not Math.max(...values): a long run has more samples than a call may take arguments.
const peak = (values: number[]) => (values.length > 0 ? values.reduce((a, b) => (b > a ? b : a)) : null);
const round1 = (value: number | null) => (value === null ? null : Math.round(value * 10) / 10);

/** The summary's GPU part; null without samples (no GPU, or no nvidia-smi). */
export function summarizeGpu(samples: readonly TimedGpuSample[]): GpuSummary | null {
  if (samples.length === 0) return null;
  const values = (pick: (s: TimedGpuSample) => number | null) => samples.map(pick).filter((v): v is number => v !== null);
  let energyJ: number | null = null;
  let energySource: GpuSummary['energySource'] = null;
  const counters = values((s) => s.energyMJ);
  if (counters.length >= 2) {
    energyJ = (counters[counters.length - 1]! - counters[0]!) / 1000;
    energySource = 'counter';
  } else {
    // Trapezoids between samples that both have a power reading.
    let joules = 0;
    let any = false;
    for (let i = 1; i < samples.length; i++) {
      const a = samples[i - 1]!;
      const b = samples[i]!;
      if (a.powerW === null || b.powerW === null) continue;
      joules += ((a.powerW + b.powerW) / 2) * ((b.tMs - a.tMs) / 1000);
      any = true;
    }
    if (any) {
      energyJ = joules;
      energySource = 'integrated';
    }
  }
  let throttledSeconds = 0;
  const throttledByReason: Record<string, number> = {};
  for (let i = 1; i < samples.length; i++) {
    const mask = samples[i]!.throttleReasons;
    if (mask === null || (mask & TIMING_THROTTLE_MASK) === 0) continue;
    const seconds = (samples[i]!.tMs - samples[i - 1]!.tMs) / 1000;
    throttledSeconds += seconds;
    for (const reason of throttlingReasons(mask)) throttledByReason[reason] = (throttledByReason[reason] ?? 0) + seconds;
  }
  const hasMask = samples.some((s) => s.throttleReasons !== null);
  return {
    utilMean: round1(mean(values((s) => s.utilGpu))),
    utilPeak: peak(values((s) => s.utilGpu)),
    vramPeakMiB: peak(values((s) => s.memUsedMiB)),
    powerMeanW: round1(mean(values((s) => s.powerW))),
    energyJ: round1(energyJ),
    energySource,
    throttledSeconds: hasMask ? round1(throttledSeconds) : null,
    throttledByReason,
    smClockMeanMHz: round1(mean(values((s) => s.smClockMHz))),
    tempPeakC: peak(values((s) => s.tempC)),
    runVramPeakMiB: peak(values((s) => s.runVramMiB ?? null)),
  };
}
