// NvidiaSmiSampler: ONE long-lived `nvidia-smi --query-gpu ... -lms N` child per run, parsed line by line,
// watched by a watchdog that restarts it with backoff; faults become status messages, never a failed run.
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import {
  classifyNvidiaSmiMessage,
  parseComputeApps,
  parseQueryGpuLine,
  queryArgument,
  resolveFields,
  type GpuSample,
  type ResolvedFields,
} from './nvidiaSmi/index.js';
import { runNvidiaSmi } from '../system/nvidiaSmi.js';
import { processTree } from '../system/procfs.js';
import { systemClock, type Clock, type Timer } from '../clock.js';

/** DESIGN: GPU telemetry every 250 ms by default. */
export const DEFAULT_GPU_INTERVAL_MS = 250;
/** No line for this many intervals (and at least WATCHDOG_MIN_MS) means the child hangs. */
const WATCHDOG_INTERVALS = 8;
const WATCHDOG_MIN_MS = 3000;
/**
 * A fresh child may be silent this long before its first line: with persistence mode off on a headless box the
 * driver initialises first, which takes seconds (issue 26 saw every restart killed inside 3 s, so no telemetry
 * at all); 20 s leaves room for several GPUs without hiding a hang for long.
 */
const FIRST_LINE_ALLOWANCE_MS = 20_000;
/** Restarts back off from 1 s to 30 s. */
const BACKOFF_START_MS = 1000;
const BACKOFF_MAX_MS = 30_000;

export interface TimedGpuSample extends GpuSample {
  tMs: number;
  /** GPU memory held by the run's own processes (from --query-compute-apps), when known. */
  runVramMiB?: number | null;
  /** Compute processes on the GPU that are not the run's (from the same query), when known. */
  otherComputeApps?: number | null;
}

/** DESIGN: per-process GPU memory once a second (a short query of its own; the sample loop stays one child). */
const COMPUTE_APPS_INTERVAL_MS = 1000;

export type TelemetryStatusLevel = 'info' | 'warning' | 'error';

export interface NvidiaSmiSamplerOptions {
  binary: string;
  /** Index or UUID, as `-i` takes it. */
  gpu: string;
  intervalMs: number;
  env: Record<string, string>;
  startedAtMs: number;
  /** The run's first process: its descendants' GPU memory is the run's. */
  rootPid?: number;
  onSample: (sample: TimedGpuSample) => void;
  onStatus: (level: TelemetryStatusLevel, message: string) => void;
  /** `startedAtMs` is on its wall reading; the watchdog and the restart backoff run on its monotonic one. */
  clock?: Clock;
}

const fieldCache = new Map<string, Promise<ResolvedFields>>();

/** The driver's field names, read once per binary: drivers rename fields (throttle → event reasons). */
export function driverFields(binary: string, env: Record<string, string>): Promise<ResolvedFields> {
  let fields = fieldCache.get(binary);
  if (!fields) {
    fields = runNvidiaSmi(binary, ['--help-query-gpu'], env).then(({ code, output }) => {
      const message = classifyNvidiaSmiMessage(output);
      if (code !== 0 || message?.kind === 'no-driver') throw new Error(message?.line ?? `nvidia-smi --help-query-gpu exited ${code}`);
      return resolveFields(output);
    });
    fieldCache.set(binary, fields);
    fields.catch(() => fieldCache.delete(binary));
  }
  return fields;
}

export class NvidiaSmiSampler {
  private child: ChildProcess | null = null;
  private fields: ResolvedFields | null = null;
  private readonly clock: Clock;
  private watchdog: Timer | null = null;
  private restartTimer: Timer | null = null;
  private backoffMs = BACKOFF_START_MS;
  /** Monotonic: when the child last printed a line (or was started). */
  private lastLineAt = 0;
  /** The current child has not printed a line yet: it gets FIRST_LINE_ALLOWANCE_MS, not the watchdog's limit. */
  private awaitingFirstLine = false;
  /** The slow start was said once; a restart does not say it again. */
  private saidSlowStart = false;
  private closed = false;
  private reportedGarbage = false;
  private appsTimer: Timer | null = null;
  private appsQueryRunning = false;
  private runVramMiB: number | null = null;
  private otherComputeApps: number | null = null;

  constructor(private readonly options: NvidiaSmiSamplerOptions) {
    this.clock = options.clock ?? systemClock;
    void this.start();
  }

  close(): void {
    this.closed = true;
    this.appsTimer?.cancel();
    this.watchdog?.cancel();
    this.restartTimer?.cancel();
    this.stopChild();
  }

  private async start(): Promise<void> {
    try {
      this.fields ??= await driverFields(this.options.binary, this.options.env);
    } catch (error) {
      this.options.onStatus('error', `GPU telemetry unavailable: ${(error as Error).message}`);
      this.scheduleRestart();
      return;
    }
    if (this.closed) return;
    // No driver captured so far offers an energy counter; its absence is the rule, not news.
    const missing = this.fields.missing.filter((key) => key !== 'energyMJ');
    if (missing.length > 0) this.options.onStatus('info', `this driver does not report: ${missing.join(', ')}`);
    this.spawnChild(this.fields);
    if (this.options.rootPid !== undefined && !this.appsTimer) {
      this.appsTimer = this.clock.setInterval(() => void this.queryComputeApps(this.options.rootPid!), COMPUTE_APPS_INTERVAL_MS, { background: true });
    }
  }

  private async queryComputeApps(rootPid: number): Promise<void> {
    if (this.appsQueryRunning || this.closed) return;
    this.appsQueryRunning = true;
    try {
      const { code, output } = await runNvidiaSmi(
        this.options.binary,
        ['--query-compute-apps=pid,used_memory', '--format=csv,noheader,nounits', '-i', this.options.gpu],
        this.options.env,
      );
      if (code !== 0) return;
      const ours = new Set(processTree(rootPid));
      const all = parseComputeApps(output).apps;
      const apps = all.filter((app) => ours.has(app.pid));
      this.otherComputeApps = all.length - apps.length;
      const known = apps.map((app) => app.usedMemoryMiB).filter((v): v is number => v !== null);
      this.runVramMiB = known.length > 0 ? known.reduce((a, b) => a + b, 0) : apps.length > 0 ? null : 0;
    } finally {
      this.appsQueryRunning = false;
    }
  }

  private spawnChild(fields: ResolvedFields): void {
    const args = [`--query-gpu=${queryArgument(fields)}`, '--format=csv,noheader,nounits', '-lms', String(this.options.intervalMs), '-i', this.options.gpu];
    const child = spawn(this.options.binary, args, { env: this.options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.lastLineAt = this.clock.monotonicMs();
    this.awaitingFirstLine = true;
    child.on('error', (error) => this.options.onStatus('error', `nvidia-smi could not start: ${error.message}`));
    const lines = readline.createInterface({ input: child.stdout! });
    lines.on('line', (line) => this.onLine(line, fields));
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4096)));
    child.once('exit', (code, signal) => {
      if (this.child !== child) return;
      this.child = null;
      if (this.closed) return;
      const said = classifyNvidiaSmiMessage(stderr);
      this.options.onStatus('warning', `nvidia-smi stopped (${signal ?? `exit ${code}`})${said ? `: ${said.line}` : ''}; restarting`);
      this.scheduleRestart();
    });
    this.watchdog ??= this.clock.setInterval(() => this.checkWatchdog(), Math.max(this.options.intervalMs, 500), { background: true });
  }

  private onLine(line: string, fields: ResolvedFields): void {
    // Lines already in the pipe when the child was killed still arrive; after close() nothing may reach the run.
    if (this.closed) return;
    this.lastLineAt = this.clock.monotonicMs();
    this.awaitingFirstLine = false;
    const result = parseQueryGpuLine(line, fields);
    if (!result.ok) {
      if (result.error.kind === 'empty') return;
      if (result.error.kind === 'message') {
        this.options.onStatus('error', `nvidia-smi: ${result.error.nvidiaSmi?.line ?? result.error.message}`);
      } else if (!this.reportedGarbage) {
        this.reportedGarbage = true;
        this.options.onStatus('warning', `nvidia-smi printed a line that is not a sample, skipped: ${result.error.line}`);
      }
      return;
    }
    this.backoffMs = BACKOFF_START_MS;
    if (result.sample.gpuLost) this.options.onStatus('error', 'nvidia-smi says the GPU is lost (it needs a reset or a reboot)');
    this.options.onSample({
      ...result.sample,
      tMs: this.clock.wallMs() - this.options.startedAtMs,
      runVramMiB: this.runVramMiB,
      otherComputeApps: this.otherComputeApps,
    });
  }

  private checkWatchdog(): void {
    if (!this.child || this.closed) return;
    const limit = Math.max(WATCHDOG_MIN_MS, WATCHDOG_INTERVALS * this.options.intervalMs);
    const silentMs = this.clock.monotonicMs() - this.lastLineAt;
    if (silentMs < limit) return;
    if (this.awaitingFirstLine) {
      const allowanceMs = Math.max(limit, FIRST_LINE_ALLOWANCE_MS);
      if (silentMs < allowanceMs) {
        if (!this.saidSlowStart) {
          this.saidSlowStart = true;
          this.options.onStatus(
            'info',
            `nvidia-smi has printed no sample yet ${Math.round(silentMs / 1000)} s after it started (the driver may be initialising: ` +
              `persistence mode off makes that slow); waiting up to ${Math.round(allowanceMs / 1000)} s`,
          );
        }
        return;
      }
      this.options.onStatus('warning', `nvidia-smi printed no sample in the ${Math.round(allowanceMs / 1000)} s after it started; restarting it`);
      this.stopChild();
      this.scheduleRestart();
      return;
    }
    this.options.onStatus('warning', `nvidia-smi sent nothing for ${Math.round(limit / 1000)} s; restarting it`);
    this.stopChild();
    this.scheduleRestart();
  }

  private stopChild(): void {
    const child = this.child;
    this.child = null;
    child?.kill('SIGKILL');
  }

  private scheduleRestart(): void {
    if (this.closed || this.restartTimer) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(BACKOFF_MAX_MS, this.backoffMs * 2);
    this.restartTimer = this.clock.setTimeout(
      () => {
        this.restartTimer = null;
        void this.start();
      },
      delay,
      { background: true },
    );
  }
}
