// `tuning-bench tune -- CMD`: the knobs' ladder on an unmodified script; progress on stderr, the table, the total and the changes to make on stdout (--json: one object).
import fs from 'node:fs';
import path from 'node:path';
import type { Core } from '../../core/createCore.js';
import type { TuneRecord, TuneResult, TuneStepName } from '../../shared/api.js';
import { tuneRequest, TUNE_STEPS } from '../../shared/api.js';
import { confidenceText } from '../../shared/confidenceText.js';
import { UsageError } from '../errors.js';
import { parseAssignments } from './run.js';
import { StopSignals } from '../stopSignals.js';

export interface TuneCommandOptions {
  commandArgs: string[];
  cwd?: string;
  shell?: boolean;
  only?: string;
  workers?: number;
  autocast?: string;
  threads?: number;
  /** `--set VAR=VALUE`: the command's placeholders (the batch's is the batch it runs at now). */
  set?: string[];
  batchVar?: string;
  samplesPerStep?: string;
  tokensPerStep?: string;
  maxSteps?: number;
  minSeconds?: number;
  timeout?: number;
  repeats?: number;
  maxRepeats?: number;
  minEffect?: number;
  waitIdle: boolean;
  maxWait?: number;
  json: boolean;
  /** A stopped tune to go on with, instead of a command. */
  resume?: number;
  /** A kept tune to print, instead of running one. */
  show?: number;
  /** Where to write the tune as a report (.md or .html). */
  out?: string;
}

/** The report's format from the file's extension: a typo is told before anything runs. */
function reportFormat(file: string): 'md' | 'html' {
  const extension = path.extname(file).toLowerCase();
  if (extension === '.md' || extension === '.markdown') return 'md';
  if (extension === '.html' || extension === '.htm') return 'html';
  throw new UsageError(`--out ${file}: the report is Markdown (.md) or HTML (.html); name the file with one of those`);
}

/** Writes the tune's report where --out says, and says so on stderr. */
function writeReport(core: Core, id: number, file: string): void {
  const report = core.tunes.export(id, reportFormat(file));
  fs.writeFileSync(file, report.content);
  process.stderr.write(`tune ${id}: report written to ${path.resolve(file)}\n`);
}

/** Three significant figures, trailing zeros kept: 1.16, 0.845, 1.50. */
function figure3(value: number): string {
  return value.toLocaleString('en-US', { minimumSignificantDigits: 3, maximumSignificantDigits: 3, useGrouping: false });
}

function speedupText(ratio: number | null, ci95: { low: number; high: number } | null): string {
  if (ratio === null) return '-';
  return `${figure3(ratio)}x${ci95 ? ` (${figure3(ci95.low)}-${figure3(ci95.high)})` : ''}`;
}

/** The ladder's table, the total, what was not tried, and how to make each kept knob permanent. */
export function formatTuneResult(result: TuneResult): string {
  const unit = result.steps.find((s) => s.throughput.unit)?.throughput.unit ?? null;
  const header = [
    'CONFIG',
    `THROUGHPUT${unit ? ` (${unit}, 95 % CI)` : ''}`,
    `SPEEDUP (${confidenceText(result.confidence)} CI)`,
    'VERDICT',
    'RUNS',
    'STEP MS',
    'LOSS',
    'VRAM MIB',
    'GATE',
    'KEPT',
  ];
  const rows = result.steps.map((step) => {
    const t = step.throughput;
    const throughput = t.median === null ? '-' : `${figure3(t.median)}${t.ci95 ? ` (${figure3(t.ci95.low)}-${figure3(t.ci95.high)})` : ''}`;
    return [
      step.name,
      throughput,
      step.status === 'skipped' ? '-' : speedupText(step.speedup.ratio, step.speedup.ci95),
      step.status === 'skipped' ? 'skipped' : step.speedup.verdict,
      step.status === 'skipped' ? '-' : step.status === 'baseline' ? String(step.n.candidate) : `${step.n.candidate}+${step.n.against}`,
      step.stepTimeMs === null ? '-' : step.stepTimeMs.toFixed(2),
      step.finalLoss === null ? '-' : step.finalLoss.toPrecision(4),
      step.vramPeakMiB === null ? '-' : step.vramPeakMiB.toFixed(0),
      step.status === 'baseline' || step.status === 'skipped' ? '-' : step.gate,
      step.status === 'baseline' ? '-' : step.kept ? 'yes' : 'no',
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const machine = `torch ${result.machine.torch ?? 'not seen'}, ${result.machine.cuda === null ? 'CUDA not seen' : result.machine.cuda ? 'CUDA' : 'no CUDA'}`;
  const lines = [`tune: ${result.command} (${machine}): ${result.status}`, line(header), ...rows.map(line)];
  for (const step of result.steps) {
    if (step.status === 'baseline') continue;
    lines.push(
      `  ${step.name}: ${step.status}: ${step.reason}${step.knobState && step.status !== 'skipped' ? `; knob ${step.knobState}` : ''}${step.against !== 'baseline' && step.status !== 'skipped' ? `; measured against ${step.against}` : ''}`,
    );
  }
  lines.push(
    `Each step: a sweep of the best so far against it plus one knob, runs interleaved; speedup = ratio of geometric means with a ${confidenceText(result.confidence)} t-interval over runs (the 5 % shared between the looks a step may take as it adds rounds; RUNS: candidate+against); kept only when faster and within the quality gate.${result.lossAt === null ? '' : ` LOSS: train loss at ${result.lossAt}, the most work every row's runs reached (runs of fast steps stop after a stretch of time, at unequal work).`}`,
  );
  const keptList = [...Object.entries(result.kept), ...(result.batch ? [[result.batch.variable, String(result.batch.to)]] : [])]
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  if (result.total) {
    lines.push(
      `Total: ${keptList}: ${speedupText(result.total.ratio, result.total.ci95)} against the baseline, ${result.total.verdict} (${result.total.measuredBy}; sweep${result.total.sweepIds.length === 1 ? '' : 's'} ${result.total.sweepIds.join(', ')})`,
    );
  }
  for (const note of result.notes) lines.push(note);
  if (result.suggestions.length > 0) {
    lines.push('', 'To make it permanent:');
    for (const s of result.suggestions) lines.push(`  ${s.text}`);
    if (result.patch) lines.push('', `As a patch (in ${result.patchDir ?? result.cwd}: git apply, or patch -p1 <):`, '', result.patch.trimEnd());
  }
  if (result.error) lines.push(`error: ${result.error}`);
  return lines.join('\n');
}

export async function tuneCommand(core: Core, options: TuneCommandOptions): Promise<void> {
  const typed = options.commandArgs;
  if (options.out !== undefined) reportFormat(options.out);
  if (options.show !== undefined) {
    if (typed.length > 0 || options.resume !== undefined)
      throw new UsageError(`--show ${options.show} prints a kept tune: give no command after -- and no --resume`);
    const kept = core.tunes.get(options.show);
    process.stdout.write(
      options.json
        ? `${JSON.stringify({ id: kept.id, ...kept.result }, null, 2)}\n`
        : `tune ${kept.id} (${kept.status}, started ${kept.createdAt})\n${formatTuneResult(kept.result)}\n`,
    );
    if (options.out !== undefined) writeReport(core, kept.id, options.out);
    return;
  }
  if (options.resume !== undefined) {
    if (typed.length > 0) throw new UsageError(`--resume ${options.resume} goes on with that tune's own command: give no command after --`);
    return followTune(core, options, (say) => core.tunes.resume(options.resume!, say));
  }
  if (typed.length === 0) throw new UsageError('tune needs a command after --: `tuning-bench tune -- python train.py` (or --resume ID for a stopped tune)');
  const steps =
    options.only === undefined
      ? undefined
      : options.only
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
  for (const step of steps ?? []) {
    if (!(TUNE_STEPS as readonly string[]).includes(step)) throw new UsageError(`--only ${step}: no such step; the steps are ${TUNE_STEPS.join(', ')}`);
  }
  const candidate = {
    command: { template: options.shell ? [typed.join(' ')] : typed, mode: options.shell ? 'shell' : 'argv', cwd: options.cwd ?? process.cwd() },
    ...(steps === undefined ? {} : { steps: steps as TuneStepName[] }),
    ...(options.workers === undefined ? {} : { workers: options.workers }),
    ...(options.autocast === undefined ? {} : { autocast: options.autocast }),
    ...(options.threads === undefined ? {} : { threads: options.threads }),
    ...(options.set === undefined || options.set.length === 0 ? {} : { values: parseAssignments(options.set) }),
    ...(options.batchVar === undefined ? {} : { batchVariable: options.batchVar }),
    ...(options.samplesPerStep === undefined ? {} : { samplesPerStep: options.samplesPerStep }),
    ...(options.tokensPerStep === undefined ? {} : { tokensPerStep: options.tokensPerStep }),
    ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
    ...(options.minSeconds === undefined ? {} : { minStepSeconds: options.minSeconds }),
    ...(options.timeout === undefined ? {} : { timeoutSeconds: options.timeout }),
    ...(options.repeats === undefined ? {} : { repeats: options.repeats }),
    ...(options.maxRepeats === undefined ? {} : { maxRepeats: options.maxRepeats }),
    ...(options.minEffect === undefined ? {} : { minEffect: options.minEffect }),
    waitForIdle: options.waitIdle,
    ...(options.maxWait === undefined ? {} : { maxWaitSeconds: options.maxWait }),
  };
  const parsed = tuneRequest.safeParse(candidate);
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
  if (parsed.data.repeats > parsed.data.maxRepeats)
    throw new UsageError(`--repeats ${parsed.data.repeats} is more than --max-repeats ${parsed.data.maxRepeats}`);
  if (parsed.data.steps.includes('threads') && parsed.data.threads === undefined) throw new UsageError('the threads step needs a count: --threads N');
  const request = parsed.data;
  return followTune(core, options, (say) => core.tunes.start(request, null, say));
}

/** Starts (or resumes) the tune, prints its progress on stderr and its answer on stdout; Ctrl-C cancels it, resumable. */
async function followTune(core: Core, options: TuneCommandOptions, begin: (say: (line: string) => void) => TuneRecord): Promise<void> {
  const stops = new StopSignals();
  let lastProgress = '';
  const subscription = core.subscribe((event, payload) => {
    if (event !== 'sweeps.onDidChange' || !payload.name.startsWith('tune: ')) return;
    const text = `  sweep ${payload.id}: ${payload.progress.done}/${payload.progress.total} runs${payload.progress.current ? `, running ${payload.progress.current}` : ''}${payload.progress.waiting ? `, ${payload.progress.waiting}` : ''}`;
    if (text !== lastProgress) process.stderr.write(`${text}\n`);
    lastProgress = text;
  });
  try {
    if (stops.signal.aborted) {
      process.stderr.write(`${String(stops.signal.reason)}: the tune was not started\n`);
      process.exitCode = 1;
      return;
    }
    const started = begin((line) => process.stderr.write(`${line}\n`));
    process.stderr.write(`tune ${started.id}: ${started.result.command}\n`);
    // The step's sweep under way is cancelled and no further step starts; what was measured is printed.
    stops.onStop(() => {
      process.stderr.write(`\ncancelling tune ${started.id} (the current run is stopped)...\n`);
      try {
        core.tunes.cancel(started.id);
      } catch {
        // Ended meanwhile.
      }
    });
    const ended = await core.tunes.waitForEnd(started.id);
    const result = ended.result;
    process.stdout.write(options.json ? `${JSON.stringify({ id: ended.id, ...result }, null, 2)}\n` : `${formatTuneResult(result)}\n`);
    if (options.out !== undefined) writeReport(core, ended.id, options.out);
    if (result.status === 'cancelled')
      process.stderr.write(`tune ${ended.id} was cancelled: \`tuning-bench tune --resume ${ended.id}\` goes on from the step it reached\n`);
    if (result.status !== 'succeeded') process.exitCode = 1;
  } finally {
    subscription.unsubscribe();
    stops.dispose();
  }
}
