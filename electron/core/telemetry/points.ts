// Telemetry samples as the contract carries them to the UI: compact, decoded, JSON-safe.
import type { GpuTelemetryPoint, HostTelemetryPoint } from '../../shared/api.js';
import type { HostSample } from '../store/records.js';
import { throttlingReasons } from './nvidiaSmi/index.js';
import type { TimedGpuSample } from './nvidiaSmiSampler.js';

export function gpuPoint(sample: TimedGpuSample): GpuTelemetryPoint {
  return {
    tMs: sample.tMs,
    utilGpu: sample.utilGpu,
    utilMem: sample.utilMem,
    memUsedMiB: sample.memUsedMiB,
    memTotalMiB: sample.memTotalMiB,
    runVramMiB: sample.runVramMiB ?? null,
    powerW: sample.powerW,
    powerLimitW: sample.powerLimitW,
    tempC: sample.tempC,
    smClockMHz: sample.smClockMHz,
    memClockMHz: sample.memClockMHz,
    throttling: throttlingReasons(sample.throttleReasons),
  };
}

export function hostPoint(sample: HostSample): HostTelemetryPoint {
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    tMs: sample.tMs,
    cpuTotal: round(sample.cpuTotal),
    cpuPerCore: sample.cpuPerCore.map(round),
    iowait: round(sample.iowait),
    memUsedMiB: round(sample.memUsedMiB),
    swapUsedMiB: round(sample.swapUsedMiB),
    procCpu: round(sample.procCpu),
    procRssMiB: round(sample.procRssMiB),
    busiestThreadCpu: round(sample.busiestThreadCpu),
  };
}
