// A run's training summary from its metric samples: steady throughput, step time, loss facts.
import { interquartileRange, median } from 'simple-statistics';
import type { MetricKind, MetricSample } from './samples.js';
import { KIND_CODE, KINDS, SampleColumns, SOURCE_CODE } from '../store/sampleColumns.js';
import { groupByStep, type StepColumns } from './stepColumns.js';
import {
  findStart,
  slowStretches,
  splitSteadyState,
  warmupSeconds,
  warmupSteps,
  type SlowStretch,
  type SteadySplit,
  type StepMarks,
  type TimedPoint,
  type WarmupRule,
  DEFAULT_WARMUP_RULE,
} from './steadyState.js';
import { onGrid, seriesKey, type SeriesFacts, type StepSampling } from './stepSampling.js';
import { clockGrain, printedGrain } from './timingResolution.js';

export type ThroughputUnit = 'tokens/s' | 'samples/s' | 'steps/s';

export interface TrainingSummary {
  steps: number | null;
  /**
   * `blocks`: medians of up to THROUGHPUT_BLOCKS consecutive stretches of the steady state, in order.
   * Comparisons bootstrap over them: cheap to keep, and stretches carry the slow drift single steps hide.
   */
  throughput: {
    median: number | null;
    iqr: number | null;
    unit: ThroughputUnit | null;
    blocks: number[];
    resolution: number | null;
    overall: number | null;
    overallResolution: number | null;
    uneven: boolean;
  };
  /** Timed steps the steady statistics used (after warm-up, without the left-out ones). */
  steadySteps: number | null;
  /** Milliseconds from the run's start to its first steady step (the fairness checks look from there on). */
  steadyFromMs: number | null;
  /**
   * `medianWithOutliers`: every timed step, warm-up and left-out ones put back, so a reader sees what leaving them out changed.
   * `betweenLines`: where the script printed its step time, the median wall-clock time per step between those lines (null
   * when the lines have no usable times, as an import without stamps): a reader sees time spent outside the timed step.
   */
  stepTimeMs: { median: number | null; medianWithOutliers: number | null; betweenLines: number | null };
  finalLoss: number | null;
  bestLoss: number | null;
  evalLoss: number | null;
  nanDetected: boolean | null;
  lossFell: boolean | null;
  warmup: { rule: WarmupRule['kind']; stable: boolean; steps: number; seconds: number; reason: string; setBy: WarmupSetBy | null } | null;
  /** Slow stretches after the warm-up (contention, an event): kept in the statistics, flagged here. */
  slowStretches: SlowStretch[];
  /** Steady steps left out of the statistics, for any of the reasons in `outliers`. */
  outlierSteps: number;
  /** Steps left out because a profiler was on while they ran (`run --profile`). */
  profiledSteps: number;
  /**
   * Why steps were left out: `marked` carried an eval or checkpoint printed in the output, `byUser`
   * were named by the user, `byRule` were far from the median (symmetric rule, a small share at most);
   * `flaggedKept` were far from the median but too many to be accidents, so they count.
   */
  outliers: { marked: number; byUser: number; byRule: number; flaggedKept: number } | null;
  /** Which samples the summary used: the structured channel wins over parsed text when present. */
  metricsSource: 'channel' | 'text' | null;
  /** Tokens in one step where known, so losses can be compared at a matched token count. */
  tokensPerStep: number | null;
  /** Samples in one step where known (throughput per sample, losses at a matched sample count). */
  samplesPerStep: number | null;
  /** The training loss at up to LOSS_CURVE_POINTS steps (each a window's mean), to compare at a matched step. */
  lossCurve: Array<[number, number]>;
  /** The eval loss at up to LOSS_CURVE_POINTS of its evals, to compare at equal work. */
  evalCurve: Array<[number, number]>;
  /** The last finite value of each metric, for a quality gate on any metric the runs share. */
  finalMetrics: Record<string, number>;
  /** What a reader of these numbers must know, in words: a step counter that restarted, a printed step time the clock disputes. */
  notes: string[];
}

export const THROUGHPUT_BLOCKS = 20;
export const LOSS_CURVE_POINTS = 200;

/** Who set the warm-up by hand: the run itself, its workload, or its sweep. */
export type WarmupSetBy = 'run' | 'workload' | 'sweep';

export interface SummaryOptions {
  /** Tokens in one step (given with the run or sweep, or the workload's expression); the script's own statement wins over it. */
  tokensPerStep?: number | null;
  /** Samples in one step (given with the run or sweep), to turn step times into samples/s. */
  samplesPerStep?: number | null;
  warmup?: WarmupRule;
  /** Who set `warmup` by hand (absent: the automatic rule). */
  warmupSetBy?: WarmupSetBy | null;
  /** A span (ms since the run started) a profiler was on: steps that overlap it are left out of the timing. */
  profiledSpan?: { fromTMs: number; toTMs: number } | null;
  /** Steps the user says to leave out of the steady statistics. */
  excludeSteps?: readonly number[];
  /** When the run's knobs' own warm-up (torch.compile's first call) ended, ms since the run started: steps under way before it are warm-up. */
  knobWarmupUntilTMs?: number | null;
  /** The input holds a sample of a long run's steps (see summaryInput.ts), not every one. */
  sampling?: StepSampling | null;
}

/** The values a step's timing is read from (timedPoints): the only ones kept per step. */
const STEP_VALUE_NAMES = ['step_time_ms', 'tokens', 'tokens_per_sec', 'steps_per_sec', 'samples_per_sec', 'samples', 'samples_seen'];

const finite = (value: number | undefined): value is number => value !== undefined && Number.isFinite(value);

/**
 * The sample that holds the tokens per step a script printed about itself (see tokensPerStep.ts):
 * used when the run was given none (an ad-hoc command, an imported log).
 */
export const TOKENS_PER_STEP_SAMPLE = 'tokens_per_step';

/**
 * The sample the collector leaves where a printed step counter restarted (with an epoch or a phase) and
 * was counted on (see globalSteps.ts): its value is the printed step, its step the global one.
 */
export const STEP_RESTART_SAMPLE = 'step_counter_restart';

/** Samples that are the engine's bookkeeping, not a metric of the training. */
const BOOKKEEPING_SAMPLES: ReadonlySet<string> = new Set([TOKENS_PER_STEP_SAMPLE, STEP_RESTART_SAMPLE]);

/**
 * A printed step time and the wall clock between the lines that printed it differ by more than this share
 * before the summary says so: line arrival jitters by a few milliseconds, and a script's own timer leaves out a
 * little (its print, the loop's bookkeeping); a tenth is more than that, and worth a look.
 */
export const STEP_CLOCK_DISAGREEMENT = 0.1;
/** Pairs of consecutive timed lines needed before the clock between them is compared: fewer is an anecdote. */
const MIN_CLOCK_PAIRS = 5;

/** The last tokens-per-step statement in the samples, or null. */
function statedTokensPerStep(all: SampleColumns): number | null {
  const code = all.nameCode(TOKENS_PER_STEP_SAMPLE);
  for (let i = all.length - 1; i >= 0 && code >= 0; i--) {
    const value = all.value[i]!;
    if (all.name[i] === code && Number.isFinite(value) && value > 0) return value;
  }
  return null;
}

const TIMING_NAMES = ['step_time_ms', 'tokens_per_sec', 'samples_per_sec', 'steps_per_sec'];

function hasStepTiming(all: SampleColumns, list: Uint32Array): boolean {
  const timing = new Set(TIMING_NAMES.map((name) => all.nameCode(name)));
  return list.some((i) => !Number.isNaN(all.step[i]!) && timing.has(all.name[i]!));
}

/** What a summary reads: the store's columns (see summaryInput.ts), or samples as the rest of the engine holds them. */
export type SummaryInput = readonly MetricSample[] | SampleColumns;

function asColumns(input: SummaryInput): SampleColumns {
  return input instanceof SampleColumns ? input : SampleColumns.from(input);
}

/** The samples of `list` that have this name. */
function named(all: SampleColumns, list: Uint32Array, name: string): Uint32Array {
  const code = all.nameCode(name);
  return code < 0 ? new Uint32Array(0) : all.where((i) => all.name[i] === code, list);
}

/**
 * Whether the summary of these samples reads every progress-bar sample, or only each bar value's
 * last (see MetricStore.progressDigest): it reads them all only when the training lines it uses
 * (summarizeMetrics's choice of source) give no step timing or no loss, and bars stand in.
 */
export function readsEveryProgressSample(input: SummaryInput): boolean {
  const all = asColumns(input);
  const source = all.source.subarray(0, all.length).includes(SOURCE_CODE.channel) ? SOURCE_CODE.channel : SOURCE_CODE.text;
  const train = all.where((i) => all.kind[i] === KIND_CODE.train && all.source[i] === source);
  return !hasStepTiming(all, train) || named(all, train, 'loss').length === 0;
}

export function summarizeMetrics(input: SummaryInput, options: SummaryOptions = {}): TrainingSummary {
  // Lists of indexes into the columns stand for the lists of samples: four bytes a sample each, no objects.
  const all = asColumns(input);
  // The script's own statement ("tokens per iteration will be: 491,520") wins over a value the run was given.
  const tokensPerStep = statedTokensPerStep(all) ?? options.tokensPerStep ?? null;
  const fromChannel = all.where((i) => all.source[i] === SOURCE_CODE.channel);
  const samples = fromChannel.length > 0 ? fromChannel : all.where((i) => all.source[i] === SOURCE_CODE.text);
  const metricsSource = samples.length === 0 ? null : fromChannel.length > 0 ? 'channel' : 'text';

  // Train lines carry the numbers; a progress bar's redraws only count when nothing else gives timing.
  const train = all.where((i) => all.kind[i] === KIND_CODE.train, samples);
  const progress = all.where((i) => all.kind[i] === KIND_CODE.progress, samples);
  const hasTiming = (list: Uint32Array) => hasStepTiming(all, list);
  const timingSource = hasTiming(train) ? train : hasTiming(progress) ? progress : train.length > 0 ? train : progress;
  const records = groupByStep(all, timingSource, STEP_VALUE_NAMES);
  const profiled = profiledStepNumbers(records, options.profiledSpan ?? null);
  // Timed with every record (a step's time may come from its neighbour's stamp), then the profiled ones left out.
  const timed = timePoints(records, tokensPerStep, options.samplesPerStep ?? null);
  const stepTimesKnown = timed.stepTimesKnown;
  // Copied only when a profiler ran: each copy is a few arrays of a number a step.
  const keep = profiled.size === 0 ? null : timed.points.map((point) => !profiled.has(point.step));
  const kept = <T>(list: T[]): T[] => (keep === null ? list : list.filter((_, i) => keep[i]));
  const points = kept(timed.points);
  const throughputs = kept(timed.throughputs);
  const grains = kept(timed.grains);
  const printed = kept(timed.printed);
  const unit = timed.unit;
  const sampling = options.sampling ?? null;
  // Of a sampled run, each step on the grid stands for the run's steps over the grid's (about `every`): counts of steps
  // are the grid's scaled so, never more than the run has.
  const weight = sampling === null ? 1 : sampling.steps / Math.max(1, sampling.grid.size);
  const scaled = (count: number) => Math.round(count * weight);
  const profiledSteps = sampling === null ? profiled.size : scaled([...profiled].filter((step) => onGrid(sampling, step)).length);

  let throughput: TrainingSummary['throughput'] = {
    median: null,
    iqr: null,
    unit: null,
    blocks: [],
    resolution: null,
    overall: null,
    overallResolution: null,
    uneven: false,
  };
  let stepTime: number | null = null;
  let warmup: TrainingSummary['warmup'] = null;
  let stepTimeWithOutliers: number | null = null;
  let betweenLines: number | null = null;
  let outlierSteps = 0;
  let outlierReasons: TrainingSummary['outliers'] = null;
  let steadySteps: number | null = null;
  let steadyFromMs: number | null = null;
  let stretches: SlowStretch[] = [];
  let unevenNote: string | null = null;
  if (points.length > 0) {
    const marks = {
      markedIndexes: markedIndexes(points, all),
      userSteps: new Set(options.excludeSteps ?? []),
      warmupHints: warmupHints(points, all, timingSource),
      knobWarmupUntilTMs: options.knobWarmupUntilTMs ?? null,
    };
    const rule = options.warmup ?? DEFAULT_WARMUP_RULE;
    // What the steady statistics are made over: every point, or of a sampled run the grid's (an even 1 in `every`).
    const view =
      sampling === null
        ? { points, throughputs, grains, split: splitSteadyState(points, rule, marks), fullIndex: null }
        : sampledSplit(sampling, points, throughputs, grains, rule, marks);
    const split = view.split;
    const outliers = new Set(split.outliers);
    const steadyIndexes: number[] = [];
    for (let i = split.start; i < view.points.length; i++) if (!outliers.has(i)) steadyIndexes.push(i);
    outlierSteps = scaled(split.outliers.length);
    outlierReasons = {
      marked: scaled(split.marked),
      byUser: scaled(split.byUser),
      byRule: scaled(split.byRule),
      flaggedKept: scaled(split.flaggedKept.length),
    };
    // Where only a rate was printed the points' step times are relative (see timePoints): no seconds to report.
    warmup = {
      rule: split.rule,
      stable: split.stable,
      steps: split.warmupSteps,
      seconds: stepTimesKnown ? round(split.warmupSeconds, 3) : 0,
      reason: split.reason,
      setBy: split.rule === 'auto' ? null : (options.warmupSetBy ?? 'run'),
    };
    steadySteps = scaled(steadyIndexes.length);
    steadyFromMs = split.start < view.points.length ? view.points[split.start]!.tMs : null;
    stretches = slowStretches(view.points, split.start).map((stretch) => ({ ...stretch, steps: scaled(stretch.steps) }));
    if (steadyIndexes.length > 0) {
      const values = steadyIndexes.map((i) => view.throughputs[i]!);
      // The grain of a typical steady step: the median of rounded step times is off by about one grain at most.
      const resolution = median(steadyIndexes.map((i) => view.grains[i]!));
      stepTime = stepTimesKnown ? median(steadyIndexes.map((i) => view.points[i]!.stepTimeMs)) : null;
      const pace = stepTimesKnown && stepTime !== null ? workOverTime(steadyIndexes, view.points, view.throughputs, view.grains, weight) : null;
      throughput = {
        median: median(values),
        iqr: values.length > 1 ? interquartileRange(values) : 0,
        unit,
        blocks: blockMedians(values),
        resolution,
        overall: pace?.throughput ?? null,
        overallResolution: pace?.resolution ?? null,
        uneven: false,
      };
      // Bursts recur through the run (a loader's workers hand over their batches every few steps); a stall (load on the
      // machine, an event near the end) is in one place. Judged quarter by quarter, so a stall does not measure the whole
      // run, and every run compared with it, by its time.
      const uneven = pace !== null && stepTime !== null && burstsThroughout(steadyIndexes, view.points, stepTime) ? pace : null;
      if (uneven !== null) {
        throughput = { ...throughput, median: uneven.throughput, resolution: uneven.resolution, uneven: true };
        unevenNote = `steps come unevenly (mean step ${figure(uneven.meanMs)} ms against a median of ${figure(stepTime!)} ms: bursts, as a loader with workers hands over several batches at once): the throughput is the steady steps' work over their time, not the median step`;
        stepTime = uneven.meanMs;
      }
    }
    // "With them": warm-up and left-out steps both put back.
    if (stepTimesKnown) stepTimeWithOutliers = median(view.points.map((p) => p.stepTimeMs));
    // Pairs of consecutive lines: of a sampled run, each grid step with the step before it (its lead-in).
    const steadyFlags = new Uint8Array(points.length);
    const pairEnds = view.fullIndex === null ? null : new Uint8Array(points.length);
    for (const i of steadyIndexes) {
      const at = view.fullIndex === null ? i : view.fullIndex[i]!;
      steadyFlags[at] = 1;
      if (pairEnds !== null) {
        pairEnds[at] = 1;
        if (at > 0) steadyFlags[at - 1] = 1;
      }
    }
    betweenLines = clockPerStep(points, printed, steadyFlags, pairEnds);
  }

  const trainAndProgress = new Uint32Array(train.length + progress.length);
  trainAndProgress.set(train);
  trainAndProgress.set(progress, train.length);
  const losses = byStepThenTime(all, named(all, trainAndProgress, 'loss'));
  const trainLosses = all.where((i) => all.kind[i] === KIND_CODE.train, losses);
  const lossSeries = trainLosses.length > 0 ? trainLosses : losses;
  // Of a sampled run the curve and trend are of the grid's steps, an even sample (the head's every step would weigh too much).
  const curveLosses = sampling === null ? lossSeries : all.where((i) => !Number.isNaN(all.step[i]!) && onGrid(sampling, all.step[i]!), lossSeries);
  const finiteLosses: number[] = [];
  for (const i of curveLosses) if (Number.isFinite(all.value[i]!)) finiteLosses.push(all.value[i]!);
  const evalLosses = byStepThenTime(all, named(all, samples, 'eval_loss'));
  let steps: number | null = null;
  for (const i of samples) {
    const step = all.stepAt(i);
    if (step !== null && (steps === null || step > steps)) steps = step;
  }
  const watched = new Set(WATCHED_FOR_NAN.map((name) => all.nameCode(name)));
  let nanDetected = samples.length === 0 ? null : samples.some((i) => watched.has(all.name[i]!) && !Number.isFinite(all.value[i]!));
  let finalLoss = lastFinite(all, lossSeries);
  let bestLoss = finiteLosses.length > 0 ? finiteLosses.reduce((a, b) => (b < a ? b : a)) : null;
  let evalLoss = lastFinite(all, evalLosses);
  let lastValues = finalMetrics(all, samples);
  let samplingNotes: string[] = [];
  if (sampling !== null && metricsSource !== null) {
    // What a sample of steps would get wrong (the last step, the lowest loss, one NaN) comes from every sample.
    const facts = everySampleFacts(sampling, metricsSource);
    ({ steps, finalLoss, bestLoss, evalLoss } = facts);
    nanDetected = facts.nanDetected;
    lastValues = facts.finalMetrics;
    samplingNotes = [samplingNote(sampling)];
  }
  const notes = [...restartNotes(all, samples, steps), ...clockNotes(stepTime, betweenLines), ...(unevenNote === null ? [] : [unevenNote]), ...samplingNotes];

  return {
    steps,
    throughput,
    steadySteps,
    steadyFromMs,
    stepTimeMs: { median: stepTime, medianWithOutliers: stepTimeWithOutliers, betweenLines },
    finalLoss,
    bestLoss,
    evalLoss,
    nanDetected,
    lossFell: lossTrend(finiteLosses),
    warmup,
    slowStretches: stretches,
    outlierSteps,
    profiledSteps,
    outliers: outlierReasons,
    metricsSource,
    tokensPerStep,
    // Where the log's steps count samples, a step holds one: losses are matched on samples whatever the batch.
    samplesPerStep: timed.stepsCountSamples ? 1 : (options.samplesPerStep ?? null),
    lossCurve: lossCurve(all, curveLosses),
    evalCurve: lossCurve(all, evalLosses),
    finalMetrics: lastValues,
    notes,
  };
}

/** The names whose NaN or infinity the summary reports (nanDetected). */
const WATCHED_FOR_NAN = ['loss', 'eval_loss', 'grad_norm'];

/**
 * The steady split of a sampled run: warm-up looked for among the head's points (read whole; a hand rule over all
 * points), the rest of the statistics over the grid's points. `fullIndex`: each grid point's index among all points.
 */
function sampledSplit(sampling: StepSampling, points: TimedPoint[], throughputs: number[], grains: number[], rule: WarmupRule, marks: Required<StepMarks>) {
  let headCount = 0;
  while (headCount < points.length && points[headCount]!.step <= sampling.headLastStep) headCount++;
  const fullIndex: number[] = [];
  for (let i = 0; i < points.length; i++) if (onGrid(sampling, points[i]!.step)) fullIndex.push(i);
  // The automatic rule looks at the head's every step, then the grid's (a slow stretch later on, the steady level).
  const searched = [...Array.from({ length: headCount }, (_, i) => i), ...fullIndex.filter((i) => i >= headCount)];
  const hints = { scriptMarked: marks.warmupHints, knobWarmupUntilTMs: marks.knobWarmupUntilTMs };
  const found =
    rule.kind === 'auto'
      ? (({ start: at, reason }) => ({ start: at < searched.length ? searched[at]! : points.length, reason }))(
          findStart(
            searched.map((i) => points[i]!),
            rule,
            hints,
          ),
        )
      : findStart(points, rule, hints);
  let start = fullIndex.findIndex((i) => i >= found.start);
  if (start < 0) start = fullIndex.length;
  const markedOnGrid = new Set<number>();
  fullIndex.forEach((i, k) => {
    if (marks.markedIndexes.has(i)) markedOnGrid.add(k);
  });
  const gridPoints = fullIndex.map((i) => points[i]!);
  const split: SteadySplit = {
    ...splitSteadyState(gridPoints, rule, { markedIndexes: markedOnGrid, userSteps: marks.userSteps }, { start, reason: found.reason }),
    // Counted over every point: the warm-up lies in the head, read whole.
    warmupSteps: warmupSteps(points, found.start),
    warmupSeconds: warmupSeconds(points, found.start),
  };
  return { points: gridPoints, throughputs: fullIndex.map((i) => throughputs[i]!), grains: fullIndex.map((i) => grains[i]!), split, fullIndex };
}

/** A sampled run's facts that need every sample, from what summaryInput saw of each series as it read them. */
function everySampleFacts(sampling: StepSampling, source: 'channel' | 'text') {
  const of = (name: string, kinds: readonly MetricKind[]) =>
    kinds.map((kind) => sampling.facts.get(seriesKey(name, source, kind))).filter((fact) => fact !== undefined);
  const latest = (facts: readonly SeriesFacts[]) => {
    let best: SeriesFacts['last'] = null;
    for (const { last } of facts) {
      if (
        last !== null &&
        (best === null || last.step > best.step || (last.step === best.step && (last.tMs > best.tMs || (last.tMs === best.tMs && last.order > best.order))))
      )
        best = last;
    }
    return best?.value ?? null;
  };
  const trainLoss = of('loss', ['train']);
  const lossFacts = trainLoss.length > 0 ? trainLoss : of('loss', ['progress']);
  const lows = lossFacts.map((fact) => fact.lowest).filter((low) => low !== null);
  const ofSource = [...sampling.facts.values()].filter((fact) => fact.source === source);
  const steps = ofSource.reduce<number | null>((max, fact) => (fact.maxStep !== null && (max === null || fact.maxStep > max) ? fact.maxStep : max), null);
  const finalMetrics: Record<string, number> = {};
  for (const name of new Set(ofSource.map((fact) => fact.name))) {
    if (BOOKKEEPING_SAMPLES.has(name)) continue;
    const value = latest(ofSource.filter((fact) => fact.name === name));
    if (value !== null) finalMetrics[name] = value;
  }
  return {
    steps,
    finalLoss: latest(lossFacts),
    bestLoss: lows.length > 0 ? Math.min(...lows) : null,
    evalLoss: latest(of('eval_loss', KINDS)),
    nanDetected: ofSource.some((fact) => WATCHED_FOR_NAN.includes(fact.name) && fact.nonFinite),
    finalMetrics,
  };
}

/**
 * The sampled medians' error, in words. An even 1-in-k sample of n steps puts the median within about
 * 1.3 / sqrt(n) of the exact one in rank (99 % for independent step times; a drifting run's even sample does better):
 * 0.5 percentile points at SUMMARY_SAMPLED_STEPS (tested in test/unit/summarySampling.test.ts).
 */
function samplingNote(sampling: StepSampling): string {
  const sampled = Math.round(sampling.steps / sampling.every);
  const points = (100 * samplingRankError(sampled)).toPrecision(2);
  return (
    `This run logged ${sampling.steps.toLocaleString('en-US')} steps: its step statistics are from every ${sampling.every}th step ` +
    `(${sampled.toLocaleString('en-US')} steps, the warm-up looked for among the first ones, read whole), so medians are within about ${points} percentile points of every step's ` +
    `and counts of steps are the sample's scaled to the run. The last step, the final, lowest and eval loss and NaNs are from every step.`
  );
}

/** The share of ranks (0.005: half a percentile point) a median of `n` evenly sampled steps may be off by. */
export function samplingRankError(n: number): number {
  return 1.3 / Math.sqrt(Math.max(1, n));
}

/**
 * The median wall-clock time per step between consecutive steady lines that printed their own step time,
 * or null when fewer than MIN_CLOCK_PAIRS such pairs have times that move (an import without stamps).
 */
function clockPerStep(points: readonly TimedPoint[], printed: readonly boolean[], steady: Uint8Array, pairEnds: Uint8Array | null): number | null {
  const perStep: number[] = [];
  for (let i = 1; i < points.length; i++) {
    const point = points[i]!;
    const previous = points[i - 1]!;
    if (steady[i] !== 1 || steady[i - 1] !== 1 || !printed[i] || !printed[i - 1]) continue;
    if (pairEnds !== null && pairEnds[i] !== 1) continue;
    if (point.step <= previous.step || point.tMs <= previous.tMs) continue;
    perStep.push((point.tMs - previous.tMs) / (point.step - previous.step));
  }
  return perStep.length >= MIN_CLOCK_PAIRS ? median(perStep) : null;
}

/** A printed step time the clock between lines disputes by more than STEP_CLOCK_DISAGREEMENT, in words: never one picked silently. */
function clockNotes(printedMs: number | null, clockMs: number | null): string[] {
  if (printedMs === null || clockMs === null || printedMs <= 0) return [];
  const gap = clockMs - printedMs;
  if (Math.abs(gap) <= STEP_CLOCK_DISAGREEMENT * printedMs) return [];
  const ms = (value: number) => `${+value.toPrecision(3)} ms`;
  if (gap > 0) {
    return [
      `The script prints ${ms(printedMs)} per step, but its lines came ${ms(clockMs)} per step apart: ` +
        `${ms(gap)} per step (${Math.round((100 * gap) / clockMs)} % of the wall clock) is spent outside the step it times ` +
        '(data loading, logging, evaluation or a sync it leaves out). Throughput here is from the printed time.',
    ];
  }
  return [
    `The script prints ${ms(printedMs)} per step, longer than the ${ms(clockMs)} per step between its lines: ` +
      'the printed time may not be one step (an average over a window, a cumulative clock, or another unit). Throughput here is from the printed time.',
  ];
}

/** A step counter that restarted with an epoch or a phase, and how the steps were counted instead. */
function restartNotes(all: SampleColumns, samples: Uint32Array, steps: number | null): string[] {
  const restarts = named(all, samples, STEP_RESTART_SAMPLE).length;
  if (restarts === 0) return [];
  const times = restarts === 1 ? 'once' : `${restarts} times`;
  return [
    `The printed step counter started again ${times} (with an epoch or a phase): steps are counted on through the run${steps === null ? '' : `, ${steps} in all`}, so no step replaces another.`,
  ];
}

/**
 * Steps whose time overlaps the profiled span: a step's record is stamped when it ends, so the step ran
 * from the previous record's time to its own; it overlaps when it ends after the span starts and began
 * before the span ended.
 */
function profiledStepNumbers(records: StepColumns, span: { fromTMs: number; toTMs: number } | null): Set<number> {
  const steps = new Set<number>();
  if (!span) return steps;
  for (let i = 0; i < records.step.length; i++) {
    const began = i > 0 ? records.tMs[i - 1]! : 0;
    if (records.tMs[i]! > span.fromTMs && began < span.toTMs) steps.add(records.step[i]!);
  }
  return steps;
}

/**
 * Timing points whose stretch of the run holds an eval (or checkpoint) line: its time lies after
 * the previous point and at or before this one, or its step lies in the steps this point covers.
 * Both, because a log read back later may have no useful times, and some frameworks print the eval
 * under the step before the one whose time it costs (the later point is marked too then).
 */
function markedIndexes(points: readonly TimedPoint[], all: SampleColumns): Set<number> {
  const markers = all.where((i) => all.kind[i] === KIND_CODE.eval);
  const marked = new Set<number>();
  if (markers.length === 0) return marked;
  const times = Float64Array.from(markers, (i) => all.tMs[i]!).sort();
  const steps = Float64Array.from(
    all.where((i) => !Number.isNaN(all.step[i]!), markers),
    (i) => all.step[i]!,
  ).sort();
  const anyIn = (sorted: Float64Array, low: number, high: number) => {
    // First value above `low` (binary search: a long run has thousands of evals and points).
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]! <= low) lo = mid + 1;
      else hi = mid;
    }
    return lo < sorted.length && sorted[lo]! <= high;
  };
  points.forEach((point, i) => {
    const previous = points[i - 1];
    const byTime = previous !== undefined && previous.tMs < point.tMs && anyIn(times, previous.tMs, point.tMs);
    const byStep = anyIn(steps, previous?.step ?? Number.NEGATIVE_INFINITY, point.step);
    if (byTime || byStep) marked.add(i);
  });
  return marked;
}

/** The sample a parser emits for a step the script marks as warm-up (nanoGPT: `mfu -100.00%`; see parsers/names.ts). */
export const WARMUP_HINT_SAMPLE = 'warmup_hint';

/** Indexes of points whose step the script marks as warm-up. */
function warmupHints(points: readonly TimedPoint[], all: SampleColumns, samples: Uint32Array): Set<number> {
  const hinted = new Set<number>();
  for (const i of named(all, samples, WARMUP_HINT_SAMPLE)) if (!Number.isNaN(all.step[i]!) && all.value[i]! > 0) hinted.add(all.step[i]!);
  const indexes = new Set<number>();
  if (hinted.size === 0) return indexes;
  points.forEach((point, i) => {
    if (hinted.has(point.step)) indexes.add(i);
  });
  return indexes;
}

function finalMetrics(all: SampleColumns, samples: Uint32Array): Record<string, number> {
  const last: Record<string, number> = {};
  for (const i of byStepThenTime(all, samples)) {
    const name = all.names[all.name[i]!]!;
    if (Number.isFinite(all.value[i]!) && !BOOKKEEPING_SAMPLES.has(name)) last[name] = all.value[i]!;
  }
  return last;
}

function blockMedians(values: readonly number[]): number[] {
  const count = Math.min(THROUGHPUT_BLOCKS, values.length);
  const blocks: number[] = [];
  for (let b = 0; b < count; b++) {
    const block = values.slice(Math.floor((b * values.length) / count), Math.floor(((b + 1) * values.length) / count));
    blocks.push(median(block));
  }
  return blocks;
}

/** The finite losses with a step, in windows of equal count, each as [last step, mean loss]. */
function lossCurve(all: SampleColumns, losses: Uint32Array): Array<[number, number]> {
  const points = all.where((i) => !Number.isNaN(all.step[i]!) && Number.isFinite(all.value[i]!), losses);
  const windows = Math.min(LOSS_CURVE_POINTS, points.length);
  const curve: Array<[number, number]> = [];
  for (let w = 0; w < windows; w++) {
    const window = points.subarray(Math.floor((w * points.length) / windows), Math.floor(((w + 1) * points.length) / windows));
    curve.push([all.step[window.at(-1)!]!, round(window.reduce((sum, i) => sum + all.value[i]!, 0) / window.length, 6)]);
  }
  return curve;
}

/**
 * The samples of `list` by step (those without one last), then by time, keeping the list's order where both tie
 * (a stable sort of the list).
 */
function byStepThenTime(all: SampleColumns, list: Uint32Array): Uint32Array {
  const stepKey = (i: number) => (Number.isNaN(all.step[i]!) ? Number.MAX_SAFE_INTEGER : all.step[i]!);
  const compare = (i: number, j: number) => stepKey(i) - stepKey(j) || all.tMs[i]! - all.tMs[j]!;
  // Already in order (a log's usual case): a stable sort would change nothing.
  let inOrder = true;
  for (let k = 1; k < list.length && inOrder; k++) inOrder = compare(list[k - 1]!, list[k]!) <= 0;
  if (inOrder) return list;
  const positions = Uint32Array.from({ length: list.length }, (_, p) => p);
  positions.sort((a, b) => compare(list[a]!, list[b]!) || a - b);
  return positions.map((p) => list[p]!);
}

/**
 * Step time and throughput at each step record, from what the log gives, in this order: printed
 * step time; printed throughput with the tokens per step; time between records over the steps between.
 * A log that prints only a rate (`991 tok/s`, no step time, no tokens per step, no usable times:
 * an imported file) still has a throughput: its points then carry the rate's inverse as a relative
 * step time, enough to find the steady state, and `stepTimesKnown` is false.
 */
function timePoints(records: StepColumns, tokensPerStep: number | null, samplesPerStep: number | null) {
  const timed = timedPoints(records, tokensPerStep, samplesPerStep);
  if (timed.points.length > 0) return { ...timed, stepTimesKnown: true };
  const points: TimedPoint[] = [];
  const throughputs: number[] = [];
  const rateName = timed.unit === 'tokens/s' ? 'tokens_per_sec' : timed.unit === 'samples/s' ? 'samples_per_sec' : null;
  if (rateName === null) return { ...timed, stepTimesKnown: false };
  const printed: boolean[] = [];
  const grains: number[] = [];
  const rates = records.values.get(rateName);
  for (let i = 0; rates !== undefined && i < records.step.length; i++) {
    const rate = rates[i];
    if (!finite(rate) || rate <= 0) continue;
    points.push({ step: records.step[i]!, tMs: records.tMs[i]!, stepTimeMs: 1000 / rate });
    throughputs.push(rate);
    grains.push(printedGrain(rate));
    printed.push(false);
  }
  return { points, throughputs, grains, unit: timed.unit, printed, stepTimesKnown: false, stepsCountSamples: timed.stepsCountSamples };
}

function timedPoints(records: StepColumns, tokensPerStep: number | null, samplesPerStep: number | null) {
  const points: TimedPoint[] = [];
  const throughputs: number[] = [];
  /** Whether each point's step time is the one the script printed (not worked out from a rate or the clock). */
  const printed: boolean[] = [];
  /** Each point's throughput's grain, relative (see timingResolution.ts). */
  const grains: number[] = [];
  const has = (name: string) => records.values.get(name)?.some(Number.isFinite) ?? false;
  // A log that counts samples done where others count steps (pytorch/examples' MNIST): its step is a sample.
  const stepsCountSamples = has('samples_seen');
  const unit: ThroughputUnit =
    has('tokens_per_sec') || has('tokens') || tokensPerStep !== null
      ? 'tokens/s'
      : has('samples_per_sec') || has('samples') || samplesPerStep !== null || stepsCountSamples
        ? 'samples/s'
        : 'steps/s';

  const { step: steps, tMs: times } = records;
  const bursts = arrivalBursts(times);
  for (let i = 0; i < steps.length; i++) {
    const v = (name: string) => records.values.get(name)?.[i];
    let stepTimeMs: number | null = null;
    const printedMs = v('step_time_ms');
    const tokensThisStep = finite(v('tokens')) ? v('tokens')! : tokensPerStep;
    let grain = 0;
    // When the step time's span began, where the clock measured it (a printed time's span is its steps' time).
    let beganMs: number | undefined;
    if (finite(printedMs) && printedMs > 0) {
      stepTimeMs = printedMs;
      grain = printedGrain(printedMs);
    } else if (finite(v('tokens_per_sec')) && v('tokens_per_sec')! > 0 && tokensThisStep !== null) {
      stepTimeMs = (tokensThisStep / v('tokens_per_sec')!) * 1000;
      grain = printedGrain(v('tokens_per_sec')!);
    } else if (finite(v('steps_per_sec')) && v('steps_per_sec')! > 0) {
      stepTimeMs = 1000 / v('steps_per_sec')!;
      grain = printedGrain(v('steps_per_sec')!);
    } else {
      // Lines read together carry one time: the steps of the whole burst took the time since the read before it.
      const last = bursts.lastOf[i]!;
      const before = bursts.before[i]!;
      if (before >= 0 && steps[last]! > steps[before]! && times[i]! > times[before]!) {
        const burstSteps = steps[last]! - steps[before]!;
        stepTimeMs = (times[i]! - times[before]!) / burstSteps;
        grain = clockGrain(stepTimeMs, times[before]!, times[i]!, burstSteps);
        beganMs = times[before]!;
      }
    }
    if (stepTimeMs === null) continue;

    let rate: number | null = null;
    if (unit === 'tokens/s') {
      if (finite(v('tokens_per_sec'))) {
        rate = v('tokens_per_sec')!;
        grain = printedGrain(rate);
      } else if (tokensThisStep !== null) rate = (tokensThisStep / stepTimeMs) * 1000;
    } else if (unit === 'samples/s') {
      if (finite(v('samples_per_sec'))) {
        rate = v('samples_per_sec')!;
        grain = printedGrain(rate);
      } else if (finite(v('samples'))) rate = (v('samples')! / stepTimeMs) * 1000;
      else if (stepsCountSamples) rate = 1000 / stepTimeMs;
      else if (samplesPerStep !== null) rate = (samplesPerStep / stepTimeMs) * 1000;
    } else {
      rate = 1000 / stepTimeMs;
    }
    if (rate === null) continue;
    points.push(beganMs === undefined ? { step: steps[i]!, tMs: times[i]!, stepTimeMs } : { step: steps[i]!, tMs: times[i]!, stepTimeMs, beganMs });
    throughputs.push(rate);
    grains.push(grain);
    printed.push(finite(printedMs) && printedMs > 0);
  }
  return { points, throughputs, grains, unit, printed, stepsCountSamples };
}

/**
 * Where the mean steady step is this much longer than the median one, the median misses the run's pace: most steps
 * are quick and a regular few wait (a loader with 4 workers: 3 steps of 1 ms, then one of 37 ms), so the median says
 * 10× the true throughput. An even run with slow eval or logging steps now and then stays well under it (a step of 6×
 * the median every 50th: 1.1).
 */
const UNEVEN_PACE_RATIO = 1.5;
/** Of the quarters of a run's steady steps, how many must each be uneven for the run's pace to be (see burstsThroughout). */
const UNEVEN_QUARTERS_AT_LEAST = 3;
/** Fewer steady steps than this are judged whole: a quarter of one or two steps says nothing. */
const QUARTERED_FROM_STEPS = 8;

/**
 * Whether the steady steps' mean is UNEVEN_PACE_RATIO times their median step in at least UNEVEN_QUARTERS_AT_LEAST of
 * their four quarters: a pace of bursts, not a stall. A stall of 2-5 steps at the end of a 20-step run (nanoGPT on a
 * busy machine: 56 ms steps, then 1.2-4 s ones) is in one quarter and leaves the run to its median step; a slow step
 * every 4th, or 4 slow in every 10, are in all four.
 */
function burstsThroughout(steady: readonly number[], points: readonly TimedPoint[], medianStepMs: number): boolean {
  const unevenIn = (part: readonly number[]) =>
    part.length > 0 && part.reduce((sum, i) => sum + points[i]!.stepTimeMs, 0) / part.length > UNEVEN_PACE_RATIO * medianStepMs;
  if (steady.length < QUARTERED_FROM_STEPS) return unevenIn(steady);
  let quarters = 0;
  for (let q = 0; q < 4; q++) if (unevenIn(steady.slice(Math.floor((q * steady.length) / 4), Math.floor(((q + 1) * steady.length) / 4)))) quarters++;
  return quarters >= UNEVEN_QUARTERS_AT_LEAST;
}

/** The steady steps' work over their time, their mean step, and how finely the sum of their times is known; null without time. */
function workOverTime(steady: readonly number[], points: readonly TimedPoint[], throughputs: readonly number[], grains: readonly number[], weight: number) {
  let totalMs = 0;
  let work = 0;
  let coarsest = 0;
  for (const i of steady) {
    const ms = points[i]!.stepTimeMs;
    totalMs += ms;
    // A step's work is its rate times its time (its tokens or samples; 1 for steps/s).
    work += (throughputs[i]! * ms) / 1000;
    coarsest = Math.max(coarsest, grains[i]! * ms);
  }
  if (!(totalMs > 0)) return null;
  const meanMs = totalMs / steady.length;
  // A sum of step times is off only by the grain at its two ends (of a sampled run, the sum stands for `weight` times its time).
  return { throughput: (work * 1000) / totalMs, meanMs, resolution: (2 * coarsest) / (totalMs * weight) };
}

/**
 * Records read at one time (a burst): for each record, the last record of its burst and the last record before the
 * burst (-1 for the first burst), so each step of a burst is timed by the whole burst over the time since the read before.
 */
function arrivalBursts(times: ArrayLike<number>): { lastOf: Int32Array; before: Int32Array } {
  const lastOf = new Int32Array(times.length);
  const before = new Int32Array(times.length);
  let start = 0;
  while (start < times.length) {
    let end = start;
    while (end + 1 < times.length && times[end + 1] === times[start]) end++;
    for (let k = start; k <= end; k++) {
      lastOf[k] = end;
      before[k] = start - 1;
    }
    start = end + 1;
  }
  return { lastOf, before };
}

function lastFinite(all: SampleColumns, list: Uint32Array): number | null {
  for (let k = list.length - 1; k >= 0; k--) if (Number.isFinite(all.value[list[k]!]!)) return all.value[list[k]!]!;
  return null;
}

/** Loss fell when the mean of the last tenth is below the mean of the first tenth (at least one point each). */
function lossTrend(losses: readonly number[]): boolean | null {
  if (losses.length < 2) return null;
  const n = Math.max(1, Math.floor(losses.length / 10));
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return mean(losses.slice(-n)) < mean(losses.slice(0, n));
}

/** Three significant figures, for a note: 10, 37.5, 0.842. */
function figure(value: number): string {
  return String(Number(value.toPrecision(3)));
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
