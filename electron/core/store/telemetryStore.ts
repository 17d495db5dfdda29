// Host (and GPU) telemetry samples of runs, written in batches and read back for summaries and charts.
import type { GpuSampleRecord, HostSample } from './records.js';
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

type HostExtra = Pick<HostSample, 'cpuPerCore' | 'threads' | 'readBytesPerSec' | 'writeBytesPerSec' | 'busiestThreadCpu' | 'otherCpuCores'>;

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
  appendGpu(runId: number, sample: GpuSampleRecord): void {
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

  gpuSamples(runId: number): GpuSampleRecord[] {
    return this.gpuByRun.all(runId).map((row) => JSON.parse(row.extra_json) as GpuSampleRecord);
  }

  appendHost(runId: number, sample: HostSample): void {
    const extra: HostExtra = {
      cpuPerCore: sample.cpuPerCore.map((v) => Math.round(v * 10) / 10),
      threads: sample.threads,
      readBytesPerSec: sample.readBytesPerSec,
      writeBytesPerSec: sample.writeBytesPerSec,
      busiestThreadCpu: sample.busiestThreadCpu,
      ...(sample.otherCpuCores === undefined ? {} : { otherCpuCores: Math.round(sample.otherCpuCores * 1000) / 1000 }),
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
        ...(extra.otherCpuCores === undefined ? {} : { otherCpuCores: extra.otherCpuCores }),
      };
    });
  }
}
