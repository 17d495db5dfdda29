// Steady state: which steps are warm-up (compile, caches, allocator) and which are slow outliers (eval, checkpoint).
import { median } from 'simple-statistics';

export type WarmupRule =
  | { kind: 'steps'; steps: number }
  | { kind: 'seconds'; seconds: number }
  /** The first point after which the rolling median step time stays within `tolerance` of the steady level. */
  | { kind: 'auto'; tolerance: number; window: number };

export const DEFAULT_WARMUP_RULE: WarmupRule = { kind: 'auto', tolerance: 0.1, window: 5 };
/** A step slower than this many times the steady median carries an eval or a checkpoint: left out, and counted. */
export const OUTLIER_FACTOR = 2.5;

export interface TimedPoint {
  step: number;
  tMs: number;
  /** Milliseconds per step around this point; the quantity steady state is judged on. */
  stepTimeMs: number;
}

export interface SteadySplit {
  /** Index of the first steady point. */
  start: number;
  rule: WarmupRule['kind'];
  /** False when `auto` found no stable stretch and fell back to skipping the first fifth. */
  stable: boolean;
  warmupSteps: number;
  warmupSeconds: number;
  /** Indexes (at or after `start`) left out of the steady statistics as outliers. */
  outliers: number[];
}

export function splitSteadyState(points: readonly TimedPoint[], rule: WarmupRule = DEFAULT_WARMUP_RULE): SteadySplit {
  const { start, stable } = findStart(points, rule);
  const steady = points.slice(start).map((p) => p.stepTimeMs);
  const level = steady.length > 0 ? median(steady) : Number.NaN;
  const outliers: number[] = [];
  for (let i = start; i < points.length; i++) if (points[i]!.stepTimeMs > OUTLIER_FACTOR * level) outliers.push(i);
  return { start, rule: rule.kind, stable, warmupSteps: warmupSteps(points, start), warmupSeconds: warmupSeconds(points, start), outliers };
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

function findStart(points: readonly TimedPoint[], rule: WarmupRule): { start: number; stable: boolean } {
  if (points.length === 0) return { start: 0, stable: true };
  switch (rule.kind) {
    case 'steps': {
      const firstStep = points[0]!.step;
      const index = points.findIndex((p) => p.step - firstStep >= rule.steps);
      return { start: index < 0 ? points.length : index, stable: true };
    }
    case 'seconds': {
      const index = points.findIndex((p) => p.tMs / 1000 >= rule.seconds);
      return { start: index < 0 ? points.length : index, stable: true };
    }
    case 'auto':
      return findStableStart(points, rule.tolerance, rule.window);
  }
}

function findStableStart(points: readonly TimedPoint[], tolerance: number, window: number): { start: number; stable: boolean } {
  const times = points.map((p) => p.stepTimeMs);
  if (times.length < window * 2) {
    // Too few points to see a trend: keep all but a first point that is clearly slower than the rest.
    const rest = times.slice(1);
    const slowFirst = rest.length > 0 && times[0]! > (1 + tolerance) * median(rest);
    return { start: slowFirst ? 1 : 0, stable: true };
  }
  // The steady level is judged from the second half, which warm-up has left behind.
  const level = median(times.slice(Math.floor(times.length / 2)));
  const within = (value: number) => Math.abs(value - level) <= tolerance * level;
  // Complete windows only: a median of a single eval step at the very end is not a trend.
  const lastWindow = times.length - window;
  let start = lastWindow + 1;
  for (let i = lastWindow; i >= 0; i--) {
    if (!within(median(times.slice(i, i + window)))) break;
    start = i;
  }
  if (start > lastWindow) return { start: Math.floor(times.length / 5), stable: false };
  // The window looks ahead: the first steady point is the first whose own time is in range too.
  while (start < lastWindow && !within(times[start]!)) start++;
  return { start, stable: true };
}
