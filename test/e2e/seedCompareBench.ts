// Seeds a database with long finished runs for the compare view's benchmark, through the engine's own Store:
// each run one hour, GPU telemetry at 4 Hz (14,400 samples) and 100,000 metric points (25,000 steps of loss,
// tokens/s, step time and learning rate), summarised and with its chart series stored, as the engine does at run end.
// Usage: node --import tsx test/e2e/seedCompareBench.ts DB_FILE [RUNS]; prints the run ids as JSON.
import { buildSeries } from '../../electron/core/ingest/series.js';
import type { MetricSample } from '../../electron/core/metrics/samples.js';
import { summarizeMetrics } from '../../electron/core/metrics/summary.js';
import { EMPTY_SUMMARY } from '../../electron/core/store/runStore.js';
import { Store } from '../../electron/core/store/store.js';
import { storedGpuSamples, summarizeGpu } from '../../electron/core/telemetry/summary.js';
import { GPU_FIELDS, type GpuFieldKey } from '../../electron/core/telemetry/nvidiaSmi/fields.js';
import type { TimedGpuSample } from '../../electron/core/telemetry/nvidiaSmiSampler.js';

export const RUN_SECONDS = 3600;
export const GPU_HZ = 4;
export const STEPS = 25_000;
/** Samples queued per transaction: big enough to be quick, small enough to keep memory flat. */
const CHUNK = 5_000;
const SEQ_LEN = 512;
/** Tokens over which the loss falls by e: about a fifth of the smallest run's tokens. */
const LOSS_TOKENS = 20_000_000;

/** A deterministic pseudo-random stream (mulberry32), so every seeded database is the same. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function emptyGpuSample(): TimedGpuSample {
  const sample = { unavailable: {}, gpuLost: false, tMs: 0 } as unknown as TimedGpuSample;
  for (const key of Object.keys(GPU_FIELDS) as GpuFieldKey[]) (sample as unknown as Record<string, unknown>)[key] = null;
  return sample;
}

interface BenchConfig {
  batch: number;
  amp: 'off' | 'on';
  /** How much faster than batch 8 without AMP. */
  speed: number;
}

const CONFIGS: BenchConfig[] = [
  { batch: 8, amp: 'off', speed: 1 },
  { batch: 16, amp: 'off', speed: 1.09 },
  { batch: 32, amp: 'off', speed: 1.16 },
  { batch: 8, amp: 'on', speed: 1.52 },
  { batch: 16, amp: 'on', speed: 1.71 },
  { batch: 32, amp: 'on', speed: 1.83 },
  { batch: 64, amp: 'on', speed: 1.9 },
  { batch: 64, amp: 'off', speed: 1.2 },
  { batch: 128, amp: 'on', speed: 1.93 },
  { batch: 128, amp: 'off', speed: 1.22 },
];

async function seedRun(store: Store, index: number, startedAt: Date): Promise<number> {
  const config = CONFIGS[index % CONFIGS.length]!;
  const rand = random(index + 1);
  const run = store.runs.insert({
    workloadId: null,
    workloadName: 'charlm-long',
    command: ['python3', 'train.py', '--batch-size', String(config.batch), '--amp', config.amp, '--steps', String(STEPS)],
    cwd: '/tmp',
    config: { batch: String(config.batch), amp: config.amp, steps: String(STEPS) },
    env: {},
    startedAt,
    enginePid: process.pid,
  });
  const tokensPerStep = config.batch * SEQ_LEN;
  const baseTokensPerSec = 40_000 * config.speed;
  const stepMs = (RUN_SECONDS * 1000) / STEPS;

  let batch: MetricSample[] = [];
  for (let step = 1; step <= STEPS; step++) {
    const tMs = step * stepMs;
    const warm = step < 50 ? 0.4 : 1;
    const tokensPerSec = baseTokensPerSec * warm * (1 + (rand() - 0.5) * 0.04);
    // Loss falls with the tokens seen, so runs of any batch meet at a matched token count (as the gate compares them).
    const loss = 1.2 + 3 * Math.exp(-(step * tokensPerStep) / LOSS_TOKENS) + (rand() - 0.5) * 0.05 + (config.amp === 'on' ? 0.004 : 0);
    batch.push(
      { step, tMs, name: 'loss', value: loss, source: 'channel', kind: 'train' },
      { step, tMs, name: 'tokens_per_sec', value: tokensPerSec, source: 'channel', kind: 'train' },
      { step, tMs, name: 'step_time_ms', value: (tokensPerStep / tokensPerSec) * 1000, source: 'channel', kind: 'train' },
      { step, tMs, name: 'lr', value: 3e-4 * Math.min(1, step / 500), source: 'channel', kind: 'train' },
    );
    if (batch.length >= CHUNK) {
      store.metrics.append(run.id, batch);
      store.writer.flush();
      batch = [];
    }
  }
  store.metrics.append(run.id, batch);
  store.writer.flush();

  const samples = RUN_SECONDS * GPU_HZ;
  for (let i = 0; i < samples; i++) {
    const sample = emptyGpuSample();
    const seconds = i / GPU_HZ;
    sample.tMs = seconds * 1000;
    sample.index = 0;
    sample.utilGpu = Math.round(Math.min(100, 70 + config.speed * 12 + (rand() - 0.5) * 10));
    sample.utilMem = Math.round(40 + rand() * 10);
    sample.memTotalMiB = 24_564;
    sample.memUsedMiB = Math.round(1800 + config.batch * 80 * (config.amp === 'on' ? 0.6 : 1) + rand() * 40);
    sample.powerW = Math.round((250 + config.speed * 60 + (rand() - 0.5) * 30) * 10) / 10;
    sample.powerLimitW = 450;
    sample.tempC = Math.round(45 + 30 * (1 - Math.exp(-seconds / 300)) + rand() * 2);
    sample.smClockMHz = Math.round(2520 - Math.max(0, sample.tempC - 70) * 15 + (rand() - 0.5) * 30);
    sample.memClockMHz = 10_501;
    sample.throttleReasons = 0;
    sample.pstate = 2;
    store.telemetry.appendGpu(run.id, sample);
    if (i % CHUNK === CHUNK - 1) store.writer.flush();
  }
  store.writer.flush();

  const endedAt = new Date(startedAt.getTime() + RUN_SECONDS * 1000);
  store.runs.recordEnding(run.id, { status: 'succeeded', exitCode: 0, signal: null, exitClass: 'ok', exitReason: null, endedAt });
  // The last run ran with another power limit: the comparison flags it, as it would a real one.
  store.runs.setGpuSettings(run.id, { gpu: '0', persistenceMode: true, powerLimitW: index === 9 ? 400 : 450, clockLock: null, memoryClockLock: null });
  store.runs.addFingerprint(run.id, { gpuName: 'NVIDIA GeForce RTX 4090', driverVersion: '580.95.05', cudaVersion: '13.0', kernel: '6.8.0' });
  const metrics = store.metrics.forRun(run.id);
  const gpu = storedGpuSamples(store.telemetry, run.id);
  store.runs.setSummary(run.id, { ...EMPTY_SUMMARY, ...summarizeMetrics(metrics, { tokensPerStep }), gpu: summarizeGpu(gpu), host: null, hints: [] });
  store.runs.setSeries(run.id, buildSeries(metrics, gpu));
  return run.id;
}

export async function seedCompareBench(file: string, runs = 10): Promise<number[]> {
  const store = new Store(file);
  try {
    const ids: number[] = [];
    const start = Date.now() - (runs + 1) * RUN_SECONDS * 1000;
    for (let i = 0; i < runs; i++) ids.push(await seedRun(store, i, new Date(start + i * RUN_SECONDS * 1000)));
    return ids;
  } finally {
    await store.close();
  }
}

// Run as a script: `node --import tsx test/e2e/seedCompareBench.ts DB_FILE [RUNS]`.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const [file, count] = process.argv.slice(2);
  if (!file) {
    console.error('usage: seedCompareBench.ts DB_FILE [RUNS]');
    process.exit(2);
  }
  const ids = await seedCompareBench(file, count ? Number(count) : 10);
  process.stdout.write(`${JSON.stringify(ids)}\n`);
}
