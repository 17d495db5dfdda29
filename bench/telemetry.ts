// Telemetry benchmarks: the sampler's own CPU cost at 4 Hz, and the observer effect on a real PyTorch training.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCore } from '../electron/core/createCore.js';
import { parseChannelLine } from '../electron/core/metrics/channel.js';
import { summarizeMetrics } from '../electron/core/metrics/summary.js';
import { NvidiaSmiSampler } from '../electron/core/telemetry/nvidiaSmiSampler.js';
import { HostSampler } from '../electron/core/telemetry/hostSampler.js';
import { median, type BenchRow } from './stats.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '..');
const FAKE = path.join(REPO_ROOT, 'test/fixtures/fake-nvidia-smi');
const SAMPLER_SECONDS = Number(process.env.BENCH_SAMPLER_SECONDS ?? 60);
const PAIRS = Number(process.env.BENCH_OBSERVER_PAIRS ?? 5);
const PYTHON = process.env.TUNING_BENCH_TORCH_PYTHON ?? '/usr/bin/python3';
const CHARLM_ARGS = ['--steps', '60', '--amp', 'bf16', '--threads', '1', '--batch-size', '16', '--seq-len', '128', '--eval-every', '1000'];

function childCpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** The engine's cost of sampling (parsing, storing nothing) and nvidia-smi's, at 250 ms GPU and 500 ms host. */
async function samplerCost(): Promise<BenchRow[]> {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-bench-sampler-'));
  const env = { ...(process.env as Record<string, string>), FAKE_NVIDIA_SMI_STATE: path.join(stateDir, 'state.json') };
  let samples = 0;
  const cpuBefore = process.cpuUsage();
  const gpu = new NvidiaSmiSampler({
    binary: FAKE,
    gpu: '0',
    intervalMs: 250,
    env,
    startedAtMs: Date.now(),
    onSample: () => samples++,
    onStatus: () => undefined,
  });
  const host = new HostSampler(process.pid, Date.now(), () => undefined);
  // Let it start (the help query, the first lines), then measure a steady stretch.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const fakePids = fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/u.test(p))
    .filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('fake-nvidia-smi');
      } catch {
        return false;
      }
    })
    .map(Number);
  const fakeBefore = fakePids.reduce((sum, pid) => sum + childCpuSeconds(pid), 0);
  const start = process.cpuUsage(cpuBefore);
  const startedAt = Date.now();
  const samplesBefore = samples;
  await new Promise((resolve) => setTimeout(resolve, SAMPLER_SECONDS * 1000));
  const used = process.cpuUsage(cpuBefore);
  const wall = (Date.now() - startedAt) / 1000;
  const fakeAfter = fakePids.reduce((sum, pid) => sum + childCpuSeconds(pid), 0);
  gpu.close();
  host.close();
  const startRow = fakeStartRow(env);
  fs.rmSync(stateDir, { recursive: true, force: true });
  const engineShare = ((used.user + used.system - start.user - start.system) / 1e6 / wall) * 100;
  const fakeShare = ((fakeAfter - fakeBefore) / wall) * 100;
  return [
    {
      benchmark: 'telemetry',
      metric: `engine CPU while sampling (${SAMPLER_SECONDS} s, 4 Hz GPU + 2 Hz host)`,
      value: engineShare,
      unit: '% of a core',
      target: '< 1',
      pass: engineShare < 1,
    },
    { benchmark: 'telemetry', metric: 'the fake nvidia-smi child (a Node script; real nvidia-smi differs)', value: fakeShare, unit: '% of a core' },
    { benchmark: 'telemetry', metric: 'GPU samples per second', value: (samples - samplesBefore) / wall, unit: 'Hz', target: '~4' },
    startRow,
  ];
}

/** The tests spawn the fake for every query: a start this slow is what each one costs (median of 10 spawns). */
function fakeStartRow(env: Record<string, string>): BenchRow {
  const times = Array.from({ length: 10 }, () => {
    const started = performance.now();
    spawnSync(FAKE, ['--query-gpu=index,utilization.gpu', '--format=csv,noheader,nounits'], { env, stdio: 'ignore' });
    return performance.now() - started;
  });
  const ms = median(times);
  return {
    benchmark: 'telemetry',
    metric: 'one query of the fake nvidia-smi, spawn to exit (median of 10)',
    value: ms,
    unit: 'ms',
    target: '< 2000',
    pass: ms < 2000,
  };
}

function steadyTokensPerSecond(channelFile: string): number | null {
  const lines = fs.readFileSync(channelFile, 'utf8').split('\n').filter(Boolean);
  const samples = lines.flatMap((line) => parseChannelLine(line, 0, 0));
  return summarizeMetrics(samples, { tokensPerStep: 16 * 128 }).throughput.median;
}

/** The same charlm training bare and through the app with telemetry on, alternated. */
async function observerOverhead(): Promise<BenchRow[]> {
  if (spawnSync(PYTHON, ['-c', 'import torch'], { stdio: 'ignore' }).status !== 0) {
    return [{ benchmark: 'telemetry', metric: `observer overhead SKIPPED: ${PYTHON} cannot import torch`, value: 0, unit: '' }];
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-bench-observer-'));
  const script = path.join(REPO_ROOT, 'resources/workloads/charlm/train.py');
  const env = { ...(process.env as Record<string, string>), TUNING_BENCH_NVIDIA_SMI: FAKE, FAKE_NVIDIA_SMI_STATE: path.join(dir, 'state.json') };
  const core = createCore({ face: 'headless', dbPath: path.join(dir, 'runs.db'), resourcesDir: path.join(REPO_ROOT, 'resources'), env });
  const ratios: number[] = [];
  try {
    await core.recording.flush();
    for (let pair = 0; pair < PAIRS; pair++) {
      const channel = path.join(dir, `bare-${pair}.jsonl`);
      spawnSync(PYTHON, [script, ...CHARLM_ARGS], { env: { ...env, TUNING_BENCH_METRICS: channel }, stdio: 'ignore' });
      const bare = steadyTokensPerSecond(channel);
      const run = core.startCommand({ adHoc: { command: [PYTHON, script, ...CHARLM_ARGS], cwd: dir } });
      const observed = (await core.runner.waitForExit(run.id)).summary.throughput.median;
      if (bare && observed) ratios.push(observed / bare);
    }
  } finally {
    await core.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const ratio = median(ratios);
  // The spread says how far one pair can be trusted on this machine: a ratio above 1 is noise, not a faster run.
  const spread = ratios.length > 0 ? `${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)}` : 'none';
  return [
    {
      benchmark: 'telemetry',
      metric: `observer: charlm bf16 tok/s through the app / bare (median of ${ratios.length} interleaved pairs; spread ${spread})`,
      value: ratio,
      unit: 'x',
      target: '>= 0.99',
      pass: ratio >= 0.99,
    },
  ];
}

export async function telemetryBenchmark(): Promise<BenchRow[]> {
  return [...(await samplerCost()), ...(await observerOverhead())];
}
