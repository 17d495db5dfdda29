// `tune`: the knobs' ladder on an unmodified script. Each step is a sweep of the best so far against it plus one knob
// (repeats interleaved by the sweep queue), judged by compare's verdict and quality gate, with more rounds while the
// verdict is undecided; a knob is kept only when faster and within the gate, so each step builds on what helped.
import type { Comparison, ComparisonRow, Run, Sweep, TuneRequest, TuneResult, TuneStep, TuneStepName, TuneSuggestion } from '../../shared/api.js';
import { templateVariables } from '../../shared/variables.js';
import { knobsAsConfig, KNOB_OFF, KNOBS, KNOB_PREFIX, outcomeSite, type KnobOutcome, type KnobSettings } from '../../shared/knobs.js';
import { compareSpeeds, CONFIDENCE, type RunSpeed } from '../compare/verdict.js';
import { lossesAtCommonWork, measuredByWorkOverTime, rowThroughput } from '../compare/compare.js';
import { suggestChanges, type KeptKnob } from './suggest.js';
import { DEFAULT_TUNE_MAX_STEPS, DEFAULT_TUNE_MIN_STEP_SECONDS } from '../../shared/api/tune.js';

/** What the ladder needs of the engine (createCore gives the sweep queue, compare and the run store). */
export interface TuneDeps {
  startSweep(request: Record<string, unknown>): Promise<Sweep>;
  /** Starts the batch-size finder (`sweeps.findBatch`) on the typed command: its end is waited for as a sweep's. */
  findBatch(request: Record<string, unknown>): Sweep;
  /** Resolves at the sweep's end; `onChange` sees it at each change before (a run started or ended). */
  waitForSweepEnd(id: number, onChange?: (sweep: Sweep) => void): Promise<Sweep>;
  /** Cancels a step's sweep: a tune cancelled while it was starting, or, with the note a person reads on the sweep, a knob that did not act. */
  cancelSweep(id: number, note?: string): void;
  compare(request: Record<string, unknown>): Comparison;
  getRun(id: number): Run;
  readFile(file: string): string | null;
}

/** One rung: the knob it adds and the knobs set beside it that only act with it (persistent workers need workers). */
interface Rung {
  name: TuneStepName;
  knob: string;
  value: string;
  companions: KnobSettings;
}

const UNDECIDED = new Set(['inconclusive', 'repeat to decide']);

/** The ladder's rungs for a request, in its order. */
export function ladderRungs(request: Pick<TuneRequest, 'steps' | 'workers' | 'autocast' | 'threads'>): Rung[] {
  return request.steps.map((name): Rung => {
    switch (name) {
      case 'workers':
        // Persistent workers act only where a loader has workers: set on both sides, they change only the candidate.
        return { name, knob: 'workers', value: String(request.workers), companions: { persistentWorkers: 'on' } };
      case 'autocast':
        return { name, knob: 'autocast', value: request.autocast, companions: {} };
      case 'threads':
        if (request.threads === undefined) throw new TuneError('the threads step needs a count: --threads N');
        return { name, knob: 'threads', value: String(request.threads), companions: {} };
      case 'batch':
        // Not a knob: the batch placeholder's value, found by the batch-size finder when the rung is reached.
        return { name, knob: 'batch', value: 'largest', companions: {} };
      default:
        return { name, knob: name, value: 'on', companions: {} };
    }
  });
}

export class TuneError extends Error {}

/** The batch placeholder of a tune: its variable and the batch it runs at now, or why the batch step cannot run. */
export type BatchPlaceholder = { variable: string; value: number; reason: null } | { variable: string; value: null; reason: string };

/**
 * The request's batch placeholder (`{batch}`, or `batchVariable`'s), and its values checked: each names a placeholder
 * of the command, and a placeholder that is there has its batch given (a positive whole number). Throws what to do.
 */
export function batchPlaceholder(request: Pick<TuneRequest, 'command' | 'values' | 'batchVariable'>): BatchPlaceholder {
  const variable = request.batchVariable;
  const placeholders = templateVariables(request.command.template, request.command.mode).map((spec) => spec.name);
  const unknown = Object.keys(request.values).find((name) => !placeholders.includes(name));
  if (unknown !== undefined) {
    throw new TuneError(
      `--set ${unknown}=...: the command has no {${unknown}} placeholder${placeholders.length > 0 ? ` (it has ${placeholders.map((p) => `{${p}}`).join(', ')})` : ''}`,
    );
  }
  if (!placeholders.includes(variable)) {
    return { variable, value: null, reason: `no {${variable}} placeholder in the command: give one and --set ${variable}=N to try larger batches` };
  }
  const given = request.values[variable];
  if (given === undefined) throw new TuneError(`the command has {${variable}}: give the batch it runs at now with --set ${variable}=N`);
  if (!/^\d+$/u.test(given) || Number(given) < 1) throw new TuneError(`--set ${variable}=${given}: the batch is a positive whole number, e.g. ${variable}=32`);
  return { variable, value: Number(given), reason: null };
}

/** What the batch-size finder's end means for the batch step: a larger batch to measure, or why there is none. */
export function batchFinderOutcome(
  current: number,
  variable: string,
  finder: Pick<Sweep, 'status' | 'error'> & { result: Pick<NonNullable<Sweep['result']>, 'largestFit' | 'message'> | null },
): { measure: number } | { status: 'skipped' | 'failed'; reason: string } {
  // A finder whose every probe ran out of memory failed with an answer (none fits); one that stopped on another failure has none.
  if (finder.result === null) {
    return {
      status: 'failed',
      reason:
        finder.status === 'failed'
          ? `the batch-size finder failed: ${finder.error ?? 'no reason given'}`
          : `the batch-size finder gave no answer (${finder.status})`,
    };
  }
  const { largestFit, message } = finder.result;
  if (largestFit === null) return { status: 'failed', reason: `out of memory: ${message}` };
  if (largestFit <= current) return { status: 'skipped', reason: `${message}: nothing larger than ${variable}=${current} to try` };
  return { measure: largestFit };
}

/** A kept batch in words: the placeholder's value to pass (with its flag where the command has one before it), no diff. */
export function batchSuggestion(command: TuneRequest['command'], variable: string, from: number, to: number): TuneSuggestion {
  const placeholder = `{${variable}}`;
  const uses = command.template.flatMap((arg, index) => {
    if (!arg.includes(placeholder)) return [];
    const previous = command.template[index - 1];
    const value = arg.split(placeholder).join(String(to));
    return [arg === placeholder && previous !== undefined && previous.startsWith('-') ? `${previous} ${value}` : value];
  });
  const where = command.mode === 'argv' && uses.length > 0 ? `pass ${uses.join(' and ')}` : `run it with ${variable}=${to}`;
  return {
    knobs: [`${variable}=${to}`],
    file: null,
    line: null,
    text: `${variable}=${to}: ${where} (it ran at ${from}; the largest that fits with the knobs kept)`,
    diff: null,
  };
}

/** Why a rung cannot apply on this machine and torch, or null when it may (the run's own record has the last word). */
export function rungSkipReason(rung: Rung, machine: { torch: string | null; cuda: boolean | null }): string | null {
  const spec = KNOBS.find((k) => k.name === rung.knob);
  if (spec?.cudaOnly && machine.cuda === false) return `no CUDA device here: ${rung.knob} acts on NVIDIA GPUs only`;
  if (rung.knob === 'autocast' && rung.value === 'fp16' && machine.cuda === false)
    return 'fp16 autocast needs CUDA (on the CPU torch takes bf16: --autocast bf16)';
  const major = machine.torch === null ? null : Number(/^(\d+)/u.exec(machine.torch)?.[1]);
  if (rung.knob === 'compile' && major !== null && major < 2) return `torch ${machine.torch} has no torch.compile (2.0 and newer)`;
  return null;
}

/** What a step decides, from its verdict, gate, the knob's record and how its runs ended. */
export function decideStep(input: {
  verdict: string;
  verdictReason: string | null;
  gate: 'pass' | 'fail' | 'n/a';
  gateReason: string;
  knobState: string | null;
  knobReason: string | null;
  candidateStatus: string;
  failure: string | null;
}): { status: TuneStep['status']; kept: boolean; reason: string } {
  if (input.candidateStatus === 'oom') return { status: 'failed', kept: false, reason: `out of memory${input.failure ? `: ${input.failure}` : ''}` };
  if (input.candidateStatus === 'failed') return { status: 'failed', kept: false, reason: `its runs failed${input.failure ? `: ${input.failure}` : ''}` };
  // A knob that did not act was not measured: the script does it itself (overridden), nothing reached it (unused: no
  // DataLoader), or it cannot here (skipped); one that raised is a failure. None is a verdict on the knob.
  if (input.knobState !== null && input.knobState !== 'applied') {
    const status = input.knobState === 'failed' ? 'failed' : 'skipped';
    return {
      status,
      kept: false,
      reason: `the knob was ${input.knobState === 'unknown' ? 'not reported on by any Python process' : input.knobState}${input.knobReason ? `: ${input.knobReason}` : ''}`,
    };
  }
  if (input.gate === 'fail') {
    return { status: 'rejected', kept: false, reason: `quality gate failed: ${input.gateReason}${input.verdict === 'faster' ? ' (faster, but worse)' : ''}` };
  }
  if (input.verdict === 'faster') {
    return {
      status: 'kept',
      kept: true,
      reason: `faster: ${input.verdictReason ?? ''}${input.gate === 'n/a' ? `; no quality gate (${input.gateReason})` : ''}`.trim(),
    };
  }
  const why = UNDECIDED.has(input.verdict)
    ? `not shown faster within the repeat budget (${input.verdict})`
    : input.verdict === 'unknown'
      ? 'no speedup could be measured'
      : input.verdict;
  return { status: 'rejected', kept: false, reason: `${why}${input.verdictReason ? `: ${input.verdictReason}` : ''}` };
}

/**
 * A step's gate over every run of its rounds, as its speed verdict is: one round alone judges a run or two a side
 * against the allowance, without the runs' spread (see compare's judgeQuality), so a round of one run a side failed a
 * knob whose loss differed by chance. The rounds' rows, one failure failing the step (poolGate), stand where the
 * pooled comparison cannot be made.
 */
export function gateOverRounds(
  compare: TuneDeps['compare'],
  measured: {
    sweepIds: readonly number[];
    baseRunIds: readonly number[];
    candidateRunIds: readonly number[];
    rows: readonly Pick<ComparisonRow, 'gate' | 'gateReason'>[];
  },
  request: Pick<TuneRequest, 'gate' | 'minEffect'>,
): { gate: 'pass' | 'fail' | 'n/a'; reason: string } {
  const [baseRunId] = measured.baseRunIds;
  const [candidateRunId] = measured.candidateRunIds;
  if (measured.sweepIds.length < 2 || baseRunId === undefined || candidateRunId === undefined) return poolGate(measured.rows);
  try {
    const pooled = compare({
      sweepIds: [...measured.sweepIds],
      runIds: [],
      baselineRunId: baseRunId,
      groupBy: 'config',
      gate: request.gate,
      minEffect: request.minEffect,
    });
    const row = pooled.rows.find((r) => r.runIds.includes(candidateRunId));
    return row === undefined ? poolGate(measured.rows) : { gate: row.gate, reason: row.gateReason };
  } catch {
    return poolGate(measured.rows);
  }
}

/** The gate over the candidate's rows of several sweeps: one failure fails it. */
export function poolGate(rows: readonly Pick<ComparisonRow, 'gate' | 'gateReason'>[]): { gate: 'pass' | 'fail' | 'n/a'; reason: string } {
  const failed = rows.find((r) => r.gate === 'fail');
  if (failed) return { gate: 'fail', reason: failed.gateReason };
  const passed = rows.filter((r) => r.gate === 'pass');
  if (passed.length > 0) return { gate: 'pass', reason: passed.at(-1)!.gateReason };
  return { gate: 'n/a', reason: rows.at(-1)?.gateReason ?? 'nothing to compare' };
}

/** More runs are worth it while the verdict is undecided, the candidate's runs measured something, and the budget allows. */
export function moreRoundsFor(
  verdict: { verdict: string; moreRepeats: number | null; repeatsCannotDecide?: boolean },
  runsPerSide: number,
  maxRepeats: number,
): number {
  if (!UNDECIDED.has(verdict.verdict) || runsPerSide >= maxRepeats || verdict.repeatsCannotDecide === true) return 0;
  return Math.min(maxRepeats - runsPerSide, Math.max(1, verdict.moreRepeats ?? 1));
}

/** A run's speed in a step, and what the machine was like while it ran. */
interface StepSpeed extends RunSpeed {
  runId: number;
  /** Others busy, throttling (the run's fairness flags): left out of the verdict where enough fair runs remain. */
  unfair: boolean;
}

/**
 * A step's runs on a machine that was not fair are left out of its verdict and throughput where each side keeps at
 * least this many fair ones: a run slowed 15-fold by a build beside it only widens the interval (the step still pays
 * its run from the repeat budget, and takes another round where that allows).
 */
const FAIR_RUNS_AT_LEAST = 2;

/** The speeds a step's verdict counts: its fair runs' where there are enough, else every run's. */
export function countedSpeeds<T extends { unfair: boolean }>(speeds: readonly T[]): T[] {
  const fair = speeds.filter((s) => !s.unfair);
  return fair.length >= FAIR_RUNS_AT_LEAST ? fair : [...speeds];
}

interface Measured {
  status: 'done' | 'cancelled' | 'failed';
  sweepIds: number[];
  base: { row: ComparisonRow | null; runIds: number[]; speeds: StepSpeed[] };
  candidate: { rows: ComparisonRow[]; runIds: number[]; speeds: StepSpeed[]; configStatus: string; failure: string | null };
  verdict: { verdict: string; ratio: number | null; ci95: { low: number; high: number } | null; reason: string | null };
  unit: string | null;
  error: string | null;
}

function speedsOf(row: ComparisonRow | undefined): StepSpeed[] {
  return (row?.runs ?? []).flatMap((r) =>
    r.throughput === null ? [] : [{ throughput: r.throughput, round: null, resolution: r.resolution, runId: r.id, unfair: r.unfair.length > 0 }],
  );
}

/**
 * How far tune's batch step looks: up to this many times the batch the script runs with. Past it the learning rate
 * and schedule want retuning too, which is no longer a speed-up of the same training; and where memory never runs
 * out (a CPU) the doubling would otherwise go on to a million.
 */
export const TUNE_MAX_BATCH_FACTOR = 16;

export interface LadderRunOptions {
  resumeFrom?: TuneResult;
  signal?: AbortSignal;
  onProgress?: (result: TuneResult) => void;
  /** The step's sweep under way, as it starts (null once it ended): what a cancel stops. */
  onSweep?: (sweepId: number | null) => void;
}

const stepNameOf = (rung: Rung) => `+${rung.knob}=${rung.value}`;

/** A tune before its first step: the command, nothing measured. */
export function emptyResult(request: TuneRequest): TuneResult {
  return {
    status: 'succeeded',
    command: request.command.template.join(' '),
    cwd: request.command.cwd,
    steps: [],
    kept: {},
    total: null,
    suggestions: [],
    patch: null,
    patchDir: null,
    confidence: tuneConfidence(request),
    lossAt: null,
    machine: { torch: null, cuda: null },
    notes: [],
    error: null,
    batch: null,
  };
}

/**
 * The confidence of each look at a step's runs. A step looks after its first round and after each round it adds
 * while undecided, at most maxRepeats − repeats + 1 times; judging each look at 95 % called an A/A step faster or
 * slower 7.3 % of the time (2 runs a side, up to 4, 2 % noise: docs/statistics.md). Splitting the 5 % between the
 * looks (Bonferroni) keeps the step's false-alarm rate under 5 %, whatever the noise.
 */
export function tuneConfidence(request: Pick<TuneRequest, 'repeats' | 'maxRepeats'>): number {
  const looks = Math.max(1, request.maxRepeats - request.repeats + 1);
  return 1 - (1 - CONFIDENCE) / looks;
}

/** What of a stopped tune stands: its decided steps (a cancelled one is tried again); the ending is made anew. */
function decidedPart(stopped: TuneResult): TuneResult {
  return {
    ...stopped,
    status: 'succeeded',
    steps: stopped.steps.filter((s) => s.status !== 'cancelled'),
    total: null,
    suggestions: [],
    patch: null,
    notes: [],
    error: null,
    batch: null,
  };
}

function coarsestResolution(speeds: readonly RunSpeed[]): number {
  return Math.max(0, ...speeds.map((s) => s.resolution ?? 0));
}

export class TuneLadder {
  constructor(private readonly deps: TuneDeps) {}

  /**
   * Each step's loss read at the work every step's runs reached, so the table's loss column compares down: a tune's
   * runs of fast steps stop after a stretch of time, so a faster config goes further and its final loss is lower for
   * that alone (the backbone example's baseline read 1.51 at step 146 beside 0.44 at step 766). Where there is no
   * common work to read them at, their runs' final losses (the median, as a comparison row's).
   */
  private placeLossesAtCommonWork(result: TuneResult): void {
    const measured = result.steps.filter((step) => step.runIds.length > 0);
    const read = lossesAtCommonWork(measured.map((step) => step.runIds.map((id) => this.deps.getRun(id))));
    result.lossAt = read.at;
    measured.forEach((step, i) => {
      step.finalLoss = read.losses[i] ?? null;
    });
  }

  /**
   * Runs the ladder; `say` gets a line of progress for a person at each step (the CLI prints them on stderr).
   * `resumeFrom`: a tune that stopped part way: its decided steps stand, with the knobs they kept, and the ladder goes
   * on from the first step it did not decide. `signal`: once aborted, no further sweep starts. `onProgress`: the
   * result so far, after each step (kept by the engine, so a reloaded page or a resume finds it).
   */
  async run(request: TuneRequest, say: (line: string) => void = () => undefined, options: LadderRunOptions = {}): Promise<TuneResult> {
    const rungs = ladderRungs(request);
    const maxSteps = request.maxSteps ?? (request.timeoutSeconds === undefined ? DEFAULT_TUNE_MAX_STEPS : undefined);
    const minStepSeconds = maxSteps === undefined ? undefined : (request.minStepSeconds ?? DEFAULT_TUNE_MIN_STEP_SECONDS);
    const result = options.resumeFrom ? decidedPart(options.resumeFrom) : emptyResult(request);
    result.confidence = tuneConfidence(request);
    const kept: KnobSettings = {};
    const keptRungs: Array<{ rung: Rung; runs: Run[] }> = [];
    let baselineDone = result.steps.some((s) => s.status === 'baseline');
    // The batch placeholder: every step's runs fill it with the batch given, and their throughput is per sample.
    const batch = batchPlaceholder(request);
    const isBatchStep = (name: string) => name === `+${batch.variable}` || name.startsWith(`+${batch.variable}=`);
    const work =
      request.tokensPerStep !== undefined || request.samplesPerStep !== undefined
        ? {
            ...(request.tokensPerStep === undefined ? {} : { tokensPerStep: request.tokensPerStep }),
            ...(request.samplesPerStep === undefined ? {} : { samplesPerStep: request.samplesPerStep }),
          }
        : batch.value === null
          ? {}
          : { samplesPerStep: `{${batch.variable}}` };
    for (const step of result.steps) {
      if (!step.kept) continue;
      if (isBatchStep(step.name) && batch.value !== null) {
        result.batch = { variable: batch.variable, from: batch.value, to: Number(step.knobs[batch.variable]) };
        continue;
      }
      const rung = rungs.find((r) => stepNameOf(r) === step.name);
      if (rung === undefined) continue;
      const runs = step.runIds.map((id) => this.deps.getRun(id));
      kept[rung.knob] = rung.value;
      for (const [name, value] of Object.entries(rung.companions)) if (knobRecord(runs, name).state === 'applied') kept[name] = value;
      keptRungs.push({ rung, runs });
    }
    const progress = () => {
      this.placeLossesAtCommonWork(result);
      options.onProgress?.({ ...result, kept: { ...kept } });
    };

    /** Runs the sweep for `label` in rounds while undecided; `knob`: the knob tried, whose runs end the rounds where it did not apply. */
    const measure = async (
      label: string,
      values: KnobSettings,
      vary: Array<{ name: string; values: string[] }>,
      candidateIndex: number,
      knob: string | null = null,
    ): Promise<Measured> => {
      const out: Measured = {
        status: 'done',
        sweepIds: [],
        base: { row: null, runIds: [], speeds: [] },
        candidate: { rows: [], runIds: [], speeds: [], configStatus: 'pending', failure: null },
        verdict: { verdict: 'unknown', ratio: null, ci95: null, reason: null },
        unit: null,
        error: null,
      };
      let repeats = request.repeats;
      while (repeats > 0) {
        if (options.signal?.aborted) {
          out.status = 'cancelled';
          return out;
        }
        const started = await this.deps.startSweep({
          command: request.command,
          name: `tune: ${label}`,
          // The command's values less those the step varies (the batch step varies the batch).
          values: { ...Object.fromEntries(Object.entries(request.values).filter(([name]) => !vary.some((v) => v.name === name))), ...knobsAsConfig(values) },
          ...work,
          vary,
          plan: 'ladder',
          repeats,
          ...(maxSteps === undefined ? {} : { maxSteps }),
          ...(minStepSeconds === undefined || minStepSeconds === 0 ? {} : { minStepSeconds }),
          ...(request.timeoutSeconds === undefined ? {} : { timeoutSeconds: request.timeoutSeconds }),
          minEffect: request.minEffect,
          waitForIdle: request.waitForIdle,
          maxWaitSeconds: request.maxWaitSeconds,
        });
        out.sweepIds.push(started.id);
        say(`tune: ${label}: sweep ${started.id}, ${repeats} run${repeats === 1 ? '' : 's'} per side`);
        options.onSweep?.(started.id);
        // Cancelled while it was being started: the sweep is stopped now it has an id.
        if (options.signal?.aborted) this.deps.cancelSweep(started.id);
        const notActing = knob === null ? null : new KnobWatch(knob, candidateIndex, (id) => this.deps.getRun(id));
        const ended = await this.deps
          .waitForSweepEnd(started.id, (sweep) => {
            // A knob with nothing to act on (no DataLoader, a script that sets it itself) will not act in the next
            // run either: the step's other runs would measure the same command twice.
            if (notActing === null || notActing.state !== null || notActing.check(sweep) === null) return;
            const why = `the knob was ${notActing.state} in run ${notActing.runId}`;
            say(`tune: ${label}: ${why}: the step ends without its other runs`);
            this.deps.cancelSweep(
              started.id,
              `Ended by its tune: ${why}, so its other runs would have measured the same command again. The tune's table says what that run's record found.`,
            );
          })
          .finally(() => options.onSweep?.(null));
        const candidateConfig = ended.configs[candidateIndex];
        const baseConfig = ended.configs[0];
        out.candidate.configStatus = candidateConfig?.status ?? 'pending';
        out.candidate.failure = candidateConfig?.failure?.reason ?? null;
        // Ended by the watch, not by the person: its runs are compared as they are, and the knob's record decides.
        const endedByWatch = notActing?.state != null && ended.status === 'cancelled' && !options.signal?.aborted;
        if (!endedByWatch && (ended.status === 'cancelled' || ended.status === 'interrupted')) {
          out.status = 'cancelled';
          return out;
        }
        if (
          baseConfig &&
          (baseConfig.status === 'failed' || baseConfig.status === 'oom') &&
          baseConfig.runIds.length > 0 &&
          !baselineDone &&
          candidateIndex === 1
        ) {
          out.status = 'failed';
          out.error = `the baseline's runs failed${baseConfig.failure ? `: ${baseConfig.failure.reason}` : ''}`;
          return out;
        }
        let comparison: Comparison;
        try {
          comparison = this.deps.compare({ sweepIds: [ended.id], runIds: [], groupBy: 'config', gate: request.gate, minEffect: request.minEffect });
        } catch (error) {
          out.error = error instanceof Error ? error.message : String(error);
          return out;
        }
        const baseRow = comparison.rows.find((r) => r.configIndex === 0);
        const candidateRow = comparison.rows.find((r) => r.configIndex === candidateIndex);
        if (!baseRow || !candidateRow) return out;
        // Rows of different sweeps pool only in one unit (the same command gives the same one).
        if (out.unit !== null && candidateRow.throughput.unit !== out.unit) {
          out.base = { row: baseRow, runIds: [], speeds: [] };
          out.candidate.rows = [];
          out.candidate.runIds = [];
          out.candidate.speeds = [];
        }
        out.unit = candidateRow.throughput.unit;
        out.base.row = baseRow;
        out.base.runIds.push(...baseRow.runIds);
        out.base.speeds.push(...speedsOf(baseRow));
        out.candidate.rows.push(candidateRow);
        out.candidate.runIds.push(...candidateRow.runIds);
        out.candidate.speeds.push(...speedsOf(candidateRow));
        // Rounds compared apart measure their runs one way each: where any run of the step is measured by work over
        // time (steps that come unevenly, or timing too coarse for the median step), every round is measured so again.
        const pooledRuns = [...out.base.runIds, ...out.candidate.runIds].map((id) => this.deps.getRun(id));
        const measuredByWork = (run: Run) => measuredByWorkOverTime(run, request.minEffect);
        if (out.sweepIds.length > 1 && pooledRuns.some(measuredByWork)) {
          out.base.speeds = [];
          out.candidate.speeds = [];
          for (const sweepId of out.sweepIds) {
            const again = this.deps.compare({
              sweepIds: [sweepId],
              runIds: [],
              groupBy: 'config',
              gate: request.gate,
              minEffect: request.minEffect,
              measureBy: 'workOverTime',
            });
            out.base.speeds.push(...speedsOf(again.rows.find((r) => r.configIndex === 0)));
            out.candidate.speeds.push(...speedsOf(again.rows.find((r) => r.configIndex === candidateIndex)));
          }
        }
        // One sweep: compare's own verdict (paired where its rounds pair up); several: the same verdict over all their runs.
        // Every round is a look at the runs: each look judges at the confidence that keeps all of them under 5 %.
        const counted = { candidate: countedSpeeds(out.candidate.speeds), base: countedSpeeds(out.base.speeds) };
        const verdict = compareSpeeds(counted.candidate, counted.base, { minEffect: request.minEffect, confidence: result.confidence });
        const byWork = pooledRuns.some(measuredByWork)
          ? `; runs measured by their steady steps' work over their time (${pooledRuns.some((run) => run.summary.throughput.uneven) ? 'steps that come unevenly' : 'step timing too coarse to place a median step'})`
          : '';
        const leftOut = [...out.base.speeds, ...out.candidate.speeds]
          .filter((s) => !counted.base.includes(s) && !counted.candidate.includes(s))
          .map((s) => s.runId);
        const unfairText =
          leftOut.length === 0
            ? ''
            : `; run${leftOut.length === 1 ? '' : 's'} ${leftOut.join(', ')} left out: the machine was not fair while ${leftOut.length === 1 ? 'it' : 'they'} ran (others busy, throttling)`;
        out.verdict = { verdict: verdict.verdict, ratio: verdict.ratio, ci95: verdict.ci95, reason: `${verdict.reason}${byWork}${unfairText}` };
        if (out.candidate.speeds.length === 0 || out.candidate.configStatus !== 'done') return out;
        // A knob that did not apply (no CUDA, a loader the script sets itself) is not worth more runs.
        const state =
          knob === null
            ? null
            : knobRecord(
                out.candidate.runIds.map((id) => this.deps.getRun(id)),
                knob,
              ).state;
        if (state !== null && state !== 'applied') return out;
        repeats = moreRoundsFor(verdict, Math.min(out.candidate.speeds.length, out.base.speeds.length), request.maxRepeats);
        if (repeats > 0) say(`tune: ${label}: ${verdict.verdict}, ${repeats} more run${repeats === 1 ? '' : 's'} per side`);
      }
      return out;
    };

    // A step's pooled gate is a comparison of all its runs: made once, read by its decision and by its row.
    const gates = new WeakMap<Measured, { gate: 'pass' | 'fail' | 'n/a'; reason: string }>();
    const stepGate = (m: Measured | null) => {
      if (m === null) return poolGate([]);
      let gate = gates.get(m);
      if (gate === undefined) {
        gate = gateOverRounds(
          (compareRequest) => this.deps.compare(compareRequest),
          { sweepIds: m.sweepIds, baseRunIds: m.base.runIds, candidateRunIds: m.candidate.runIds, rows: m.candidate.rows },
          request,
        );
        gates.set(m, gate);
      }
      return gate;
    };
    const stepGateOf = (m: Measured) => {
      const gate = stepGate(m);
      return { gate: gate.gate, gateReason: gate.reason };
    };
    const stepRow = (name: string, knobs: KnobSettings, m: Measured | null, extra: Partial<TuneStep>): TuneStep => {
      const rows = m?.candidate.rows ?? [];
      const last = rows.at(-1);
      const gate = stepGate(m);
      const candidateSpeeds = countedSpeeds(m?.candidate.speeds ?? []);
      const throughput = rowThroughput(
        candidateSpeeds.map((s) => s.throughput),
        coarsestResolution(candidateSpeeds),
      );
      return {
        name,
        knobs,
        status: 'rejected',
        reason: '',
        against:
          Object.keys(kept).length === 0
            ? 'baseline'
            : `+${Object.entries(kept)
                .map(([k, v]) => `${k}=${v}`)
                .join(' +')}`,
        sweepIds: m?.sweepIds ?? [],
        runIds: m?.candidate.runIds ?? [],
        throughput: { median: throughput.median, ci95: throughput.ci95, unit: m?.unit ?? null },
        speedup: { ratio: m?.verdict.ratio ?? null, ci95: m?.verdict.ci95 ?? null, verdict: m?.verdict.verdict ?? '-', reason: m?.verdict.reason ?? null },
        n: { candidate: candidateSpeeds.length, against: countedSpeeds(m?.base.speeds ?? []).length },
        stepTimeMs: last?.stepTimeMs ?? null,
        finalLoss: last?.finalLoss ?? null,
        vramPeakMiB: last?.vramPeakMiB ?? null,
        gate: gate.gate,
        gateReason: gate.reason,
        knobState: null,
        kept: false,
        ...extra,
      };
    };

    const notMeasured = { ratio: null, ci95: null, verdict: '-', reason: null };
    for (const rung of rungs) {
      const batchRung = rung.name === 'batch';
      let stepName = batchRung ? `+${batch.variable}` : stepNameOf(rung);
      if (result.steps.some((s) => (batchRung ? isBatchStep(s.name) : s.name === stepName))) continue;
      const skip = batchRung ? batch.reason : rungSkipReason(rung, result.machine);
      if (skip !== null) {
        result.steps.push(stepRow(stepName, batchRung ? {} : { [rung.knob]: rung.value }, null, { status: 'skipped', reason: skip, speedup: notMeasured }));
        say(`tune: ${stepName} skipped: ${skip}`);
        progress();
        continue;
      }
      let stepKnobs: Record<string, string> = { [rung.knob]: rung.value, ...rung.companions };
      let m: Measured;
      if (batchRung && batch.value !== null) {
        // The largest batch that fits with the knobs kept, then the batch now against it like any other step.
        const found = await this.findLargerBatch(request, batch.variable, batch.value, kept, { maxSteps, work }, say, options);
        if ('status' in found) {
          result.steps.push(
            stepRow(stepName, {}, null, {
              status: found.status,
              reason: found.reason,
              sweepIds: found.sweepId === null ? [] : [found.sweepId],
              speedup: notMeasured,
            }),
          );
          say(`tune: ${stepName}: ${found.status} (${found.reason})`);
          if (found.status === 'cancelled') {
            result.status = 'cancelled';
            break;
          }
          progress();
          continue;
        }
        stepName = `+${batch.variable}=${found.measure}`;
        stepKnobs = { [batch.variable]: String(found.measure) };
        m = await measure(stepName, { ...kept }, [{ name: batch.variable, values: [String(batch.value), String(found.measure)] }], 1);
        m.sweepIds.unshift(found.sweepId);
      } else {
        m = await measure(stepName, { ...kept, ...rung.companions }, [{ name: `${KNOB_PREFIX}${rung.knob}`, values: [KNOB_OFF, rung.value] }], 1, rung.knob);
      }
      if (!baselineDone && m.base.row) {
        baselineDone = true;
        const base = m.base.row;
        const baseSpeeds = countedSpeeds(m.base.speeds);
        const throughput = rowThroughput(
          baseSpeeds.map((s) => s.throughput),
          coarsestResolution(baseSpeeds),
        );
        result.steps.push({
          ...stepRow('baseline', {}, null, {}),
          status: 'baseline',
          reason: 'the script as it is',
          against: '-',
          sweepIds: [...m.sweepIds],
          runIds: m.base.runIds,
          throughput: { median: throughput.median, ci95: throughput.ci95, unit: m.unit },
          speedup: { ratio: 1, ci95: null, verdict: 'baseline', reason: null },
          n: { candidate: baseSpeeds.length, against: 0 },
          stepTimeMs: base.stepTimeMs,
          finalLoss: base.finalLoss,
          vramPeakMiB: base.vramPeakMiB,
          gate: 'n/a',
          gateReason: 'the baseline',
        });
      }
      progress();
      if (m.status === 'failed') {
        result.status = 'failed';
        result.error = m.error;
        break;
      }
      const candidateRuns = m.candidate.runIds.map((id) => this.deps.getRun(id));
      this.learnMachine(result, candidateRuns);
      if (m.status === 'cancelled') {
        result.status = 'cancelled';
        result.steps.push(stepRow(stepName, stepKnobs, m, { status: 'cancelled', reason: 'cancelled' }));
        break;
      }
      // The batch is not a knob: nothing in the runs reports on it.
      const knob = batchRung ? { state: null, reason: null, text: null } : knobRecord(candidateRuns, rung.knob);
      const decided = decideStep({
        verdict: m.verdict.verdict,
        verdictReason: m.verdict.reason,
        ...stepGateOf(m),
        knobState: knob.state,
        knobReason: knob.reason,
        candidateStatus: m.candidate.configStatus,
        failure: m.candidate.failure ?? m.error,
      });
      const step = stepRow(stepName, stepKnobs, m, { ...decided, knobState: knob.text });
      result.steps.push(step);
      say(`tune: ${stepName}: ${decided.status} (${decided.reason})`);
      if (decided.kept && batchRung && batch.value !== null) {
        result.batch = { variable: batch.variable, from: batch.value, to: Number(stepKnobs[batch.variable]) };
      } else if (decided.kept) {
        kept[rung.knob] = rung.value;
        // A companion stays only where it applied (persistent workers with the workers just kept).
        for (const [name, value] of Object.entries(rung.companions)) if (knobRecord(candidateRuns, name).state === 'applied') kept[name] = value;
        keptRungs.push({ rung, runs: candidateRuns });
      }
      progress();
    }
    result.kept = { ...kept };
    this.placeLossesAtCommonWork(result);
    if (result.status !== 'succeeded') return result;

    await this.measureTotal(result, keptRungs, measure);
    const keptKnobs: KeptKnob[] = [];
    for (const { rung, runs } of keptRungs) {
      for (const name of [rung.knob, ...Object.keys(rung.companions)]) {
        if (kept[name] === undefined) continue;
        keptKnobs.push({ name, value: kept[name], outcomes: runs.flatMap((run) => run.knobs?.knobs.find((k) => k.name === name)?.outcomes ?? []) });
      }
    }
    const suggested = suggestChanges(keptKnobs, request.command.cwd, this.deps.readFile);
    result.suggestions = result.batch
      ? [...suggested.suggestions, batchSuggestion(request.command, result.batch.variable, result.batch.from, result.batch.to)]
      : suggested.suggestions;
    result.patch = suggested.patch;
    result.patchDir = suggested.patchDir;
    const skipped = result.steps.filter((s) => s.status === 'skipped');
    if (skipped.length > 0) result.notes.push(`skipped: ${skipped.map((s) => `${s.name} (${s.reason})`).join('; ')}`);
    return result;
  }

  /** The kept knobs (and a kept batch) together against the baseline, measured side by side (one kept: its own step was that measurement). */
  private async measureTotal(
    result: TuneResult,
    keptRungs: ReadonlyArray<{ rung: Rung }>,
    measure: (label: string, values: KnobSettings, vary: Array<{ name: string; values: string[] }>, candidateIndex: number) => Promise<Measured>,
  ): Promise<void> {
    // The kept knobs are the ladder, the kept batch its last rung (the batch was tried with every kept knob).
    const vary = keptRungs.map(({ rung }) => ({ name: `${KNOB_PREFIX}${rung.knob}`, values: [KNOB_OFF, rung.value] }));
    if (result.batch) vary.push({ name: result.batch.variable, values: [String(result.batch.from), String(result.batch.to)] });
    if (vary.length === 0) {
      // What "nothing kept" means depends on what was measured: a knob rejected on its runs' throughput says something
      // of the knob; one never tried, or tried on runs that gave no throughput, says nothing.
      const rejected = result.steps.filter((s) => s.status === 'rejected');
      const measuredNothing = result.steps.every((s) => s.throughput.median === null);
      result.notes.push(
        rejected.length === 0
          ? 'nothing kept: no knob was measured here (each step was skipped or failed: see why above)'
          : measuredNothing
            ? "nothing kept: no run gave a throughput (its output holds no step or timing Tuning Bench reads: a run's page, or `tuning-bench show ID`, says what it found), so no knob could be shown faster or slower"
            : 'nothing kept: none of the knobs tried made this script faster here',
      );
      return;
    }
    if (vary.length === 1) {
      const step = result.steps.find((s) => s.kept)!;
      result.total = {
        ratio: step.speedup.ratio,
        ci95: step.speedup.ci95,
        verdict: step.speedup.verdict,
        reason: step.speedup.reason,
        sweepIds: step.sweepIds,
        measuredBy: `${step.name} was measured against the baseline itself`,
      };
      return;
    }
    // Companions that applied are set on every config (they act only with their knob); the kept knobs are the ladder.
    const companions: KnobSettings = {};
    for (const { rung } of keptRungs)
      for (const name of Object.keys(rung.companions)) if (result.kept[name] !== undefined) companions[name] = result.kept[name];
    const m = await measure('kept together', companions, vary, vary.length);
    if (m.status === 'cancelled') result.status = 'cancelled';
    result.total = {
      ratio: m.verdict.ratio,
      ci95: m.verdict.ci95,
      verdict: m.verdict.verdict,
      reason: m.verdict.reason ?? m.error,
      sweepIds: m.sweepIds,
      measuredBy: `a sweep of the baseline, each kept knob added in turn, the last config (all kept) against the baseline`,
    };
  }

  /**
   * The batch-size finder on the command from the batch it runs at now, with the knobs kept (doubling until out of
   * memory, then bisecting): a larger batch to measure, or why there is none.
   */
  private async findLargerBatch(
    request: TuneRequest,
    variable: string,
    current: number,
    kept: KnobSettings,
    limits: { maxSteps: number | undefined; work: Record<string, string> },
    say: (line: string) => void,
    options: LadderRunOptions,
  ): Promise<{ sweepId: number; measure: number } | { sweepId: number | null; status: 'skipped' | 'failed' | 'cancelled'; reason: string }> {
    if (options.signal?.aborted) return { sweepId: null, status: 'cancelled', reason: 'cancelled' };
    const finder = this.deps.findBatch({
      command: request.command,
      values: { ...Object.fromEntries(Object.entries(request.values).filter(([name]) => name !== variable)), ...knobsAsConfig(kept) },
      variable,
      start: current,
      maxBatch: current * TUNE_MAX_BATCH_FACTOR,
      maxSteps: limits.maxSteps ?? DEFAULT_TUNE_MAX_STEPS,
      ...(request.timeoutSeconds === undefined ? {} : { timeoutSeconds: request.timeoutSeconds }),
      ...limits.work,
    });
    const knobs = Object.entries(kept)
      .map(([name, value]) => `${name}=${value}`)
      .join(' ');
    say(`tune: +${variable}: batch-size finder ${finder.id}, from ${variable}=${current}${knobs === '' ? '' : ` with ${knobs}`}`);
    options.onSweep?.(finder.id);
    // Cancelled while it was being started: the finder is stopped now it has an id.
    if (options.signal?.aborted) this.deps.cancelSweep(finder.id);
    const ended = await this.deps.waitForSweepEnd(finder.id).finally(() => options.onSweep?.(null));
    if (ended.status === 'cancelled' || ended.status === 'interrupted') return { sweepId: finder.id, status: 'cancelled', reason: 'cancelled' };
    return { sweepId: finder.id, ...batchFinderOutcome(current, variable, ended) };
  }

  /** Torch and CUDA as the runs' knobs saw them: later rungs are skipped where they cannot apply. */
  private learnMachine(result: TuneResult, runs: readonly Run[]): void {
    for (const run of runs) {
      if (run.knobs?.torch && result.machine.torch === null) result.machine.torch = run.knobs.torch;
      if (run.knobs?.cuda !== null && run.knobs?.cuda !== undefined && result.machine.cuda === null) result.machine.cuda = run.knobs.cuda;
    }
  }
}

/** Watches a step's sweep for the first candidate run that ended with its knob recorded as not acting. */
class KnobWatch {
  state: string | null = null;
  runId: number | null = null;
  private readonly checked = new Set<number>();

  constructor(
    private readonly knob: string,
    private readonly candidateIndex: number,
    private readonly getRun: (id: number) => Run,
  ) {}

  /** The knob's state in a candidate run that ended without it acting, once there is one; null until then. */
  check(sweep: Sweep): string | null {
    for (const id of sweep.configs[this.candidateIndex]?.runIds ?? []) {
      if (this.checked.has(id)) continue;
      const run = this.getRun(id);
      // The knobs' record is written as the run ends, after its status: a run without one is looked at again.
      if (run.status === 'running' || run.knobs === null) continue;
      this.checked.add(id);
      const state = knobRecord([run], this.knob).state;
      if (state !== null && state !== 'applied') {
        this.state = state;
        this.runId = id;
        return state;
      }
    }
    return null;
  }
}

/**
 * What a knob did over a step's candidate runs (applied in any run wins; else the first run's state and reason), and
 * the line the table shows for it: every place it acted, `applied at main.py:28 (...), main.py:29 (...)`.
 */
export function knobRecord(runs: readonly Run[], name: string): { state: string | null; reason: string | null; text: string | null } {
  const entries = runs.flatMap((run) => run.knobs?.knobs.filter((k) => k.name === name) ?? []);
  if (entries.length === 0) return { state: null, reason: null, text: null };
  const applied = entries.find((e) => e.state === 'applied');
  const chosen = applied ?? entries[0]!;
  const outcome: KnobOutcome | undefined = chosen.outcomes.find((o) => o.status === chosen.state) ?? chosen.outcomes[0];
  // Every place it acted (an encoder's and a decoder's forward), each once however many runs recorded it.
  const places = new Map<string, string>();
  for (const o of entries.flatMap((e) => (e.state === chosen.state ? e.outcomes : [])).filter((o) => o.status === chosen.state)) {
    const site = outcomeSite(o);
    if (site === null) continue;
    const detail = o.what ?? o.reason ?? null;
    if (!places.has(site)) places.set(site, `${site}${detail ? ` (${detail})` : ''}`);
  }
  const shown = [...places.values()].slice(0, MAX_PLACES_NAMED);
  const more = places.size - shown.length;
  const where = shown.length > 0 ? ` at ${shown.join(', ')}${more > 0 ? ` and ${more} more place${more === 1 ? '' : 's'}` : ''}` : '';
  const detail = outcome?.what ?? outcome?.reason ?? null;
  const text = where !== '' ? `${chosen.state}${where}` : `${chosen.state}${detail ? ` (${detail})` : ''}`;
  return { state: chosen.state, reason: outcome?.reason ?? null, text };
}

/** Places a knob's line in the table names before "and N more" (its runs' records keep every one). */
const MAX_PLACES_NAMED = 3;
