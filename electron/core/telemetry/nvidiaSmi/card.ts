// The GPU info card: what `nvidia-smi -q -x` says about the driver and each GPU, in one
// shape whatever the driver generation. Every value may be null: old drivers and GeForce boards
// leave much of it N/A.

export interface ClockSet {
  graphicsMHz: number | null;
  smMHz: number | null;
  memMHz: number | null;
  videoMHz: number | null;
}

export interface GpuProcess {
  pid: number;
  /** "C" compute, "G" graphics, "C+G" both (as printed). */
  type: string | null;
  name: string | null;
  /** Null on Windows/WDDM, where nvidia-smi cannot see per-process memory (rtx-2080-win capture). */
  usedMemoryMiB: number | null;
  gpuInstanceId: number | null;
  computeInstanceId: number | null;
}

export interface SupportedMemClock {
  memMHz: number;
  /** Graphics clocks allowed with that memory clock, as listed (highest first). */
  graphicsMHz: number[];
}

export interface GpuInfo {
  /** Position in nvidia-smi's list, which is also its `-i` index. */
  index: number;
  busId: string | null;
  name: string | null;
  brand: string | null;
  architecture: string | null;
  uuid: string | null;
  serial: string | null;
  vbiosVersion: string | null;
  persistenceMode: boolean | null;
  migMode: boolean | null;
  migDeviceCount: number;
  eccMode: boolean | null;
  eccModePending: boolean | null;
  computeMode: string | null;
  pstate: number | null;
  fanPercent: number | null;
  pcie: {
    genMax: number | null;
    genCurrent: number | null;
    genDeviceMax: number | null;
    genHostMax: number | null;
    widthMax: number | null;
    widthCurrent: number | null;
  };
  memory: { totalMiB: number | null; reservedMiB: number | null; usedMiB: number | null; freeMiB: number | null };
  utilization: { gpuPercent: number | null; memoryPercent: number | null };
  temperature: {
    gpuC: number | null;
    memoryC: number | null;
    /** The fan/boost controller's target. */
    targetC: number | null;
    slowdownC: number | null;
    shutdownC: number | null;
    maxOperatingC: number | null;
  };
  power: {
    /** power.draw: the 1 s average on Ampere and newer, the instant reading before. */
    drawW: number | null;
    averageW: number | null;
    instantW: number | null;
    /** The enforced ceiling (`enforced_power_limit`, from R535 `current_power_limit`). */
    limitW: number | null;
    /** What was asked for (`power_limit`, from R535 `requested_power_limit`): what `-pl` sets. */
    requestedLimitW: number | null;
    defaultLimitW: number | null;
    minLimitW: number | null;
    maxLimitW: number | null;
  };
  clocks: {
    current: ClockSet;
    max: ClockSet;
    applications: { graphicsMHz: number | null; memMHz: number | null };
    defaultApplications: { graphicsMHz: number | null; memMHz: number | null };
    maxCustomerBoostMHz: number | null;
  };
  /** Clocks event (throttle) reasons as an NVML bitmask (see throttle.ts), built from the Active flags. */
  throttleReasons: number | null;
  /** Null when not reported (no `supported_clocks` element, or `N/A`). */
  supportedClocks: SupportedMemClock[] | null;
  processes: GpuProcess[];
}

export interface GpuInfoCard {
  timestamp: string | null;
  driverVersion: string | null;
  cudaVersion: string | null;
  attachedGpus: number | null;
  gpus: GpuInfo[];
}

export type GpuInfoCardResult = { ok: true; card: GpuInfoCard } | { ok: false; error: string };

/** Every graphics clock the GPU lists with any memory clock, highest first, each once. */
export function supportedGraphicsClocks(gpu: GpuInfo): number[] {
  const all = new Set<number>();
  for (const mem of gpu.supportedClocks ?? []) for (const mhz of mem.graphicsMHz) all.add(mhz);
  return [...all].sort((a, b) => b - a);
}
