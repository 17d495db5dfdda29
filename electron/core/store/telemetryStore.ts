// Host (and GPU) telemetry samples of runs, written in batches and read back for summaries and charts.
import type { HostSample } from '../telemetry/hostSampler.js';
import type { TimedGpuSample } from '../telemetry/nvidiaSmiSampler.js';
import { TIMING_THROTTLE_MASK, throttlingReasons } from '../telemetry/nvidiaSmi/index.js';
import type { BatchWriter } from './batchWriter.js';
import type { Db } from './open.js';

interface HostRow {
  t_ms: number;
  cpu_total: number | null;
  cpu_iowait: number | null;
  mem_used_mib: number | null;
  swap_used_mib: number | null;
  proc_cpu: number | null;
  proc_rss_mib: number | null;
  extra_json: string | null;
}

type HostExtra = Pick<HostSample, 'cpuPerCore' | 'threads' | 'readBytesPerSec' | 'writeBytesPerSec' | 'busiestThreadCpu'>;

export class TelemetryStore {
  private readonly insertHost;
  private readonly hostByRun;
  private readonly insertGpu;
  private readonly gpuByRun;

  constructor(
    db: Db,
    private readonly writer: BatchWriter,
  ) {
    this.insertHost = db.prepare(
      `INSERT INTO host_samples (run_id, t_ms, cpu_total, cpu_iowait, mem_used_mib, swap_used_mib, proc_cpu, proc_rss_mib, extra_json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.hostByRun = db.prepare<[number], HostRow>('SELECT * FROM host_samples WHERE run_id = ? ORDER BY t_ms');
    this.insertGpu = db.prepare(
      `INSERT INTO gpu_samples (run_id, t_ms, gpu_index, util_gpu, util_mem, mem_used_mib, mem_total_mib, power_w, temp_c,
         sm_clock_mhz, mem_clock_mhz, throttle_reasons, extra_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.gpuByRun = db.prepare<[number], { extra_json: string }>('SELECT extra_json FROM gpu_samples WHERE run_id = ? ORDER BY t_ms');
  }

  /** The main values in columns (for fast comparisons); the whole sample as JSON beside them. */
  appendGpu(runId: number, sample: TimedGpuSample): void {
    this.writer.enqueue(() =>
      this.insertGpu.run(
        runId,
        sample.tMs,
        sample.index ?? 0,
        sample.utilGpu,
        sample.utilMem,
        sample.memUsedMiB,
        sample.memTotalMiB,
        sample.powerW,
        sample.tempC,
        sample.smClockMHz,
        sample.memClockMHz,
        sample.throttleReasons,
        JSON.stringify(sample),
      ),
    );
  }

  gpuSamples(runId: number): TimedGpuSample[] {
    return this.gpuByRun.all(runId).map((row) => JSON.parse(row.extra_json) as TimedGpuSample);
  }

  appendHost(runId: number, sample: HostSample): void {
    const extra: HostExtra = {
      cpuPerCore: sample.cpuPerCore.map((v) => Math.round(v * 10) / 10),
      threads: sample.threads,
      readBytesPerSec: sample.readBytesPerSec,
      writeBytesPerSec: sample.writeBytesPerSec,
      busiestThreadCpu: sample.busiestThreadCpu,
    };
    this.writer.enqueue(() =>
      this.insertHost.run(
        runId,
        sample.tMs,
        sample.cpuTotal,
        sample.iowait,
        sample.memUsedMiB,
        sample.swapUsedMiB,
        sample.procCpu,
        sample.procRssMiB,
        JSON.stringify(extra),
      ),
    );
  }

  hostSamples(runId: number): HostSample[] {
    return this.hostByRun.all(runId).map((row) => {
      const extra = (row.extra_json ? JSON.parse(row.extra_json) : {}) as Partial<HostExtra>;
      return {
        tMs: row.t_ms,
        cpuTotal: row.cpu_total ?? 0,
        cpuPerCore: extra.cpuPerCore ?? [],
        iowait: row.cpu_iowait ?? 0,
        memUsedMiB: row.mem_used_mib ?? 0,
        swapUsedMiB: row.swap_used_mib ?? 0,
        procCpu: row.proc_cpu ?? 0,
        procRssMiB: row.proc_rss_mib ?? 0,
        threads: extra.threads ?? 0,
        readBytesPerSec: extra.readBytesPerSec ?? 0,
        writeBytesPerSec: extra.writeBytesPerSec ?? 0,
        busiestThreadCpu: extra.busiestThreadCpu ?? 0,
      };
    });
  }
}

/** The summary's host part: machine CPU mean and the run's peak resident memory. */
export function summarizeHost(samples: readonly HostSample[]): { cpuMean: number | null; rssPeakMiB: number | null } | null {
  if (samples.length === 0) return null;
  const cpuMean = samples.reduce((sum, s) => sum + s.cpuTotal, 0) / samples.length;
  return { cpuMean: Math.round(cpuMean * 10) / 10, rssPeakMiB: Math.round(samples.reduce((max, s) => Math.max(max, s.procRssMiB), 0) * 10) / 10 };
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
