// Steady state: which early steps are warm-up (a slow start that ends for good) and which steps are left out as outliers, each with its reason.
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
/**
 * The automatic rule never takes more than this share of a run's timed steps as warm-up, and a slow start that
 * lasts longer is not warm-up at all (load on the machine, most likely). Real warm-ups (CUDA context, compile,
 * allocator, cudnn autotune) take a few steps of the hundreds a timing run has; a person can set more by hand.
 */
export const MAX_AUTO_WARMUP_SHARE = 0.2;

export interface TimedPoint {
  step: number;
  tMs: number;
  /** Milliseconds per step around this point; the quantity steady state is judged on. */
  stepTimeMs: number;
  /** Where the clock measured the step time: when its span began (the line before it arrived). */
  beganMs?: number;
}

/** What the output says about the steps: indexes of points that carry an eval, checkpoint or logging marker, and steps the user left out. */
export interface StepMarks {
  markedIndexes?: ReadonlySet<number>;
  userSteps?: ReadonlySet<number>;
  /** Indexes of points the script itself marks as warm-up (nanoGPT's `mfu -100%`). */
  warmupHints?: ReadonlySet<number>;
  /** When a knob's own warm-up (torch.compile's first call) ended, ms since the run started: see knobWarmupPoints. */
  knobWarmupUntilTMs?: number | null;
}

/** Where the automatic rule looks for the start besides the step times: what the script and the knobs say. */
export interface WarmupHints {
  scriptMarked: ReadonlySet<number>;
  knobWarmupUntilTMs: number | null;
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

/**
 * `decided`: where the steady state starts, found beforehand (a long run's warm-up is looked for among its first steps
 * read whole, its statistics made over a sample of the rest: see summaryInput.ts).
 */
export function splitSteadyState(
  points: readonly TimedPoint[],
  rule: WarmupRule = DEFAULT_WARMUP_RULE,
  marks: StepMarks = {},
  decided?: { start: number; reason: string },
): SteadySplit {
  const { start, reason } =
    decided ?? findStart(points, rule, { scriptMarked: marks.warmupHints ?? new Set(), knobWarmupUntilTMs: marks.knobWarmupUntilTMs ?? null });
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

export function warmupSteps(points: readonly TimedPoint[], start: number): number {
  let steps = 0;
  for (let i = 0; i < start; i++) steps += stepsCovered(points, i);
  return steps;
}

/**
 * Training time spent in warm-up: each warm-up point's step time times the steps it stands for
 * (a log printing every 10 steps prints their average). Process start-up is not counted, and an
 * imported log without timestamps gets the same answer as a live run.
 */
export function warmupSeconds(points: readonly TimedPoint[], start: number): number {
  let ms = 0;
  for (let i = 0; i < start; i++) ms += points[i]!.stepTimeMs * stepsCovered(points, i);
  return ms / 1000;
}

/** Index of the first steady point by the rule, and why. */
export function findStart(points: readonly TimedPoint[], rule: WarmupRule, hints: WarmupHints): { start: number; reason: string } {
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
    case 'auto': {
      // The script's own word first: the points it marks as warm-up, from the first on.
      let hinted = 0;
      while (hinted < points.length && hints.scriptMarked.has(hinted)) hinted++;
      if (hinted > 0) return { start: hinted, reason: `the script marks ${stepsText(points, 0, hinted)} as warm-up (${WARMUP_HINT_TEXT})` };
      const found = findWarmupEnd(points);
      if (hints.knobWarmupUntilTMs === null) return found;
      // The knob's warm-up is warm-up whatever its steps' speed (a later stall may be slower): never throughput.
      const compiled = knobWarmupPoints(points, hints.knobWarmupUntilTMs);
      const ended = `${(hints.knobWarmupUntilTMs / 1000).toFixed(1)} s into the run`;
      if (compiled === 0)
        return points.length === 0 || found.start > 0
          ? found
          : {
              start: 0,
              reason: `none among the timed steps: torch.compile's first call (the compile knob) ended ${ended}, before step ${points[0]!.step}, the first timed step, began`,
            };
      if (found.start > compiled) return found;
      return { start: compiled, reason: `${stepsText(points, 0, compiled)}: torch.compile's first call (the compile knob) ran until ${ended}` };
    }
  }
}

/**
 * Leading points whose steps were under way before `untilTMs`: each point's time runs from the line before it (a
 * printed time's, from its steps' time), so a knob's warm-up that ended before the first timed step began takes none.
 */
export function knobWarmupPoints(points: readonly TimedPoint[], untilTMs: number): number {
  let count = 0;
  while (count < points.length) {
    const point = points[count]!;
    const began = point.beganMs ?? (count > 0 ? points[count - 1]!.tMs : point.tMs - point.stepTimeMs * stepsCovered(points, 0));
    if (began >= untilTMs) break;
    count++;
  }
  return count;
}

/** What the hint samples are: nanoGPT prints `mfu -100.00%` until its MFU estimate starts. */
export const WARMUP_HINT_TEXT = 'mfu -100 %: not measured yet';

/** "the first logged step (step 0)", "the first 3 logged steps (steps 0–20)", "the first 4 steps". */
function stepsText(points: readonly TimedPoint[], from: number, to: number): string {
  const count = to - from;
  const first = points[from]!.step;
  const last = points[to - 1]!.step;
  const everyStep = last - first === count - 1;
  if (count === 1) return everyStep && first <= 1 ? 'the first step only' : `the first logged step (step ${first})`;
  return everyStep ? `the first ${count} steps` : `the first ${count} logged steps (steps ${first}–${last})`;
}

/** Median of the steady reference and how far above it a step must be to be slow: ROBUST_Z robust SDs and MIN_RELATIVE_EXCESS. */
function slowFlags(times: readonly number[], reference: readonly number[]): { slow: boolean[]; level: number } {
  const { level, threshold } = robustLevel(reference);
  return { slow: times.map((t) => t - level > threshold), level };
}

/**
 * Warm-up: a stretch at the very start whose steps are slower than the run's steady level (its median after the
 * first MAX_AUTO_WARMUP_SHARE, with ROBUST_Z robust SDs and MIN_RELATIVE_EXCESS of margin; faster steps are never
 * slow) and that ends for good:
 * - it starts at the first step: a slow stretch after normal steps is load on the machine or an event, not warm-up;
 * - it ends within MAX_AUTO_WARMUP_SHARE of the run, at the latest where two normal steps in a row first come;
 * - it does not return: no later stretch of its length is as slow (that is contention that comes and goes);
 * - its slow steps are unlikely at the rate the rest of the run shows them (a one-sided binomial test, WARMUP_ALPHA).
 * Among the prefixes that qualify, the one that maximises the CUSUM of (slow − p). Failing all that, a slow first
 * step alone is warm-up when it is slower than every later step (start-up work: CUDA context, compile, allocator).
 */
function findWarmupEnd(points: readonly TimedPoint[]): { start: number; reason: string } {
  const times = points.map((p) => p.stepTimeMs);
  if (times.length < 2) return { start: 0, reason: 'none: too few timed steps to tell' };
  const cap = Math.max(1, Math.floor(MAX_AUTO_WARMUP_SHARE * times.length));
  const reference = times.slice(cap);
  const { slow, level } = slowFlags(times, reference);
  const margin = `by more than ${ROBUST_Z} robust SDs and ${MIN_RELATIVE_EXCESS * 100} %`;
  const slowFirstStep = slow[0] === true && times[0]! > Math.max(...times.slice(1));
  const firstStepOnly = {
    start: 1,
    reason: `${stepsText(points, 0, 1)}: slower than every later step and than the steady median (${round3(level)} ms) ${margin}`,
  };
  if (!slow[0])
    return {
      start: 0,
      reason: `none: the first step is no slower than the steady median (${round3(level)} ms); a slow stretch after normal steps is not warm-up`,
    };
  // The warm-up ends for good at the first two normal steps in a row.
  let end = cap;
  for (let i = 1; i < cap; i++) {
    if (!slow[i] && !slow[i + 1]) {
      end = i;
      break;
    }
  }
  const p = (reference.filter((_, i) => slow[cap + i]).length + 0.5) / (reference.length + 1);
  let best = 0;
  let bestScore = 0;
  let score = 0;
  let slowCount = 0;
  for (let k = 1; k <= end; k++) {
    if (slow[k - 1]) slowCount++;
    score += (slow[k - 1] ? 1 : 0) - p;
    if (slowCount * 2 > k && score > bestScore) {
      best = k;
      bestScore = score;
    }
  }
  const slowShare = (from: number, to: number) => slow.slice(from, to).filter(Boolean).length / Math.max(1, to - from);
  // Still slow at the cap, with no two normal steps in a row before it: the slow start does not end within a fifth of the run.
  const window = Math.max(2, best);
  const endsWithinCap = end < cap || !slow[cap];
  if (best > 0 && !endsWithinCap) {
    if (slowFirstStep) return firstStepOnly;
    return {
      start: 0,
      reason: `none: the steps stay slower than the steady median (${round3(level)} ms) past the first ${MAX_AUTO_WARMUP_SHARE * 100} % of the run: load on the machine, not warm-up (set warm-up steps by hand if it is warm-up)`,
    };
  }
  // A stretch as slow later on: the slowness comes and goes.
  for (let from = best + window; best > 0 && from + window <= times.length; from++) {
    if (slowShare(from, from + window) >= 0.5 && window >= 2 && slow[from] && slow[from + window - 1]) {
      if (slowFirstStep) return firstStepOnly;
      return {
        start: 0,
        reason: `none: the slow start returns later (steps ${points[from]!.step}–${points[from + window - 1]!.step} as slow): load that comes and goes, not warm-up`,
      };
    }
  }
  if (best === 0) return slowFirstStep ? firstStepOnly : { start: 0, reason: 'none: no early stretch of slower steps' };
  if (best === 1) return slowFirstStep ? firstStepOnly : { start: 0, reason: `none: only the first step is slow, and a later step is slower still` };
  const slowInPrefix = slow.slice(0, best).filter(Boolean).length;
  const pValue = binomialTail(best, slowInPrefix, p);
  const what = `${slowInPrefix} of ${stepsText(points, 0, best).replace(/^the first /u, 'the first ')} slower than the steady median (${round3(level)} ms) ${margin}`;
  if (pValue < WARMUP_ALPHA) return { start: best, reason: `${what}, and never again (one-sided change point, p = ${round3(pValue)})` };
  if (slowFirstStep) return firstStepOnly;
  return { start: 0, reason: `none: ${what}, but that is not unusual for this run (p = ${round3(pValue)})` };
}

/** Most slow stretches kept with a summary: more is one story repeating. */
export const MAX_SLOW_STRETCHES = 20;
/** A slow stretch is at least this many slow points in a row (one is a blip, the outlier rule's business). */
export const MIN_STRETCH_POINTS = 3;

export interface SlowStretch {
  fromStep: number;
  toStep: number;
  /** Logged points in it. */
  steps: number;
  /** Its median step time over the steady median, less 1 (0.3: 30 % slower). */
  slowerBy: number;
}

/** Stretches of slow steps after the warm-up: contention or an event, kept in the statistics and flagged. */
export function slowStretches(points: readonly TimedPoint[], start: number): SlowStretch[] {
  const steady = points.slice(start).map((p) => p.stepTimeMs);
  if (steady.length < MIN_STRETCH_POINTS) return [];
  const { slow, level } = slowFlags(steady, steady);
  const out: SlowStretch[] = [];
  for (let i = 0; i < steady.length && out.length < MAX_SLOW_STRETCHES;) {
    if (!slow[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < steady.length && slow[j]) j++;
    if (j - i >= MIN_STRETCH_POINTS) {
      out.push({
        fromStep: points[start + i]!.step,
        toStep: points[start + j - 1]!.step,
        steps: j - i,
        slowerBy: round3Number(median(steady.slice(i, j)) / level - 1),
      });
    }
    i = j;
  }
  return out;
}

function round3Number(value: number): number {
  return Number(value.toPrecision(3));
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
