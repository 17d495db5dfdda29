// The engine's settings from its options and environment, read and checked once before anything opens.
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_HELPER_PATH, type ElevationSetting } from '../gpu-control/elevation.js';
import { defaultDatabasePath, defaultResourcesDir, whereThePersonStands } from '../paths.js';
import { resolveCommand } from '../system/resolveCommand.js';
import { DEFAULT_HOST_INTERVAL_MS } from '../telemetry/hostSampler.js';
import { DEFAULT_GPU_INTERVAL_MS } from '../telemetry/nvidiaSmiSampler.js';
import type { CoreOptions } from './core.js';

export interface EngineConfig {
  readonly face: CoreOptions['face'];
  readonly dbPath: string;
  /** Beside the database: each profile's folder, the runs' channel files, worktrees of sweeps and re-runs. */
  readonly dataDir: string;
  /** Each sweep's `git=` worktrees, and the worktree a side is made again in to profile or run it again. */
  readonly worktreeDir: string;
  readonly resourcesDir: string;
  readonly version: string;
  /** Where the person stood when they started the engine (npm's INIT_CWD under `npm run serve`): a typed command's default directory. */
  readonly startedIn: string;
  readonly intervals: { readonly gpuMs: number; readonly hostMs: number };
  /** The GPU the engine samples, controls and waits for (nvidia-smi's -i). */
  readonly gpuIndex: string;
  readonly elevation: ElevationSetting;
  readonly gpuHelperPath: string;
  /** nvidia-smi on PATH, or the one TUNING_BENCH_NVIDIA_SMI names; null: no GPU tools, host telemetry only. */
  readonly nvidiaSmi: string | null;
  /** The environment children (runs, git, nvidia-smi) start from, without unset entries. */
  readonly childEnv: Record<string, string>;
  /** The whole environment, for MLflow's own settings (tracking URI, credentials), which publish/ reads. */
  readonly env: NodeJS.ProcessEnv;
  readonly node: { readonly path: string; readonly env: Record<string, string> };
}

const ELEVATION_SETTINGS: readonly ElevationSetting[] = ['auto', 'root', 'sudo', 'pkexec', 'manual'];

/** Sampling faster than 50 ms would cost more than it shows; slower than a minute shows nothing. */
const MIN_INTERVAL_MS = 50;
const MAX_INTERVAL_MS = 60_000;

/** Throws on a bad setting, saying which and what it takes: nothing has been opened yet, so nothing is left behind. */
export function readEngineConfig(options: CoreOptions): EngineConfig {
  const env = options.env ?? process.env;
  const dbPath = options.dbPath ?? defaultDatabasePath(env);
  const resourcesDir = options.resourcesDir ?? defaultResourcesDir();
  const elevation = (env.TUNING_BENCH_GPU_ELEVATION || 'auto') as ElevationSetting;
  if (!ELEVATION_SETTINGS.includes(elevation)) {
    throw new Error(`TUNING_BENCH_GPU_ELEVATION is one of ${ELEVATION_SETTINGS.join(', ')}, got "${elevation}"`);
  }
  return {
    face: options.face,
    dbPath,
    dataDir: path.dirname(dbPath),
    worktreeDir: path.join(path.dirname(dbPath), 'worktrees'),
    resourcesDir,
    version: options.version ?? readPackageVersion(resourcesDir),
    startedIn: whereThePersonStands(env),
    intervals: {
      gpuMs: intervalFromEnv(env.TUNING_BENCH_GPU_INTERVAL_MS, DEFAULT_GPU_INTERVAL_MS),
      hostMs: intervalFromEnv(env.TUNING_BENCH_HOST_INTERVAL_MS, DEFAULT_HOST_INTERVAL_MS),
    },
    gpuIndex: env.TUNING_BENCH_GPU ?? '0',
    elevation,
    gpuHelperPath: env.TUNING_BENCH_GPU_HELPER || DEFAULT_HELPER_PATH,
    nvidiaSmi: nvidiaSmiBinary(env),
    childEnv: stringEnv(env),
    env,
    node: { path: options.nodePath ?? process.execPath, env: options.nodeEnv ?? {} },
  };
}

/** A TUNING_BENCH_NVIDIA_SMI that names no file means no GPU tools, said as such (not "exited 1"). */
function nvidiaSmiBinary(env: NodeJS.ProcessEnv): string | null {
  if (!env.TUNING_BENCH_NVIDIA_SMI) return resolveCommand('nvidia-smi', process.cwd(), env.PATH);
  const named = path.resolve(env.TUNING_BENCH_NVIDIA_SMI);
  return fs.existsSync(named) ? named : null;
}

function intervalFromEnv(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < MIN_INTERVAL_MS || ms > MAX_INTERVAL_MS) {
    throw new Error(`a sampling interval is a whole number of milliseconds from ${MIN_INTERVAL_MS} to ${MAX_INTERVAL_MS}, got "${value}"`);
  }
  return ms;
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) result[key] = value;
  return result;
}

function readPackageVersion(resourcesDir: string): string {
  try {
    const pkg = JSON.parse(fs.readFileSync(`${resourcesDir}/../package.json`, 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
