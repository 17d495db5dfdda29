// `tuning-bench sweep` and `find-batch`: a plan of configs run by the engine's queue, with a progress
// bar on stderr and the matrix at the end (stdout; with --json one object, as DESIGN's contract says).
import type { Core } from '../../core/createCore.js';
import type { MethodInput, Sweep } from '../../shared/api.js';
import { sweepRequest } from '../../shared/api.js';
import { UsageError } from '../errors.js';
import { parseVary as parseVaryText } from '../../shared/variables.js';
import { formatDuration } from '../format.js';
import { runSettingsText, withConfirmation, type GpuCliOptions } from './gpu.js';
import { contractClient, workloadNamed } from '../contract.js';
import { parseAssignments } from './run.js';

export interface SweepCommandOptions extends GpuCliOptions {
  workload?: string;
  set: string[];
  vary: string[];
  plan: string;
  repeats: number;
  maxSteps?: number;
  timeout?: number;
  waitIdle: boolean;
  maxWait: number;
  resume?: number;
  json: boolean;
  /** A typed command with {var} placeholders, instead of --workload. */
  commandArgs?: string[];
  cwd?: string;
  shell?: boolean;
  link?: string[];
  keepWorktrees?: boolean;
}

/** `batch=8,16,32` → { name: 'batch', values: ['8', '16', '32'] }; `amp=,--amp` sweeps a flag without, then with (the engine checks it is one). */
export function parseVary(text: string): { name: string; values: string[] } {
  const parsed = parseVaryText(text);
  if ('error' in parsed) throw new UsageError(`--vary ${parsed.error}`);
  return parsed;
}

async function requireWorkloadId(core: Core, name: string | undefined): Promise<number> {
  if (name === undefined) {
    throw new UsageError('a sweep needs --workload NAME, or a command after -- with {var} placeholders: `sweep --vary batch=4,12 -- python train.py --batch_size {batch}`');
  }
  return (await workloadNamed(core, name)).id;
}

/** A progress line: on a terminal redrawn in place, otherwise one line per change. */
function progressPrinter(json: boolean): { update(sweep: Sweep): void; end(): void } {
  const out = process.stderr;
  const tty = out.isTTY === true;
  let last = '';
  return {
    update(sweep) {
      const { done, total, current, etaSeconds, waiting } = sweep.progress;
      const width = 24;
      const filled = total === 0 ? 0 : Math.round((done / total) * width);
      const bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
      const eta = etaSeconds === null ? '' : `, ETA ${formatDuration(etaSeconds * 1000)}`;
      const now = waiting ?? (current ? `running ${current}` : sweep.status);
      const line = `sweep ${sweep.id} ${bar} ${done}/${total}${eta}  ${now}`;
      if (line === last) return;
      last = line;
      if (tty && !json) out.write(`\r\x1b[2K${line.slice(0, Math.max(20, (out.columns ?? 120) - 1))}`);
      else out.write(`${line}\n`);
    },
    end() {
      if (tty && !json && last !== '') out.write('\n');
    },
  };
}

function formatNumber(value: number | null, digits = 1): string {
  return value === null ? '-' : value.toFixed(digits);
}

export function formatSweepTable(sweep: Sweep): string {
  const baseline = sweep.configs[0]?.throughputMedian ?? null;
  const header = ['CONFIG', 'STATUS', 'RUNS', `THROUGHPUT${sweep.configs[0]?.throughputUnit ? ` (${sweep.configs[0].throughputUnit})` : ''}`, 'SPEEDUP', 'STEP MS', 'LOSS', 'VRAM MIB'];
  const rows = sweep.configs.map((config) => [
    config.name,
    config.status,
    String(config.runIds.length),
    formatNumber(config.throughputMedian),
    baseline !== null && config.throughputMedian !== null ? `${(config.throughputMedian / baseline).toFixed(2)}x` : '-',
    formatNumber(config.stepTimeMsMedian, 2),
    formatNumber(config.finalLossMedian, 3),
    formatNumber(config.vramPeakMiB, 0),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  const lines = [`sweep ${sweep.id} (${sweep.name}): ${sweep.status}, ${sweep.plan}, ${sweep.repeats} repeat${sweep.repeats === 1 ? '' : 's'}`, line(header), ...rows.map(line)];
  if (sweep.result) lines.push(sweep.result.message);
  if (sweep.error) lines.push(`error: ${sweep.error}`);
  return lines.join('\n');
}

/** Follows a sweep to its end: progress on stderr, Ctrl-C cancels it (the current run is stopped). */
export async function followSweep(core: Core, sweep: Sweep, json: boolean): Promise<Sweep> {
  const progress = progressPrinter(json);
  progress.update(sweep);
  const subscription = core.subscribe((event, payload) => {
    if (event === 'sweeps.onDidChange' && payload.id === sweep.id) progress.update(payload);
  });
  const onSignal = () => {
    process.stderr.write('\ncancelling the sweep (the current run is stopped)...\n');
    void contractClient(core)['sweeps.control']({ id: sweep.id, action: 'cancel' }).catch(() => undefined);
  };
  // A closed terminal (SIGHUP) cancels like Ctrl-C: the run stops cleanly and GPU settings are put back.
  const ignoreClosedTerminal = () => undefined;
  process.stderr.on('error', ignoreClosedTerminal);
  process.stdout.on('error', ignoreClosedTerminal);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
  try {
    const ended = await core.waitForSweepEnd(sweep.id);
    progress.update(ended);
    return ended;
  } finally {
    progress.end();
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(signal, onSignal);
    subscription.unsubscribe();
  }
}

export async function sweepCommand(core: Core, options: SweepCommandOptions): Promise<void> {
  let sweep: Sweep;
  if (options.resume !== undefined) {
    sweep = await contractClient(core)['sweeps.control']({ id: options.resume, action: 'resume' });
  } else {
    if (options.vary.length === 0) throw new UsageError('a sweep needs at least one --vary VAR=V1,V2');
    const typed = options.commandArgs ?? [];
    if (typed.length > 0 && options.workload !== undefined) throw new UsageError('give either --workload NAME or a COMMAND after --, not both');
    const source =
      typed.length > 0
        ? { command: { template: options.shell ? [typed.join(' ')] : typed, mode: options.shell ? 'shell' : 'argv', cwd: options.cwd ?? process.cwd() } }
        : { workloadId: await requireWorkloadId(core, options.workload) };
    const candidate = {
      ...source,
      links: options.link ?? [],
      keepWorktrees: options.keepWorktrees === true,
      values: parseAssignments(options.set),
      vary: options.vary.map(parseVary),
      plan: options.plan,
      repeats: options.repeats,
      maxSteps: options.maxSteps,
      timeoutSeconds: options.timeout,
      waitForIdle: options.waitIdle,
      maxWaitSeconds: options.maxWait,
      gpuSettings: runSettingsText(options),
      confirmOtherProcesses: false,
    };
    // Checked here too, so a bad flag is a usage error (exit 2) that names it; the engine checks it again.
    const parsed = sweepRequest.safeParse(candidate);
    if (!parsed.success) throw new UsageError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
    // The schema just accepted it, so it is the contract's input (the plan's name and mode were plain strings to the compiler).
    const input = candidate as MethodInput<'sweeps.start'>;
    sweep = await withConfirmation(options.yes === true, (confirm) => contractClient(core)['sweeps.start']({ ...input, confirmOtherProcesses: confirm }));
  }
  const ended = await followSweep(core, sweep, options.json);
  process.stdout.write(options.json ? `${JSON.stringify(sweepJson(ended), null, 2)}\n` : `${formatSweepTable(ended)}\n`);
  if (ended.status === 'failed') process.exitCode = 1;
}

/** DESIGN's `sweep --json`: each config with `name`, `config`, `runIds` and its pooled `summary`. */
export function sweepJson(sweep: Sweep): Record<string, unknown> {
  return {
    ...sweep,
    configs: sweep.configs.map((config) => ({
      ...config,
      config: config.values,
      summary: {
        throughput: { median: config.throughputMedian, unit: config.throughputUnit },
        stepTimeMs: { median: config.stepTimeMsMedian },
        finalLoss: config.finalLossMedian,
        vramPeakMiB: config.vramPeakMiB,
      },
    })),
  };
}

export interface FindBatchOptions {
  workload?: string;
  set: string[];
  variable: string;
  start: number;
  maxSteps: number;
  json: boolean;
}

export async function findBatchCommand(core: Core, options: FindBatchOptions): Promise<void> {
  const sweep = await contractClient(core)['sweeps.findBatch']({
    workloadId: await requireWorkloadId(core, options.workload),
    values: parseAssignments(options.set),
    variable: options.variable,
    start: options.start,
    maxSteps: options.maxSteps,
    timeoutSeconds: 300,
  });
  const ended = await followSweep(core, sweep, options.json);
  process.stdout.write(options.json ? `${JSON.stringify(sweepJson(ended), null, 2)}\n` : `${formatSweepTable(ended)}\n`);
  if (ended.status === 'failed' || ended.result?.largestFit === null) process.exitCode = 1;
}
