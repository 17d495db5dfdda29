// `tuning-bench sweep` and `find-batch`: a plan of configs run by the engine's queue, with a progress
// bar on stderr and the matrix at the end (stdout; with --json one object, as DESIGN's contract says).
import type { Core } from '../../core/createCore.js';
import type { Comparison, MethodInput, Sweep } from '../../shared/api.js';
import { qualityGate, sweepRequest, sweepVariableName } from '../../shared/api.js';
import { checkKnob, knobOfVariable } from '../../shared/knobs.js';
import { UsageError } from '../errors.js';
import { parseVary as parseVaryText } from '../../shared/variables.js';
import { formatDuration } from '../format.js';
import { runSettingsText, withConfirmation, type GpuCliOptions } from './gpu.js';
import { contractClient, workloadNamed } from '../contract.js';
import { parseAssignments } from './run.js';
import { stepChoicesFrom } from './steps.js';
import { StopSignals } from '../stopSignals.js';

export interface SweepCommandOptions extends GpuCliOptions {
  workload?: string;
  set: string[];
  vary: string[];
  plan: string;
  repeats: number;
  maxSteps?: number;
  /** With maxSteps: each run goes on past the count until its logged steps span this long. */
  minSeconds?: number;
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
  tokensPerStep?: string;
  samplesPerStep?: string;
  minEffect?: number;
  warmupSteps?: string;
  excludeSteps?: string;
}

/** `batch=8,16,32` → { name: 'batch', values: ['8', '16', '32'] }; `amp=,--amp` sweeps a flag without, then with (the engine checks it is one). */
export function parseVary(text: string): { name: string; values: string[] } {
  const parsed = parseVaryText(text);
  if ('error' in parsed) throw new UsageError(`--vary ${parsed.error}`);
  const named = sweepVariableName.safeParse(parsed.name);
  if (!named.success) throw new UsageError(`--vary ${parsed.name}: ${named.error.issues.map((issue) => issue.message).join('; ')}`);
  const knob = knobOfVariable(parsed.name);
  for (const value of knob === null ? [] : parsed.values) {
    const checked = checkKnob(knob!, value);
    if (!checked.ok) throw new UsageError(`--vary knob.${checked.error}`);
  }
  return parsed;
}

async function requireWorkloadId(core: Core, name: string | undefined): Promise<number> {
  if (name === undefined) {
    throw new UsageError(
      'a sweep needs --workload NAME, or a command after -- with {var} placeholders: `sweep --vary batch=4,12 -- python train.py --batch_size {batch}`',
    );
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
      const failed = sweep.progress.failed > 0 ? `, ${sweep.progress.failed} failed` : '';
      const line = `sweep ${sweep.id} ${bar} ${done}/${total}${failed}${eta}  ${now}`;
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

/** Three significant figures, trailing zeros kept: 1.16, 0.845, 1.50. */
function figure3(value: number): string {
  return value.toLocaleString('en-US', { minimumSignificantDigits: 3, maximumSignificantDigits: 3, useGrouping: false });
}

/** The sweep's matrix; with its comparison, each config's speedup with its 95 % interval and verdict. */
export function formatSweepTable(sweep: Sweep, comparison: Comparison | null = null): string {
  const rowOf = (index: number) => comparison?.rows.find((r) => r.configIndex === index && r.sweepId === sweep.id) ?? null;
  const unit = comparison?.rows.find((r) => r.throughput.unit)?.throughput.unit ?? sweep.configs[0]?.throughputUnit ?? null;
  const header = ['CONFIG', 'STATUS', 'RUNS', `THROUGHPUT${unit ? ` (${unit})` : ''}`, 'SPEEDUP (95 % CI)', 'VERDICT', 'STEP MS', 'LOSS', 'VRAM MIB'];
  const baseline = sweep.configs[0]?.throughputMedian ?? null;
  const rows = sweep.configs.map((config) => {
    const row = rowOf(config.index);
    const throughput = row ? row.throughput.median : config.throughputMedian;
    let speedup = '-';
    let verdict = '';
    if (row) {
      const ratio = row.speedup.ratio;
      speedup = ratio === null ? '-' : `${figure3(ratio)}x${row.speedup.ci95 ? ` (${figure3(row.speedup.ci95.low)}-${figure3(row.speedup.ci95.high)})` : ''}`;
      verdict =
        (row.speedup.verdict === 'unknown' ? 'no speedup' : row.speedup.verdict) +
        (row.best ? ' ★' : '') +
        (row.fairness.length > 0 ? ` ⚠ ${row.fairness.map((f) => f.kind).join(', ')}` : '');
    } else if (baseline !== null && config.throughputMedian !== null) {
      speedup = `${figure3(config.throughputMedian / baseline)}x`;
    }
    return [
      config.name,
      config.status,
      String(config.runIds.length),
      throughput === null ? '-' : throughput.toLocaleString('en-US', { maximumSignificantDigits: 4 }),
      speedup,
      verdict,
      formatNumber(config.stepTimeMsMedian, 2),
      formatNumber(config.finalLossMedian, 3),
      formatNumber(config.vramPeakMiB, 0),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const lines = [
    `sweep ${sweep.id} (${sweep.name}): ${sweep.status}, ${sweep.plan}, ${sweep.repeats} repeat${sweep.repeats === 1 ? '' : 's'}`,
    line(header),
    ...rows.map(line),
  ];
  for (const config of sweep.configs) {
    if (!config.failure) continue;
    lines.push(`${config.name}: run ${config.failure.runId} failed: ${config.failure.reason}`);
    if (config.failure.hint) lines.push(`  hint: ${config.failure.hint}`);
  }
  // Why a row has no speedup, or what would decide it: the verdict's own words.
  for (const config of sweep.configs) {
    const row = rowOf(config.index);
    if (row && !row.isBaseline && row.speedup.verdict !== 'faster' && row.speedup.verdict !== 'slower' && row.speedup.reason)
      lines.push(`  ${config.name}: ${row.speedup.reason}`);
  }
  if (comparison)
    lines.push(
      `Speedup: ratio of geometric means with a 95 % t-interval over runs; "same" inside ±${Number((comparison.minEffect * 100).toPrecision(3))} %. \`tuning-bench compare s${sweep.id}\` for the whole table.`,
    );
  if (sweep.result) lines.push(sweep.result.message);
  if (sweep.endedNote) lines.push(sweep.endedNote);
  if (sweep.error) lines.push(`error: ${sweep.error}`);
  return lines.join('\n');
}

/**
 * Follows a sweep to its end: progress on stderr; Ctrl-C, SIGTERM or a closed terminal (SIGHUP) cancels it (the
 * current run stops cleanly, GPU settings are put back). `stops` listened since before the sweep was started: a
 * signal that came while it was being started (its GPU settings applied) cancels it as soon as it exists.
 */
export async function followSweep(core: Core, sweep: Sweep, json: boolean, stops: StopSignals): Promise<Sweep> {
  const progress = progressPrinter(json);
  progress.update(sweep);
  const subscription = core.subscribe((event, payload) => {
    if (event === 'sweeps.onDidChange' && payload.id === sweep.id) progress.update(payload);
  });
  const ignoreClosedTerminal = () => undefined;
  process.stderr.on('error', ignoreClosedTerminal);
  process.stdout.on('error', ignoreClosedTerminal);
  stops.onStop(() => {
    process.stderr.write('\ncancelling the sweep (the current run is stopped)...\n');
    const client = contractClient(core);
    void client['sweeps.control']({ id: sweep.id, action: 'cancel' }).catch(() => undefined);
  });
  try {
    const ended = await core.waitForSweepEnd(sweep.id);
    progress.update(ended);
    return ended;
  } finally {
    progress.end();
    subscription.unsubscribe();
  }
}

/** Listens for stop signals from before the sweep is started to its end. */
async function withStopSignals<T>(work: (stops: StopSignals) => Promise<T>): Promise<T> {
  const stops = new StopSignals();
  try {
    return await work(stops);
  } finally {
    stops.dispose();
  }
}

export function sweepCommand(core: Core, options: SweepCommandOptions): Promise<void> {
  return withStopSignals((stops) => startAndFollowSweep(core, options, stops));
}

async function startAndFollowSweep(core: Core, options: SweepCommandOptions, stops: StopSignals): Promise<void> {
  let sweep: Sweep;
  if (options.resume !== undefined) {
    sweep = await contractClient(core)['sweeps.control']({ id: options.resume, action: 'resume' });
  } else {
    if (options.vary.length === 0) throw new UsageError('a sweep needs at least one --vary VAR=V1,V2');
    if (options.minSeconds !== undefined && options.maxSteps === undefined) {
      throw new UsageError('--min-seconds stretches a step limit: give --max-steps N with it (e.g. --max-steps 30 --min-seconds 5)');
    }
    if (options.tokensPerStep !== undefined && options.samplesPerStep !== undefined)
      throw new UsageError('give --tokens-per-step or --samples-per-step, not both');
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
      ...(options.minSeconds === undefined ? {} : { minStepSeconds: options.minSeconds }),
      timeoutSeconds: options.timeout,
      waitForIdle: options.waitIdle,
      maxWaitSeconds: options.maxWait,
      ...(options.tokensPerStep === undefined ? {} : { tokensPerStep: options.tokensPerStep }),
      ...(options.samplesPerStep === undefined ? {} : { samplesPerStep: options.samplesPerStep }),
      ...(options.minEffect === undefined ? {} : { minEffect: options.minEffect }),
      ...(stepChoicesFrom(options) === undefined ? {} : { steps: stepChoicesFrom(options) }),
      gpuSettings: runSettingsText(options),
      confirmOtherProcesses: false,
    };
    // Checked here too, so a bad flag is a usage error (exit 2) that names it; the engine checks it again.
    const parsed = sweepRequest.safeParse(candidate);
    if (!parsed.success) throw new UsageError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
    // The schema just accepted it, so it is the contract's input (the plan's name and mode were plain strings to the compiler).
    const input = candidate as MethodInput<'sweeps.start'>;
    if (input.command && input.vary.some((v) => v.name === 'git')) await sayUnlinkedData(core, input.command.cwd, input.links ?? []);
    sweep = await withConfirmation(options.yes === true, (confirm) => contractClient(core)['sweeps.start']({ ...input, confirmOtherProcesses: confirm }));
  }
  const ended = await followSweep(core, sweep, options.json, stops);
  const comparison = await sweepComparison(core, ended);
  process.stdout.write(options.json ? `${JSON.stringify(sweepJson(ended, comparison), null, 2)}\n` : `${formatSweepTable(ended, comparison)}\n`);
  if (ended.status === 'failed') process.exitCode = 1;
}

const OFFER_KINDS = { ignored: 'ignored', untracked: 'untracked', 'inside-tracked': 'ignored files inside a tracked directory' } as const;

/** Before a git sweep: the likely data git does not track that no --link names (each worktree will lack it). */
async function sayUnlinkedData(core: Core, cwd: string, links: readonly string[]): Promise<void> {
  let offers;
  try {
    offers = (await contractClient(core)['git.revisions']({ cwd, limit: 1 })).untracked;
  } catch {
    return; // Not a repository: the sweep's start says so.
  }
  const covered = (offer: string) => {
    const top = offer.replace(/\/$/u, '');
    return links.some((link) => {
      const bare = link.replace(/^\.\//u, '').replace(/\/+$/u, '');
      return bare === top || bare.startsWith(`${top}/`) || top.startsWith(`${bare}/`);
    });
  };
  const missing = offers.filter((offer) => offer.suggested && !covered(offer.path));
  if (missing.length === 0) return;
  process.stderr.write(
    `not linked: ${missing.map((offer) => `${offer.path} (${OFFER_KINDS[offer.kind]})`).join(', ')}: ` +
      `each revision's worktree lacks what git does not track; if the script reads it, give --link ${missing[0]!.path.replace(/\/$/u, '')}\n`,
  );
}

/** The finished sweep compared as `compare` would (its first config the baseline); null when nothing ran. */
async function sweepComparison(core: Core, sweep: Sweep): Promise<Comparison | null> {
  if (!sweep.configs.some((c) => c.runIds.length > 0)) return null;
  const minEffect = typeof sweep.request.minEffect === 'number' ? sweep.request.minEffect : undefined;
  try {
    return await contractClient(core)['compare.runs']({
      sweepIds: [sweep.id],
      runIds: [],
      groupBy: 'config',
      gate: qualityGate.parse({}),
      ...(minEffect === undefined ? {} : { minEffect }),
    });
  } catch {
    return null; // no finished run to compare: the matrix alone says what happened
  }
}

/** DESIGN's `sweep --json`: each config with `name`, `config`, `runIds`, its pooled `summary` and its verdict against the baseline. */
export function sweepJson(sweep: Sweep, comparison: Comparison | null = null): Record<string, unknown> {
  return {
    ...sweep,
    configs: sweep.configs.map((config) => {
      const row = comparison?.rows.find((r) => r.configIndex === config.index && r.sweepId === sweep.id);
      return {
        ...config,
        config: config.values,
        summary: {
          throughput: { median: config.throughputMedian, unit: config.throughputUnit },
          stepTimeMs: { median: config.stepTimeMsMedian },
          finalLoss: config.finalLossMedian,
          vramPeakMiB: config.vramPeakMiB,
        },
        vs_baseline: row
          ? {
              speedup: row.speedup.ratio,
              speedup_ci95: row.speedup.ci95,
              verdict: row.speedup.verdict,
              verdict_reason: row.speedup.reason,
              n: row.n,
              unit: row.throughput.unit,
              best: row.best,
              fairness: row.fairness,
            }
          : null,
      };
    }),
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

export function findBatchCommand(core: Core, options: FindBatchOptions): Promise<void> {
  return withStopSignals((stops) => findBatch(core, options, stops));
}

async function findBatch(core: Core, options: FindBatchOptions, stops: StopSignals): Promise<void> {
  const sweep = await contractClient(core)['sweeps.findBatch']({
    workloadId: await requireWorkloadId(core, options.workload),
    values: parseAssignments(options.set),
    variable: options.variable,
    start: options.start,
    maxSteps: options.maxSteps,
    timeoutSeconds: 300,
  });
  const ended = await followSweep(core, sweep, options.json, stops);
  process.stdout.write(options.json ? `${JSON.stringify(sweepJson(ended), null, 2)}\n` : `${formatSweepTable(ended)}\n`);
  if (ended.status === 'failed' || ended.result?.largestFit === null) process.exitCode = 1;
}
