// The speed verdict between two sets of runs: runs are the unit of evidence (a run's steps are not independent of
// each other), so the interval rests on the variance between runs: Welch's t-interval on the logs of the runs'
// steady medians (a ratio of geometric means), or a paired t-interval where interleaved repeats pair up.
// docs/statistics.md has the method, and the simulation that shows its false-verdict rate.
import { CONFIDENCE, confidenceText } from '../../shared/confidenceText.js';
import { APART_SHIFT_ALLOWANCE } from '../../shared/api/compare.js';
import { studentTQuantile } from './studentT.js';

/** One run's evidence: its steady throughput and, for runs of one interleaved sweep, its round (repeat index). */
export interface RunSpeed {
  throughput: number;
  /** Runs of the two sides with the same round ran one after the other: a pair. Null outside a sweep. */
  round?: number | null;
  /**
   * How far the throughput may be off through the granularity of the step timing alone, relative (0.016: whole-ms
   * arrival times of 63 ms steps); 0 for timing finer than any change worth telling; null where not known.
   */
  resolution?: number | null;
  /**
   * When it started (ms since the epoch), to tell whether the two sides' runs interleaved in time; null where that is
   * not known (an imported log: it ran whenever it ran). Left out (the tune's sweeps, whose runs interleave by
   * design), nothing is checked.
   */
  startedAtMs?: number | null;
}

export type SpeedVerdictLabel = 'faster' | 'slower' | 'same' | 'inconclusive' | 'repeat to decide';

export interface SpeedVerdict {
  verdict: SpeedVerdictLabel;
  /** Ratio of geometric means, candidate over baseline (> 1: faster). */
  ratio: number | null;
  /** The 95 % interval of the ratio; null with fewer than two runs on a side. */
  ci95: { low: number; high: number } | null;
  n: { candidate: number; baseline: number };
  /** `welch`: two independent samples; `paired`: interleaved repeats, round by round. */
  method: 'welch' | 'paired' | null;
  /** Degrees of freedom of the interval's t quantile. */
  df: number | null;
  /** For an inconclusive verdict: about how many more runs per side would decide (null: it would take more than MAX_PROJECTED_REPEATS). */
  moreRepeats: number | null;
  /** The verdict in words, with what it rests on. */
  reason: string;
  /** Undecided because the step timing is too coarse (or the runs copies): more repeats of the same cannot decide. */
  repeatsCannotDecide?: boolean;
}

export interface VerdictOptions {
  /** δ: an interval inside 1 ± δ says "same" (DESIGN: 2 %, `--min-effect`). */
  minEffect: number;
  /**
   * The interval's confidence (default CONFIDENCE). Where the runs are looked at several times as they come (tune's
   * rounds while undecided), each look takes a share of the 5 %, so the verdict's false-alarm rate stays under it.
   */
  confidence?: number;
}

export { APART_SHIFT_ALLOWANCE, DEFAULT_MIN_EFFECT } from '../../shared/api/compare.js';
export { CONFIDENCE };
/**
 * The paired interval is considered only from this many pairs. With fewer it has at most 3 degrees of freedom
 * (t = 5.8 at 97.5 %) where Welch's has about twice as many, so it is almost never the tighter, and offering the
 * choice would cost Welch's interval its 95 % (see chooseInterval): power that 3 repeats need (docs/statistics.md).
 */
export const MIN_PAIRS = 5;
/** "About how many more repeats": past this many per side, the answer is "many more" (a change too close to δ to decide). */
export const MAX_PROJECTED_REPEATS = 50;

interface Interval {
  method: 'welch' | 'paired';
  /** Mean difference of the logs, candidate minus baseline. */
  estimate: number;
  halfWidth: number;
  df: number;
  /** Standard deviation of one run's log throughput (Welch: pooled), to project more repeats. */
  sd: number;
  /** Set where the timing's resolution, not the spread between runs, gave the half-width: repeats cannot narrow it. */
  resolutionBound?: boolean;
}

const logs = (runs: readonly RunSpeed[]) => runs.map((r) => Math.log(r.throughput));

function meanOf(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

function varianceOf(values: readonly number[], mean: number): number {
  let sum = 0;
  for (const v of values) sum += (v - mean) ** 2;
  return sum / (values.length - 1);
}

/** Welch's interval for mean(a) − mean(b), with the Welch–Satterthwaite degrees of freedom. */
function welch(a: readonly number[], b: readonly number[], confidence: number): Interval {
  const ma = meanOf(a);
  const mb = meanOf(b);
  const va = varianceOf(a, ma) / a.length;
  const vb = varianceOf(b, mb) / b.length;
  const se2 = va + vb;
  // Two sides with no spread at all (identical copies): the interval is a point; df is moot.
  const df = se2 === 0 ? a.length + b.length - 2 : se2 ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
  const t = studentTQuantile(1 - (1 - confidence) / 2, df);
  const pooledSd = Math.sqrt(((a.length - 1) * va * a.length + (b.length - 1) * vb * b.length) / (a.length + b.length - 2));
  return { method: 'welch', estimate: ma - mb, halfWidth: t * Math.sqrt(se2), df, sd: pooledSd };
}

/** The paired interval over rounds both sides ran in; null with fewer than MIN_PAIRS pairs. */
function paired(candidate: readonly RunSpeed[], baseline: readonly RunSpeed[], confidence: number): Interval | null {
  const byRound = (runs: readonly RunSpeed[]) => {
    const map = new Map<number, number[]>();
    for (const run of runs) {
      if (run.round === null || run.round === undefined) return null;
      const list = map.get(run.round) ?? [];
      list.push(Math.log(run.throughput));
      map.set(run.round, list);
    }
    return map;
  };
  const a = byRound(candidate);
  const b = byRound(baseline);
  if (a === null || b === null) return null;
  const differences: number[] = [];
  for (const [round, values] of a) {
    const other = b.get(round);
    // One run per side per round: a pair. Anything else is not the design pairing assumes.
    if (other === undefined) continue;
    if (values.length !== 1 || other.length !== 1) return null;
    differences.push(values[0]! - other[0]!);
  }
  if (differences.length < MIN_PAIRS) return null;
  const mean = meanOf(differences);
  const sdDiff = Math.sqrt(varianceOf(differences, mean));
  const df = differences.length - 1;
  const t = studentTQuantile(1 - (1 - confidence) / 2, df);
  return { method: 'paired', estimate: mean, halfWidth: (t * sdDiff) / Math.sqrt(differences.length), df, sd: sdDiff / Math.SQRT2 };
}

/**
 * The verdict on `candidate` against `baseline` (each a set of runs): faster or slower when the 95 % interval of
 * the ratio excludes 1; same when it lies inside 1 ± minEffect; inconclusive otherwise, with about how many more
 * repeats per side would decide; repeat to decide with one run on a side.
 */
export function compareSpeeds(candidate: readonly RunSpeed[], baseline: readonly RunSpeed[], options: VerdictOptions): SpeedVerdict {
  const a = candidate.filter((r) => Number.isFinite(r.throughput) && r.throughput > 0);
  const b = baseline.filter((r) => Number.isFinite(r.throughput) && r.throughput > 0);
  const n = { candidate: a.length, baseline: b.length };
  const empty = { ratio: null, ci95: null, n, method: null, df: null, moreRepeats: null } as const;
  if (a.length === 0 || b.length === 0) {
    return { ...empty, verdict: 'repeat to decide', reason: `no steady throughput on ${a.length === 0 ? 'this side' : "the baseline's side"}` };
  }
  const ratio = Math.exp(meanOf(logs(a)) - meanOf(logs(b)));
  if (a.length < 2 || b.length < 2) {
    const reason =
      a.length < 2 && b.length < 2 ? '1 run each: repeat to decide' : `1 run on ${a.length < 2 ? 'this side' : "the baseline's side"}: repeat to decide`;
    return { ...empty, ratio, verdict: 'repeat to decide', reason };
  }
  const spreadless = (runs: readonly RunSpeed[]) => runs.every((r) => r.throughput === runs[0]!.throughput);
  const resolution = sideResolution(a) + sideResolution(b);
  if (spreadless(a) && spreadless(b) && resolution === 0) {
    return {
      ...empty,
      ratio,
      verdict: 'inconclusive',
      repeatsCannotDecide: true,
      reason: `the runs on each side are identical to the last digit (copies of one log?), so the noise between runs cannot be sized: run repeats that time their own steps (${a.length} and ${b.length} runs)`,
    };
  }
  const confidence = options.confidence ?? CONFIDENCE;
  const interval = boundByResolution(chooseInterval(a, b, confidence), resolution);
  const low = Math.exp(interval.estimate - interval.halfWidth);
  const high = Math.exp(interval.estimate + interval.halfWidth);
  const base = { ratio, ci95: { low, high }, n, method: interval.method, df: interval.df };
  const runsText = interval.method === 'paired' ? `${Math.min(a.length, b.length)} interleaved pairs` : `${a.length} and ${b.length} runs`;
  const rests = interval.resolutionBound
    ? `${runsText}, widened to the step timing's resolution, ±${percent(resolution)}`
    : `${runsText}, ${confidenceText(confidence)} t-interval`;
  const apart = ranApart(a, b);
  if (apart !== null) {
    const bound = 1 + APART_SHIFT_ALLOWANCE;
    const allowance = `±${percent(APART_SHIFT_ALLOWANCE)}`;
    if (low > bound)
      return { ...base, verdict: 'faster', moreRepeats: null, reason: `the interval lies above 1 and clears the ${allowance} allowed for ${apart} (${rests})` };
    if (high < 1 / bound)
      return { ...base, verdict: 'slower', moreRepeats: null, reason: `the interval lies below 1 and clears the ${allowance} allowed for ${apart} (${rests})` };
    return {
      ...base,
      verdict: 'inconclusive',
      moreRepeats: null,
      repeatsCannotDecide: true,
      reason: `cannot tell: ${apart}, so a shift of the machine between them is not in the interval, and only a change beyond ${allowance} can be told this way (the interval ${rangeText(low, high)} does not clear it); more runs apart cannot decide: run both in one sweep, their runs interleaved (${rests})`,
    };
  }
  if (low > 1) return { ...base, verdict: 'faster', moreRepeats: null, reason: `the interval lies above 1 (${rests})` };
  if (high < 1) return { ...base, verdict: 'slower', moreRepeats: null, reason: `the interval lies below 1 (${rests})` };
  const delta = options.minEffect;
  if (low >= 1 - delta && high <= 1 + delta) {
    return {
      ...base,
      verdict: 'same',
      moreRepeats: null,
      reason: `no change larger than ±${percent(delta)}: the interval lies inside 1 ± ${percent(delta)} (${rests})`,
    };
  }
  const width = `the interval spans ${percent(high - low)}`;
  if (interval.resolutionBound) {
    const why = `cannot tell: the step timing resolves throughput only to about ±${percent(resolution)} here (${width}), which holds both 1 and changes beyond ±${percent(delta)}; more repeats of the same timing cannot narrow it: time more steps per printed line, or print each step's time`;
    return { ...base, verdict: 'inconclusive', moreRepeats: null, repeatsCannotDecide: true, reason: `${why} (${rests})` };
  }
  const more = moreRepeatsToDecide(interval, Math.min(a.length, b.length), delta, confidence);
  const decide =
    more === null
      ? `more than ${MAX_PROJECTED_REPEATS} more runs per side would be needed: the change is about as large as ±${percent(delta)}`
      : `about ${more} more run${more === 1 ? '' : 's'} per side would decide`;
  return {
    ...base,
    verdict: 'inconclusive',
    moreRepeats: more,
    reason: `cannot tell: ${width}, which holds both 1 and changes beyond ±${percent(delta)}; ${decide} (${rests})`,
  };
}

/**
 * Why the two sides cannot be taken as run side by side, or null when their runs interleave in time (or their times
 * were not given). Apart: every run of one side started before any run of the other, or a run's start is not known.
 */
export function ranApart(a: readonly RunSpeed[], b: readonly RunSpeed[]): string | null {
  const all = [...a, ...b];
  if (all.every((r) => r.startedAtMs === undefined)) return null;
  if (all.some((r) => r.startedAtMs === null || r.startedAtMs === undefined)) return 'when some of these runs ran is not known (an imported log)';
  const span = (runs: readonly RunSpeed[]) => {
    const times = runs.map((r) => r.startedAtMs as number);
    return { first: Math.min(...times), last: Math.max(...times) };
  };
  const own = span(a);
  const base = span(b);
  if (own.first <= base.last && base.first <= own.last) return null;
  return `these runs and the baseline's ran apart in time (${clockSpan(base)} the baseline's, ${clockSpan(own)} these), not interleaved`;
}

/** A span of start times as a person reads it: `2026-11-21 10:00:05-10:12:40 UTC`, the date once where both ends share it. */
function clockSpan(span: { first: number; last: number }): string {
  const [fromDate, fromTime] = new Date(span.first).toISOString().slice(0, 19).split('T') as [string, string];
  const [toDate, toTime] = new Date(span.last).toISOString().slice(0, 19).split('T') as [string, string];
  if (span.first === span.last) return `${fromDate} ${fromTime} UTC`;
  return fromDate === toDate ? `${fromDate} ${fromTime}-${toTime} UTC` : `${fromDate} ${fromTime} to ${toDate} ${toTime} UTC`;
}

function rangeText(low: number, high: number): string {
  return `${Number(low.toPrecision(3))}-${Number(high.toPrecision(3))}`;
}

/** The coarsest resolution among a side's runs (each may be off by as much, and all the same way). */
function sideResolution(runs: readonly RunSpeed[]): number {
  let coarsest = 0;
  for (const run of runs) if (run.resolution !== null && run.resolution !== undefined && run.resolution > coarsest) coarsest = run.resolution;
  return coarsest;
}

/**
 * An interval no narrower than the timing can resolve. Runs whose noise is below the timing's granularity read the
 * same rounded value each time (identical repeats, no spread), so the t-interval shrinks to a point while each side
 * may be off by up to its resolution, every run in the same direction: repeats do not average it away.
 */
function boundByResolution(interval: Interval, resolution: number): Interval {
  const floor = Math.log1p(resolution);
  return interval.halfWidth >= floor ? interval : { ...interval, halfWidth: floor, resolutionBound: true };
}

/**
 * Welch's interval, or the paired one where the runs pair up round by round and it is tighter. Choosing the
 * tighter of two would make each a little too narrow, so when both can be had each is taken at 97.5 % (a
 * Bonferroni split): whichever is chosen, the chance of a false verdict stays under 5 %.
 */
function chooseInterval(a: readonly RunSpeed[], b: readonly RunSpeed[], confidence: number): Interval {
  const pairedOne = paired(a, b, 1 - (1 - confidence) / 2);
  if (pairedOne === null) return welch(logs(a), logs(b), confidence);
  const welchOne = welch(logs(a), logs(b), 1 - (1 - confidence) / 2);
  return pairedOne.halfWidth < welchOne.halfWidth ? pairedOne : welchOne;
}

/**
 * About how many more runs per side would decide, if the spread and the change stay as measured: the fewest
 * with which the interval would either exclude 1 or fit inside 1 ± δ.
 */
function moreRepeatsToDecide(interval: Interval, runsPerSide: number, delta: number, confidence: number): number | null {
  const effect = Math.abs(interval.estimate);
  const bound = Math.log(1 + delta);
  const needed = Math.max(effect, bound - effect);
  if (interval.sd === 0) return 1;
  const halfWidth = (runs: number) =>
    studentTQuantile(1 - (1 - confidence) / 2, interval.method === 'paired' ? runs - 1 : 2 * runs - 2) * interval.sd * Math.sqrt(2 / runs);
  // The projected half-width falls as runs are added: bisect for the fewest that are enough.
  let low = runsPerSide;
  let high = runsPerSide + MAX_PROJECTED_REPEATS;
  if (halfWidth(high) >= needed) return null;
  while (high - low > 1) {
    const mid = (low + high) >> 1;
    if (halfWidth(mid) < needed) high = mid;
    else low = mid;
  }
  return high - runsPerSide;
}

function percent(fraction: number): string {
  return `${Number((fraction * 100).toPrecision(2))} %`;
}
