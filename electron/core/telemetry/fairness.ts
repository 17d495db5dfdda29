// Whether the machine was fair to a run: others busy on the CPU or the GPU, throttling, an SM clock under the lock
// the app set. Each issue says what was seen, so a reader can decide to run it again on a quiet machine.
import type { Fairness, FairnessIssue } from '../../shared/api.js';
import { TIMING_THROTTLE_MASK, throttlingReasons } from './nvidiaSmi/index.js';
import type { TimedGpuSample } from './nvidiaSmiSampler.js';
import type { HostSummary } from './summary.js';

/** Others using half a core on average take a data loader's worker away (DESIGN: `host-busy`)... */
export const HOST_BUSY_CORES = 0.5;
/** ...or a quarter of the machine, whichever is less (a one-core box). */
export const HOST_BUSY_SHARE = 0.25;
/** Throttling (thermal or power) active for this share of the steady time distorts the timing. */
export const THROTTLED_SHARE = 0.05;
/** Another process computing on the GPU for this share of the samples shares it with the run. */
export const GPU_BUSY_SHARE = 0.05;
/** An SM clock under this share of the lock the app set: the lock did not hold (power, heat). */
export const CLOCK_BELOW_LOCK_SHARE = 0.9;

/** Cores others may use before the host counts as busy, on a machine with `cores` cores. */
export function hostBusyCores(cores: number | null): number {
  return cores === null ? HOST_BUSY_CORES : Math.min(HOST_BUSY_CORES, HOST_BUSY_SHARE * cores);
}

export interface FairnessInput {
  host: HostSummary | null;
  /** The run's GPU samples (empty without a GPU). */
  gpu: readonly TimedGpuSample[];
  /** Milliseconds from the run's start at which its steady steps begin (after warm-up); null: the whole run. */
  steadyFromMs: number | null;
  /** The clock lock Tuning Bench set for the run, if any (nvidia-smi cannot report locks, so only ours are known). */
  clockLockMHz: number | null;
}

function percentText(share: number): string {
  return `${Math.round(share * 100)} %`;
}

export function assessFairness(input: FairnessInput): Fairness {
  const issues: FairnessIssue[] = [];
  const others = input.host?.otherCpuCoresMean ?? null;
  if (others !== null) {
    const limit = hostBusyCores(input.host?.cores ?? null);
    if (others >= limit) {
      const cores = input.host?.cores;
      issues.push({
        kind: 'host-busy',
        message: `other processes used ${others.toFixed(2)} CPU cores on average during the run${cores ? ` (of ${cores})` : ''}; busy from ${Number(limit.toPrecision(2))}`,
      });
    }
  }
  const steady = input.gpu.filter((s) => input.steadyFromMs === null || s.tMs >= input.steadyFromMs);
  if (steady.length > 0) {
    const withApps = steady.filter((s) => s.otherComputeApps !== undefined && s.otherComputeApps !== null);
    const shared = withApps.filter((s) => (s.otherComputeApps ?? 0) > 0);
    if (withApps.length > 0 && shared.length / withApps.length >= GPU_BUSY_SHARE) {
      const most = Math.max(...shared.map((s) => s.otherComputeApps ?? 0));
      issues.push({
        kind: 'gpu-busy',
        message: `${most} other process${most === 1 ? '' : 'es'} computed on the GPU during ${percentText(shared.length / withApps.length)} of the run's steady time`,
      });
    }
    const withMask = steady.filter((s) => s.throttleReasons !== null);
    const throttled = withMask.filter((s) => ((s.throttleReasons ?? 0) & TIMING_THROTTLE_MASK) !== 0);
    if (withMask.length > 0 && throttled.length / withMask.length >= THROTTLED_SHARE) {
      const reasons = [...new Set(throttled.flatMap((s) => throttlingReasons(s.throttleReasons!)))];
      issues.push({
        kind: 'throttled',
        message: `throttled (${reasons.join(', ')}) during ${percentText(throttled.length / withMask.length)} of the steady time`,
      });
    }
    const lock = input.clockLockMHz;
    const clocks = steady
      .map((s) => s.smClockMHz)
      .filter((v): v is number => v !== null)
      .sort((a, b) => a - b);
    if (lock !== null && clocks.length > 0) {
      const median = clocks[clocks.length >> 1]!;
      if (median < CLOCK_BELOW_LOCK_SHARE * lock) {
        issues.push({
          kind: 'clock-below-lock',
          message: `the SM clock ran at ${median} MHz (median), under ${percentText(CLOCK_BELOW_LOCK_SHARE)} of the ${lock} MHz lock`,
        });
      }
    }
  }
  return { ok: issues.length === 0, issues };
}
