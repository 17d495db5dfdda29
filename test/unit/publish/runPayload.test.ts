// Names MLflow takes on every version, telemetry under MLflow's own system-metric names and units, values cut to
// MLflow's limits with a warning.
import { describe, expect, it } from 'vitest';
import { gpuSecondMetrics, hostSecondMetrics, metricKey, runParams, summaryMetrics } from '../../../electron/core/publish/runPayload.js';
import { run as runSchema } from '../../../electron/shared/api.js';

const base = runSchema.parse({
  id: 7,
  workloadId: null,
  workloadName: 'mine',
  status: 'succeeded',
  exitCode: 0,
  signal: null,
  exitClass: 'ok',
  exitReason: null,
  startedAt: '2026-11-21T10:00:00.000Z',
  endedAt: '2026-11-21T10:01:00.000Z',
  command: ['python', 'train.py', '--note', "it's"],
  cwd: '/work',
  config: { batch: '16' },
  env: { TORCH_COMPILE: '1' },
  pid: null,
  outputBytes: 0,
  summary: {
    steps: 100,
    throughput: { median: 2000, iqr: 20, unit: 'tokens/s' },
    stepTimeMs: { median: 50 },
    finalLoss: 1.5,
    nanDetected: false,
    gpu: { utilMean: 90, vramPeakMiB: 4000, powerMeanW: 300, energyJ: 18000, throttledSeconds: 0 },
    host: null,
  },
  gpuSettings: null,
});

describe('what a run becomes in MLflow', () => {
  it('names metrics as every MLflow version takes them', () => {
    expect(metricKey('loss')).toBe('loss');
    expect(metricKey('tok/s')).toBe('tok/s');
    expect(metricKey('acc@1 (val)')).toBe('acc_1 _val_');
    expect(metricKey('/abs//path/')).toBe('abs/path');
    expect(metricKey('../up')).toBe('_/up');
    expect(metricKey('x'.repeat(300))).toHaveLength(250);
  });

  it('gives params for the variables, the environment added, the command as typed and the work per step', () => {
    const params = Object.fromEntries(runParams(base, []).map((p) => [p.key, p.value]));
    expect(params).toEqual({
      batch: '16',
      'env.TORCH_COMPILE': '1',
      'tuning_bench.command': "python train.py --note 'it'\\''s'",
      'tuning_bench.cwd': '/work',
      'tuning_bench.workload': 'mine',
    });
  });

  it('cuts a value longer than MLflow keeps, and says so', () => {
    const warnings: string[] = [];
    const long = runParams({ ...base, config: { prompt: 'y'.repeat(7000) } }, warnings).find((p) => p.key === 'prompt')!;
    expect(long.value).toHaveLength(6000);
    expect(warnings[0]).toMatch(/prompt is 7000 characters; MLflow keeps 6000/u);
  });

  it('puts the unit in the summary metric names, and energy per 1k tokens', () => {
    const metrics = Object.fromEntries(summaryMetrics(base).map((m) => [m.key, m.value]));
    expect(metrics).toMatchObject({
      'summary/throughput_tokens_per_s': 2000,
      'summary/step_time_ms_median': 50,
      'summary/vram_peak_mib': 4000,
      'summary/energy_per_1k_tokens_joules': 150,
    });
  });

  it("logs telemetry under MLflow's system-metric names and units, a second per step", () => {
    const gpu = gpuSecondMetrics(
      { gpu: 1, second: 5, utilGpu: 87.25, memUsedMiB: 1000, memPercent: 50, powerW: 300, powerPercent: 66.7, tempC: 70, smClockMHz: 2790, memClockMHz: null },
      1_000_000,
    );
    expect(Object.fromEntries(gpu.map((m) => [m.key, m.value]))).toEqual({
      'system/gpu_1_utilization_percentage': 87.3,
      'system/gpu_1_memory_usage_megabytes': 1048.6,
      'system/gpu_1_memory_usage_percentage': 50,
      'system/gpu_1_power_usage_watts': 300,
      'system/gpu_1_power_usage_percentage': 66.7,
      'system/gpu_1_temperature_celsius': 70,
      'system/gpu_1_sm_clock_megahertz': 2790,
    });
    expect(gpu.every((m) => m.step === 5 && m.timestamp === 1_005_000)).toBe(true);
    const host = hostSecondMetrics({ second: 0, cpuTotal: 12, iowait: 1, memUsedMiB: 2048, swapUsedMiB: 0, procCpu: 99, procRssMiB: 512 }, 0);
    expect(host.map((m) => m.key)).toEqual([
      'system/cpu_utilization_percentage',
      'system/cpu_iowait_percentage',
      'system/system_memory_usage_megabytes',
      'system/swap_usage_megabytes',
      'system/training_process_cpu_percentage',
      'system/training_process_memory_megabytes',
    ]);
  });
});
