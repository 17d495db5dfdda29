// A seeded bootstrap of the ratio of two medians, resampling runs and then stretches within a run,
// so both run-to-run drift and within-run noise widen the interval.
import { median, quantileSorted } from 'simple-statistics';

/** Enough resamples for stable 2.5/97.5 % bounds; cheap on at most ~20 stretches per run. */
export const RESAMPLES = 2000;

/** mulberry32: small, fast, and seeded, so the same runs give the same interval every time. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One resample: runs drawn with replacement, then each drawn run's stretches with replacement. */
function resampleMedian(groups: readonly (readonly number[])[], next: () => number): number {
  const pooled: number[] = [];
  for (let g = 0; g < groups.length; g++) {
    const group = groups[Math.floor(next() * groups.length)]!;
    for (let i = 0; i < group.length; i++) pooled.push(group[Math.floor(next() * group.length)]!);
  }
  return median(pooled);
}

export interface Interval {
  low: number;
  high: number;
}

/** 95 % interval of median(a) / median(b), each a list of runs' stretch medians. Null without data. */
export function bootstrapRatio(a: readonly (readonly number[])[], b: readonly (readonly number[])[], seed = 1): Interval | null {
  const left = a.filter((g) => g.length > 0);
  const right = b.filter((g) => g.length > 0);
  if (left.length === 0 || right.length === 0) return null;
  const next = seededRandom(seed);
  const ratios: number[] = [];
  for (let i = 0; i < RESAMPLES; i++) ratios.push(resampleMedian(left, next) / resampleMedian(right, next));
  ratios.sort((x, y) => x - y);
  return { low: quantileSorted(ratios, 0.025), high: quantileSorted(ratios, 0.975) };
}

/** 95 % interval of the pooled median itself. */
export function bootstrapMedian(groups: readonly (readonly number[])[], seed = 1): Interval | null {
  const usable = groups.filter((g) => g.length > 0);
  if (usable.length === 0) return null;
  const next = seededRandom(seed);
  const medians: number[] = [];
  for (let i = 0; i < RESAMPLES; i++) medians.push(resampleMedian(usable, next));
  medians.sort((x, y) => x - y);
  return { low: quantileSorted(medians, 0.025), high: quantileSorted(medians, 0.975) };
}
