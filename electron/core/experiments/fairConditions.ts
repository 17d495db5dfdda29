// Fair conditions before each run of a sweep: the host quiet (others using less than half a core), the GPU idle
// (no other compute process, low utilisation) and cooled to near its idle temperature, each wait bounded and recorded.
import type { Run } from '../../shared/api.js';
import { runNvidiaSmi } from '../system/nvidiaSmi.js';
import { systemClock, type Clock } from '../clock.js';
import { readCpuTimes } from '../system/procfs.js';
import { otherCores, readSelfTicks } from '../telemetry/hostSampler.js';
import { hostBusyCores } from '../telemetry/fairness.js';
import { splitCsvLine } from '../telemetry/nvidiaSmi/csv.js';

export type RunWait = NonNullable<Run['wait']>;

export interface GpuReading {
  utilPercent: number | null;
  tempC: number | null;
  computeProcesses: number;
}

export type GpuReader = () => Promise<GpuReading | null>;

/** Utilisation at or below this is idle (a desktop compositor alone shows a few per cent). */
export const IDLE_UTIL_PERCENT = 10;
/** "Near its idle temperature": within this of the reading taken when the sweep began. */
export const COOL_MARGIN_C = 3;
/** A temperature that has not fallen by COOL_STEP_C in this long has settled: that is idle now. */
export const SETTLED_AFTER_MS = 30_000;
const COOL_STEP_C = 1;

/** One reading by two short queries: utilisation and temperature, then compute processes. */
export function nvidiaSmiReader(binary: string, gpu: string, env: Record<string, string>): GpuReader {
  return async () => {
    const query = await runNvidiaSmi(binary, ['--query-gpu=utilization.gpu,temperature.gpu', '--format=csv,noheader,nounits', '-i', gpu], env);
    if (query.code !== 0) return null;
    // Cells as the telemetry reads them ("[N/A]" and "[Not Supported]" read as no value).
    const [util, temp] = splitCsvLine(query.output.trim().split('\n')[0] ?? '').map((cell) => Number.parseFloat(cell));
    const apps = await runNvidiaSmi(binary, ['--query-compute-apps=pid', '--format=csv,noheader', '-i', gpu], env);
    const processes = apps.code === 0 ? apps.output.split('\n').filter((line) => /^\s*\d+\s*$/u.test(line)).length : 0;
    return {
      utilPercent: Number.isFinite(util) ? util! : null,
      tempC: Number.isFinite(temp) ? temp! : null,
      computeProcesses: processes,
    };
  };
}

export interface WaitOptions {
  read: GpuReader;
  /** The temperature the GPU had idle when the sweep began; null when it was busy then. */
  idleTempC: number | null;
  maxWaitMs: number;
  pollMs?: number;
  /** Stop waiting at once (the sweep was skipped past or cancelled). */
  cancelled: () => boolean;
  onWaiting: (what: string) => void;
  /** The wait is timed on its monotonic reading (the seconds waited are a duration, not a date) and its timers. */
  clock?: Clock;
}

/** Waits until the GPU is idle and cool, or the bound runs out; says what it waited for. */
export async function waitForFairConditions(options: WaitOptions): Promise<RunWait> {
  const clock = options.clock ?? systemClock;
  const now = () => clock.monotonicMs();
  const sleep = (ms: number) => new Promise<void>((resolve) => clock.setTimeout(resolve, ms));
  const pollMs = options.pollMs ?? 1000;
  const started = now();
  const first = await options.read();
  if (first === null) return { seconds: 0, reason: 'no-gpu', host: null, startTempC: null, endTempC: null, targetTempC: null, busyProcesses: 0 };
  const target = options.idleTempC === null ? null : options.idleTempC + COOL_MARGIN_C;
  let reading = first;
  // The lowest temperature seen, and when it was last lowered: a plateau means "as cool as it gets".
  let lowest = first.tempC;
  let lowestAt = started;
  for (;;) {
    const busy = reading.computeProcesses > 0 || (reading.utilPercent !== null && reading.utilPercent > IDLE_UTIL_PERCENT);
    const cool = reading.tempC === null || target === null || reading.tempC <= target;
    const settled = reading.tempC !== null && now() - lowestAt >= SETTLED_AFTER_MS;
    const elapsed = now() - started;
    const result = (reason: RunWait['reason']): RunWait => ({
      seconds: elapsed / 1000,
      reason,
      host: null,
      startTempC: first.tempC,
      endTempC: reading.tempC,
      targetTempC: target,
      busyProcesses: reading.computeProcesses,
    });
    if (!busy && (cool || settled)) return result('ready');
    if (elapsed >= options.maxWaitMs || options.cancelled()) return result('timeout');
    options.onWaiting(
      busy
        ? `waiting for the GPU to be idle (${reading.computeProcesses} other compute process${reading.computeProcesses === 1 ? '' : 'es'}, ${reading.utilPercent ?? '?'} % busy)`
        : `waiting for the GPU to cool: ${reading.tempC} °C, target ${target} °C`,
    );
    await sleep(Math.min(pollMs, Math.max(0, options.maxWaitMs - elapsed)));
    const next = await options.read();
    if (next === null) return { ...result('no-gpu'), seconds: (now() - started) / 1000 };
    reading = next;
    if (reading.tempC !== null && (lowest === null || reading.tempC <= lowest - COOL_STEP_C)) {
      lowest = reading.tempC;
      lowestAt = now();
    }
  }
}

export type HostWait = NonNullable<RunWait['host']>;

/** Cores other processes use now, measured over a short window; null where /proc cannot be read. */
export type HostReader = () => Promise<number | null>;

/** How long one reading of the host's load looks: long enough for a 100 Hz tick count to mean something. */
export const HOST_READING_MS = 1000;

/** One reading from /proc: the machine's busy time less this process's, over HOST_READING_MS of `clock`. */
export function procHostReader(clock: Clock = systemClock): HostReader {
  return async () => {
    try {
      const before = readCpuTimes();
      const selfBefore = readSelfTicks();
      const started = clock.monotonicMs();
      await new Promise<void>((resolve) => clock.setTimeout(resolve, HOST_READING_MS));
      const seconds = (clock.monotonicMs() - started) / 1000;
      return seconds > 0 ? otherCores(before, readCpuTimes(), readSelfTicks() - selfBefore, seconds) : null;
    } catch {
      return null; // no /proc (not Linux): nothing to wait for
    }
  };
}

export interface HostWaitOptions {
  read: HostReader;
  /** Cores of the machine: busy from min(0.5, a quarter of them), as the fairness check says. */
  cores: number;
  maxWaitMs: number;
  cancelled: () => boolean;
  onWaiting: (what: string) => void;
  clock?: Clock;
}

/** Waits until other processes use less than the host-busy limit, or the bound runs out; says what it saw. */
export async function waitForQuietHost(options: HostWaitOptions): Promise<HostWait> {
  const clock = options.clock ?? systemClock;
  const started = clock.monotonicMs();
  const limit = hostBusyCores(options.cores);
  for (;;) {
    const others = await options.read();
    const seconds = (clock.monotonicMs() - started) / 1000;
    if (others === null || others < limit) return { reason: 'ready', seconds, otherCpuCores: others };
    if (clock.monotonicMs() - started >= options.maxWaitMs || options.cancelled()) return { reason: 'timeout', seconds, otherCpuCores: others };
    options.onWaiting(`waiting for a quiet host: other processes use ${others.toFixed(2)} CPU cores (quiet below ${limit})`);
  }
}
