// What a Tuning Bench run becomes in MLflow: its params, tags, summary metrics and telemetry as `system/...` metrics,
// named as MLflow names them and kept within its limits. Pure functions of the stored run.
import os from 'node:os';
import type { ComparisonRow, Run } from '../../shared/api.js';
import type { GpuSecond, HostSecond } from '../store/mlflowStore.js';
import type { KeyValue, MetricEntry, MlflowRunStatus } from './mlflowClient.js';

/** MLflow's limits on one value (mlflow/utils/validation.py): a longer one is cut, with a warning. */
export const MAX_PARAM_VALUE_CHARS = 6000;
export const MAX_TAG_VALUE_CHARS = 8000;
export const MAX_KEY_CHARS = 250;

/** The tags that name a run's source: with these two, publishing again finds the same MLflow run. */
export const TAG_RUN_ID = 'tuning_bench.run_id';
export const TAG_DATABASE_ID = 'tuning_bench.database_id';
export const TAG_KIND = 'tuning_bench.kind';
export const TAG_SWEEP_ID = 'tuning_bench.sweep_id';
export const TAG_COMPARISON = 'tuning_bench.comparison';
export const TAG_MACHINE = 'tuning_bench.machine';
export const TAG_MACHINE_ID = 'tuning_bench.machine_id';

/** The artifact a run's whole record goes in: what `import-mlflow` reads back. */
export const RUN_RECORD_ARTIFACT = 'tuning-bench/run.json';
export const LOG_ARTIFACT = 'tuning-bench/output.log';

/** MiB (what the store keeps) to MB (what MLflow's own system metrics log: bytes / 1e6). */
const MB_PER_MIB = 1.048576;

/** The machine that recorded a run: the host it ran on and its GPU (or CPU), as an id and in words. */
export function machineOf(run: Run): { id: string; label: string; hostname: string } {
  const fingerprint = run.fingerprint ?? {};
  const text = (key: string) => (typeof fingerprint[key] === 'string' && fingerprint[key] !== '' ? (fingerprint[key] as string) : null);
  // Runs recorded before the host name was kept ran where their database is.
  const hostname = text('hostname') ?? os.hostname();
  const device = text('gpuName') ?? text('cpuModel');
  return { id: `${hostname}/${text('gpuUuid') ?? text('cpuModel') ?? 'unknown'}`, label: device ? `${hostname} (${device})` : hostname, hostname };
}

/**
 * A metric or param name MLflow takes on every version: letters, digits and `_ - . /` and spaces (older servers
 * refuse anything else), no leading slash or `..` (names may become file paths there).
 */
export function metricKey(name: string): string {
  const cleaned = name
    .replace(/[^\w\-. /]/gu, '_')
    .replace(/\/{2,}/gu, '/')
    .replace(/(^|\/)\.{1,2}(?=\/|$)/gu, '$1_')
    .replace(/^\/+|\/+$/gu, '');
  return (cleaned || '_').slice(0, MAX_KEY_CHARS);
}

/** A value cut to MLflow's limit, with a warning that says so. */
function clipped(key: string, value: string, max: number, warnings: string[]): KeyValue {
  if (value.length <= max) return { key, value };
  warnings.push(`${key} is ${value.length} characters; MLflow keeps ${max}, so it was cut (the whole value is in ${RUN_RECORD_ARTIFACT})`);
  return { key, value: `${value.slice(0, max - 1)}…` };
}

/** The run's params: its variables as named, then what it ran and where, and the work in one step. */
export function runParams(run: Run, warnings: string[]): KeyValue[] {
  const params: KeyValue[] = [];
  const add = (key: string, value: string | number | null | undefined) => {
    if (value === null || value === undefined || value === '') return;
    params.push(clipped(metricKey(key), String(value), MAX_PARAM_VALUE_CHARS, warnings));
  };
  for (const [name, value] of Object.entries(run.config).sort(([a], [b]) => a.localeCompare(b))) add(name, value);
  for (const [name, value] of Object.entries(run.env).sort(([a], [b]) => a.localeCompare(b))) add(`env.${name}`, value);
  add('tuning_bench.command', run.command.map(shellWord).join(' '));
  add('tuning_bench.cwd', run.cwd);
  add('tuning_bench.workload', run.workloadName);
  add('tuning_bench.tokens_per_step', run.unitsPerStep?.tokens ?? run.summary.tokensPerStep);
  add('tuning_bench.samples_per_step', run.unitsPerStep?.samples);
  return params;
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/u.test(word) ? word : `'${word.replace(/'/gu, `'\\''`)}'`;
}

/** How the run stood when it was recorded, in flags: what makes its timing less fair (throttling, a GPU that was not idle). */
export function fairnessFlags(run: Run): string[] {
  const flags: string[] = [];
  const gpu = run.summary.gpu;
  if (gpu?.throttledSeconds) {
    const reasons = Object.entries(gpu.throttledByReason)
      .filter(([, seconds]) => seconds > 0)
      .map(([reason]) => reason);
    flags.push(`throttled ${gpu.throttledSeconds.toFixed(1)} s${reasons.length > 0 ? ` (${reasons.join(', ')})` : ''}`);
  }
  if (run.wait?.reason === 'timeout') flags.push(`started before the GPU was idle and cool (waited ${Math.round(run.wait.seconds)} s)`);
  if (run.wait && run.wait.busyProcesses > 0) flags.push(`${run.wait.busyProcesses} other GPU process(es) at start`);
  if (run.outputDroppedBytes > 0) flags.push(`${run.outputDroppedBytes} bytes of output not kept (disk full)`);
  return flags;
}

export interface RunTagContext {
  databaseId: string;
  /** The sweep's MLflow run, for a sweep's run. */
  parentMlflowRunId: string | null;
  /** Its row in the sweep's comparison: the verdict tags. */
  row: ComparisonRow | null;
  runName: string;
}

/** The run's tags: MLflow's own (name, git, parent, note), the machine and its settings, how it ended, and where it came from. */
export function runTags(run: Run, context: RunTagContext, warnings: string[]): KeyValue[] {
  const tags: KeyValue[] = [];
  const add = (key: string, value: string | number | boolean | null | undefined) => {
    if (value === null || value === undefined || value === '') return;
    tags.push(clipped(key, String(value), MAX_TAG_VALUE_CHARS, warnings));
  };
  const fingerprint = run.fingerprint ?? {};
  const fact = (key: string) => (typeof fingerprint[key] === 'string' || typeof fingerprint[key] === 'number' ? String(fingerprint[key]) : null);
  const machine = machineOf(run);
  add('mlflow.runName', context.runName);
  add('mlflow.source.type', 'LOCAL');
  add('mlflow.source.name', run.workloadName ?? run.command[0]);
  add('mlflow.source.git.commit', run.git?.commit);
  add('mlflow.source.git.branch', run.git?.branch);
  add('mlflow.source.git.dirty', run.git ? run.git.dirty : null);
  add('mlflow.source.git.diff_sha256', run.git?.dirty ? run.git.diffSha256 : null);
  add('mlflow.parentRunId', context.parentMlflowRunId);
  add('mlflow.note.content', run.notes);
  add(TAG_KIND, 'run');
  add(TAG_RUN_ID, run.id);
  add(TAG_DATABASE_ID, context.databaseId);
  add(TAG_SWEEP_ID, run.sweepId);
  add('tuning_bench.config_index', run.configIndex);
  add('tuning_bench.repeat_index', run.repeatIndex);
  add(TAG_MACHINE, machine.label);
  add(TAG_MACHINE_ID, machine.id);
  add('tuning_bench.hostname', machine.hostname);
  add('tuning_bench.gpu', fact('gpuName'));
  add('tuning_bench.gpu_uuid', fact('gpuUuid'));
  add('tuning_bench.driver', fact('driverVersion'));
  add('tuning_bench.cuda', fact('cudaVersion'));
  add('tuning_bench.cpu', fact('cpuModel'));
  add('tuning_bench.kernel', fact('kernel'));
  add('tuning_bench.python', fact('pythonVersion'));
  add('tuning_bench.torch', fact('torchVersion'));
  add('tuning_bench.gpu_settings', run.gpuSettings ? JSON.stringify(run.gpuSettings) : 'not recorded');
  add('tuning_bench.status', run.status);
  add('tuning_bench.exit_class', run.exitClass);
  add('tuning_bench.exit_reason', run.exitReason);
  const flags = fairnessFlags(run);
  add('tuning_bench.fairness', flags.length === 0 ? 'ok' : flags.join('; '));
  add('tuning_bench.hints', run.summary.hints.join('; '));
  add('tuning_bench.throughput_unit', run.summary.throughput.unit);
  add('tuning_bench.tags', run.tags.join(', '));
  const row = context.row;
  if (row) {
    add('tuning_bench.config', row.name);
    add('tuning_bench.baseline', row.isBaseline);
    add('tuning_bench.verdict', row.speedup.verdict);
    add('tuning_bench.verdict_reason', row.speedup.reason);
    add('tuning_bench.speedup', row.speedup.ratio === null ? null : row.speedup.ratio.toFixed(4));
    add('tuning_bench.speedup_ci95', row.speedup.ci95 === null ? null : `${row.speedup.ci95.low.toFixed(4)}-${row.speedup.ci95.high.toFixed(4)}`);
    add('tuning_bench.n', row.n);
    add('tuning_bench.quality_gate', row.gate);
    add('tuning_bench.quality_gate_reason', row.gateReason);
    add('tuning_bench.best', row.best);
  }
  return tags;
}

/** A throughput unit as part of a metric name: `tokens/s` → `tokens_per_s`. */
function unitName(unit: string): string {
  return metricKey(unit.replace(/\//gu, '_per_'));
}

/**
 * The summary as metrics under `summary/`: steady throughput (its unit in the name), step time, losses, energy per
 * 1k tokens, peak VRAM, utilisation, power, warm-up. One value each, at step 0.
 */
export function summaryMetrics(run: Run): Array<{ key: string; value: number }> {
  const s = run.summary;
  const out: Array<{ key: string; value: number }> = [];
  const add = (key: string, value: number | null | undefined) => {
    if (value === null || value === undefined) return;
    out.push({ key: `summary/${key}`, value });
  };
  if (s.throughput.unit !== null) {
    add(`throughput_${unitName(s.throughput.unit)}`, s.throughput.median);
    add(`throughput_iqr_${unitName(s.throughput.unit)}`, s.throughput.iqr);
  }
  add('step_time_ms_median', s.stepTimeMs.median);
  add('steps', s.steps);
  add('warmup_steps', s.warmup?.steps);
  add('warmup_seconds', s.warmup?.seconds);
  add('final_loss', s.finalLoss);
  add('best_loss', s.bestLoss);
  add('eval_loss', s.evalLoss);
  const gpu = s.gpu;
  add('vram_peak_mib', gpu?.vramPeakMiB);
  add('gpu_utilization_mean_percentage', gpu?.utilMean);
  add('gpu_power_mean_watts', gpu?.powerMeanW);
  add('energy_joules', gpu?.energyJ);
  add('throttled_seconds', gpu?.throttledSeconds);
  // W / (tokens/s) = J per token; per 1k tokens, as compare reports it.
  if (gpu?.powerMeanW != null && s.throughput.unit === 'tokens/s' && s.throughput.median !== null && s.throughput.median > 0) {
    add('energy_per_1k_tokens_joules', (gpu.powerMeanW / s.throughput.median) * 1000);
  }
  add('host_cpu_mean_percentage', s.host?.cpuMean);
  add('host_rss_peak_mib', s.host?.rssPeakMiB);
  return out;
}

/** MLflow's own names for what its system-metrics monitor logs (mlflow/system_metrics/metrics), ours beside them in the same style. */
export function gpuSecondMetrics(second: GpuSecond, startMs: number): MetricEntry[] {
  const prefix = `system/gpu_${second.gpu}_`;
  const at = { timestamp: startMs + second.second * 1000, step: second.second };
  const out: MetricEntry[] = [];
  const add = (name: string, value: number | null) => {
    if (value !== null && Number.isFinite(value)) out.push({ key: prefix + name, value: round(value), ...at });
  };
  add('utilization_percentage', second.utilGpu);
  add('memory_usage_megabytes', second.memUsedMiB === null ? null : second.memUsedMiB * MB_PER_MIB);
  add('memory_usage_percentage', second.memPercent);
  add('power_usage_watts', second.powerW);
  add('power_usage_percentage', second.powerPercent);
  add('temperature_celsius', second.tempC);
  add('sm_clock_megahertz', second.smClockMHz);
  add('memory_clock_megahertz', second.memClockMHz);
  return out;
}

export function hostSecondMetrics(second: HostSecond, startMs: number): MetricEntry[] {
  const at = { timestamp: startMs + second.second * 1000, step: second.second };
  const out: MetricEntry[] = [];
  const add = (name: string, value: number | null) => {
    if (value !== null && Number.isFinite(value)) out.push({ key: `system/${name}`, value: round(value), ...at });
  };
  add('cpu_utilization_percentage', second.cpuTotal);
  add('cpu_iowait_percentage', second.iowait);
  add('system_memory_usage_megabytes', second.memUsedMiB === null ? null : second.memUsedMiB * MB_PER_MIB);
  add('swap_usage_megabytes', second.swapUsedMiB === null ? null : second.swapUsedMiB * MB_PER_MIB);
  add('training_process_cpu_percentage', second.procCpu);
  add('training_process_memory_megabytes', second.procRssMiB === null ? null : second.procRssMiB * MB_PER_MIB);
  return out;
}

/** One decimal, as MLflow's own monitor rounds its averages. */
function round(value: number): number {
  return Math.round(value * 10) / 10;
}

export function mlflowStatus(run: Run): MlflowRunStatus {
  if (run.status === 'running') return 'RUNNING';
  if (run.status === 'succeeded') return 'FINISHED';
  return run.status === 'failed' ? 'FAILED' : 'KILLED';
}

/** The run's name in MLflow: its id here, then what it ran (the sweep's config name, else the workload and values). */
export function runName(run: Run, configName: string | null): string {
  const values = Object.entries(run.config)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const what = configName ?? [run.workloadName ?? run.command[0] ?? 'command', values].filter(Boolean).join(' ');
  const repeat = run.repeatIndex !== null ? ` repeat ${run.repeatIndex + 1}` : '';
  return `#${run.id} ${what}${repeat}`.slice(0, 250);
}
