// A run's GPU and host telemetry sorted into chartable series (x = seconds since the run started), and throttle bands.
import type { GpuTelemetryPoint, HostTelemetryPoint } from '../../../electron/shared/api.js';
import { placeByStep, type XY } from '../shared/runRecord/metricSeries.js';

export interface ThrottleBand {
  from: number;
  to: number;
  /** The reasons active, joined: `sw_power_cap, sw_thermal_slowdown`. */
  label: string;
}

/** What the telemetry charts draw at one moment; the arrays are the set's own and keep growing, so a chart copies them. */
export interface TelemetryView {
  gpuSamples: number;
  hostSamples: number;
  gpu: {
    util: readonly XY[];
    memUsed: readonly XY[];
    memTotal: readonly XY[];
    power: readonly XY[];
    powerLimit: readonly XY[];
    temp: readonly XY[];
    smClock: readonly XY[];
  };
  host: {
    cpuTotal: readonly XY[];
    procCpu: readonly XY[];
    busiestThread: readonly XY[];
    rss: readonly XY[];
  };
  throttle: readonly ThrottleBand[];
  /** The latest sample's time, GPU or host: every chart's x axis runs from 0 to here. */
  lastSeconds: number;
}

type GpuKey = keyof TelemetryView['gpu'];
type HostKey = keyof TelemetryView['host'];

const GPU_FIELDS: Record<GpuKey, (p: GpuTelemetryPoint) => number | null> = {
  util: (p) => p.utilGpu,
  memUsed: (p) => p.memUsedMiB,
  memTotal: (p) => p.memTotalMiB,
  power: (p) => p.powerW,
  powerLimit: (p) => p.powerLimitW,
  temp: (p) => p.tempC,
  smClock: (p) => p.smClockMHz,
};

const HOST_FIELDS: Record<HostKey, (p: HostTelemetryPoint) => number> = {
  cpuTotal: (p) => p.cpuTotal,
  procCpu: (p) => p.procCpu,
  busiestThread: (p) => p.busiestThreadCpu,
  rss: (p) => p.procRssMiB,
};

/**
 * A point's time in seconds. The engine's `tMs` is milliseconds since the start; x is kept to the millisecond so a live
 * point and the same point fetched later land on the same x and replace each other.
 */
function seconds(tMs: number): number {
  return Math.round(tMs) / 1000;
}

function emptySeries<K extends string>(keys: readonly K[]): Record<K, XY[]> {
  return Object.fromEntries(keys.map((key) => [key, [] as XY[]])) as Record<K, XY[]>;
}

export class TelemetrySeriesSet {
  private readonly gpu = emptySeries(Object.keys(GPU_FIELDS) as GpuKey[]);
  private readonly host = emptySeries(Object.keys(HOST_FIELDS) as HostKey[]);
  /** Every GPU sample's time with its throttle reasons ('' for none), sorted: the bands are worked out from it. */
  private readonly throttleStates: { x: number; label: string }[] = [];

  addGpu(points: readonly GpuTelemetryPoint[]): void {
    for (const point of points) {
      const x = seconds(point.tMs);
      for (const key of Object.keys(GPU_FIELDS) as GpuKey[]) {
        const value = GPU_FIELDS[key](point);
        // A null is "not reported", never zero: the line has a gap there, not a dive.
        if (value !== null && Number.isFinite(value)) placeByStep(this.gpu[key], x, value);
      }
      placeState(this.throttleStates, x, point.throttling.join(', '));
    }
  }

  addHost(points: readonly HostTelemetryPoint[]): void {
    for (const point of points) {
      const x = seconds(point.tMs);
      for (const key of Object.keys(HOST_FIELDS) as HostKey[]) placeByStep(this.host[key], x, HOST_FIELDS[key](point));
    }
  }

  view(): TelemetryView {
    const lastGpu = this.throttleStates[this.throttleStates.length - 1]?.x ?? 0;
    // Host values are never null, so any host series holds one point per sample.
    const hostTimes = this.host.cpuTotal;
    const lastHost = hostTimes[hostTimes.length - 1]?.x ?? 0;
    return {
      gpuSamples: this.throttleStates.length,
      hostSamples: hostTimes.length,
      gpu: { ...this.gpu },
      host: { ...this.host },
      throttle: throttleBands(this.throttleStates),
      lastSeconds: Math.max(lastGpu, lastHost),
    };
  }
}

function placeState(states: { x: number; label: string }[], x: number, label: string): void {
  const last = states[states.length - 1];
  if (last === undefined || x > last.x) {
    states.push({ x, label });
    return;
  }
  const at = states.findIndex((state) => state.x >= x);
  if (states[at]?.x === x) states[at] = { x, label };
  else states.splice(at, 0, { x, label });
}

/** Each throttled sample covers the time until the next sample; neighbours with the same reasons merge into one band. */
export function throttleBands(states: readonly { x: number; label: string }[]): ThrottleBand[] {
  const bands: ThrottleBand[] = [];
  for (let i = 0; i < states.length; i += 1) {
    const state = states[i]!;
    if (state.label === '') continue;
    const to = states[i + 1]?.x ?? state.x;
    const last = bands[bands.length - 1];
    if (last && last.label === state.label && last.to >= state.x) last.to = to;
    else bands.push({ from: state.x, to, label: state.label });
  }
  return bands;
}
