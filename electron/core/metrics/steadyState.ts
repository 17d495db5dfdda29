// Steady state: which early steps are warm-up (a one-sided change point) and which steps are left out as outliers, each with its reason.
import { median } from 'simple-statistics';

export type WarmupRule =
  | { kind: 'steps'; steps: number }
  | { kind: 'seconds'; seconds: number }
  /** The one-sided change point described at `findWarmupEnd`. */
  | { kind: 'auto' };

export const DEFAULT_WARMUP_RULE: WarmupRule = { kind: 'auto' };

/**
 * A step is "slow" (or, for outliers, "far") when it is this many robust standard deviations
 * (1.4826 × MAD) from the reference median: the modified z-score cut-off of Iglewicz and Hoaglin (1993).
 */
export const ROBUST_Z = 3.5;
/** 1.4826 × MAD estimates the standard deviation of normal data (1 / Φ⁻¹(3/4)). */
const MAD_TO_SD = 1.4826;
/**
 * And by at least this share of the median: timing logs print 3–4 digits and a step 2 % slower
 * is noise to a person reading the log, whatever a test on a very quiet series says.
 */
export const MIN_RELATIVE_EXCESS = 0.1;
/** Significance of the warm-up test (one-sided binomial, see `findWarmupEnd`). */
export const WARMUP_ALPHA = 0.05;
/**
 * The symmetric rule may drop unmarked steps only while they are at most this share of the steady
 * steps (1 in 50). More than that is a feature of the run (a bimodal run, a slow mode), not an accident: they are flagged and kept.
 */
export const MAX_RULE_DROP_SHARE = 0.02;

export interface TimedPoint {
  step: number;
  tMs: number;
  /** Milliseconds per step around this point; the quantity steady state is judged on. */
  stepTimeMs: number;
}

/** What the output says about the steps: indexes of points that carry an eval, checkpoint or logging marker, and steps the user left out. */
export interface StepMarks {
  markedIndexes?: ReadonlySet<number>;
  userSteps?: ReadonlySet<number>;
}

export interface SteadySplit {
  /** Index of the first steady point. */
  start: number;
  rule: WarmupRule['kind'];
  /** Kept for stored summaries: the change-point rule always reaches an answer. */
  stable: boolean;
  warmupSteps: number;
  warmupSeconds: number;
  /** Why the warm-up is what it is, in words. */
  reason: string;
  /** Indexes (at or after `start`) left out of the steady statistics, in order. */
  outliers: number[];
  /** How many of `outliers` each reason left out. */
  marked: number;
  byUser: number;
  byRule: number;
  /** Indexes the symmetric rule flagged but kept (too many to be accidents). */
  flaggedKept: number[];
}

export function splitSteadyState(points: readonly TimedPoint[], rule: WarmupRule = DEFAULT_WARMUP_RULE, marks: StepMarks = {}): SteadySplit {
  const { start, reason } = findStart(points, rule);
  const markedIndexes = marks.markedIndexes ?? new Set<number>();
  const userSteps = marks.userSteps ?? new Set<number>();
  const leftOut = new Map<number, 'marked' | 'user' | 'rule'>();
  for (let i = start; i < points.length; i++) {
    if (userSteps.has(points[i]!.step)) leftOut.set(i, 'user');
    else if (markedIndexes.has(i)) leftOut.set(i, 'marked');
  }
  const candidates: number[] = [];
  for (let i = start; i < points.length; i++) if (!leftOut.has(i)) candidates.push(i);
  const flagged = flagSymmetric(candidates.map((i) => points[i]!.stepTimeMs)).map((k) => candidates[k]!);
  const mayDrop = flagged.length <= Math.floor(MAX_RULE_DROP_SHARE * candidates.length);
  if (mayDrop) for (const i of flagged) leftOut.set(i, 'rule');
  const reasons = [...leftOut.values()];
  return {
    start,
    rule: rule.kind,
    stable: true,
    warmupSteps: warmupSteps(points, start),
    warmupSeconds: warmupSeconds(points, start),
    reason,
    outliers: [...leftOut.keys()].sort((a, b) => a - b),
    marked: reasons.filter((r) => r === 'marked').length,
    byUser: reasons.filter((r) => r === 'user').length,
    byRule: reasons.filter((r) => r === 'rule').length,
    flaggedKept: mayDrop ? [] : flagged,
  };
}

/** Median and robust scale, the scale floored so a perfectly even series still has a tolerance. */
function robustLevel(values: readonly number[]): { level: number; threshold: number } {
  const level = median(values);
  const mad = median(values.map((v) => Math.abs(v - level)));
  return { level, threshold: Math.max(ROBUST_Z * MAD_TO_SD * mad, MIN_RELATIVE_EXCESS * level) };
}

/** Indexes of values far from the median on either side. */
function flagSymmetric(values: readonly number[]): number[] {
  if (values.length < 3) return [];
  const { level, threshold } = robustLevel(values);
  const flagged: number[] = [];
  values.forEach((v, i) => {
    if (Math.abs(v - level) > threshold) flagged.push(i);
  });
  return flagged;
}

/** Steps each warm-up point stands for: the steps since the previous point (at least the point's own). */
function stepsCovered(points: readonly TimedPoint[], i: number): number {
  return Math.max(1, points[i]!.step - (i > 0 ? points[i - 1]!.step : 0));
}

function warmupSteps(points: readonly TimedPoint[], start: number): number {
  let steps = 0;
  for (let i = 0; i < start; i++) steps += stepsCovered(points, i);
  return steps;
}

/**
 * Training time spent in warm-up: each warm-up point's step time times the steps it stands for
 * (a log printing every 10 steps prints their average). Process start-up is not counted, and an
 * imported log without timestamps gets the same answer as a live run.
 */
function warmupSeconds(points: readonly TimedPoint[], start: number): number {
  let ms = 0;
  for (let i = 0; i < start; i++) ms += points[i]!.stepTimeMs * stepsCovered(points, i);
  return ms / 1000;
}

function findStart(points: readonly TimedPoint[], rule: WarmupRule): { start: number; reason: string } {
  if (points.length === 0) return { start: 0, reason: 'no timed steps' };
  switch (rule.kind) {
    case 'steps': {
      const firstStep = points[0]!.step;
      const index = points.findIndex((p) => p.step - firstStep >= rule.steps);
      return { start: index < 0 ? points.length : index, reason: `set by hand: the first ${rule.steps} steps` };
    }
    case 'seconds': {
      const index = points.findIndex((p) => p.tMs / 1000 >= rule.seconds);
      return { start: index < 0 ? points.length : index, reason: `set by hand: the first ${rule.seconds} s` };
    }
    case 'auto':
      return findWarmupEnd(points.map((p) => p.stepTimeMs));
  }
}

/**
 * The one-sided change point. Reference: the second half of the run (warm-up may never take more
 * than half). A step is slow when it exceeds the reference median by ROBUST_Z robust SDs and by
 * MIN_RELATIVE_EXCESS; faster steps are never slow. Let p be the reference's share of slow steps
 * (with half a step added, so a clean reference is not taken as proof that slow steps are impossible).
 * Among prefixes whose steps are mostly slow, take the one that maximises the CUSUM of
 * (slow − p); it is warm-up only when a one-sided binomial test says that many slow steps in that
 * prefix are unlikely at rate p (below WARMUP_ALPHA). A single blip is never a majority of a prefix
 * longer than itself, and a bimodal run's early slow steps are as likely as its later ones.
 * Failing that, a slow first step alone is warm-up when it is slower than every later step.
 */
function findWarmupEnd(times: readonly number[]): { start: number; reason: string } {
  const half = Math.floor(times.length / 2);
  if (half < 1) return { start: 0, reason: 'none: too few timed steps to tell' };
  const reference = times.slice(half);
  const { level, threshold } = robustLevel(reference);
  const slow = times.map((t) => t - level > threshold);
  const p = (reference.filter((_, i) => slow[half + i]).length + 0.5) / (reference.length + 1);

  let best = 0;
  let bestScore = 0;
  let score = 0;
  let slowCount = 0;
  for (let k = 1; k <= half; k++) {
    if (slow[k - 1]) slowCount++;
    score += (slow[k - 1] ? 1 : 0) - p;
    if (slowCount * 2 > k && score > bestScore) {
      best = k;
      bestScore = score;
    }
  }
  const margin = `by more than ${ROBUST_Z} robust SDs and ${MIN_RELATIVE_EXCESS * 100} %`;
  // The first step does start-up work in every framework we parse (CUDA context, compile,
  // allocator): slow and slower than every later step, it is warm-up even in a run too short to test.
  const slowFirstStep = slow[0] === true && times[0]! > Math.max(...times.slice(1));
  const firstStepOnly = {
    start: 1,
    reason: `the first step only: slower than every later step and than the steady median (${round3(level)} ms) ${margin}`,
  };
  if (best === 0) return slowFirstStep ? firstStepOnly : { start: 0, reason: 'none: no early stretch of slower steps' };
  const slowInPrefix = slow.slice(0, best).filter(Boolean).length;
  const pValue = binomialTail(best, slowInPrefix, p);
  const what = `${slowInPrefix} of the first ${best} steps slower than the steady median (${round3(level)} ms) ${margin}`;
  if (pValue < WARMUP_ALPHA) return { start: best, reason: `${what} (one-sided change point, p = ${round3(pValue)})` };
  if (slowFirstStep) return firstStepOnly;
  return { start: 0, reason: `none: ${what}, but that is not unusual for this run (p = ${round3(pValue)})` };
}

/** P(X ≥ k) for X ~ Binomial(n, p), summed in log space so long runs do not overflow. */
function binomialTail(n: number, k: number, p: number): number {
  let total = 0;
  let logChoose = 0;
  for (let i = 0; i <= n; i++) {
    if (i > 0) logChoose += Math.log((n - i + 1) / i);
    if (i >= k) total += Math.exp(logChoose + i * Math.log(p) + (n - i) * Math.log(1 - p));
  }
  return Math.min(1, total);
}

function round3(value: number): string {
  return Number(value.toPrecision(3)).toString();
}
