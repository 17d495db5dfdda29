// Samples grouped by step as typed columns (one entry per step, in step order): a summary or chart of millions of
// steps holds a few numbers a step, where an object and a Map per step held about 320 bytes a step.
import type { MetricSample } from './samples.js';

export interface StepColumns {
  /** Each step once, ascending. */
  readonly step: Float64Array;
  /** The latest time among the step's samples. */
  readonly tMs: Float64Array;
  /**
   * Of each name asked for that some sample has, its last value at each step in the samples' order (a later redraw of
   * a step replaces an earlier one); NaN where the step has none, so readers take finite values only.
   */
  readonly values: ReadonlyMap<string, Float64Array>;
}

/** The samples `include` picks (all by default) that have a step, grouped by step: see StepColumns. */
export function groupByStep(samples: readonly MetricSample[], names: readonly string[], include?: (sample: MetricSample) => boolean): StepColumns {
  const picked: number[] = [];
  for (let i = 0; i < samples.length; i++) {
    const sample = samples[i]!;
    if (sample.step !== null && (include === undefined || include(sample))) picked.push(i);
  }
  const order = Uint32Array.from(picked);
  picked.length = 0;
  const stepOf = (k: number) => samples[order[k]!]!.step!;
  // By step, then in the samples' order (spelled out, so the last of a step is the last given whatever the sort).
  order.sort((a, b) => samples[a]!.step! - samples[b]!.step! || a - b);
  let groups = 0;
  for (let k = 0; k < order.length; k++) if (k === 0 || stepOf(k) !== stepOf(k - 1)) groups++;
  const step = new Float64Array(groups);
  const tMs = new Float64Array(groups);
  const wanted = new Set(names);
  const values = new Map<string, Float64Array>();
  let group = -1;
  for (let k = 0; k < order.length; k++) {
    const sample = samples[order[k]!]!;
    if (k === 0 || sample.step !== stepOf(k - 1)) {
      group++;
      step[group] = sample.step!;
      tMs[group] = sample.tMs;
    }
    tMs[group] = Math.max(tMs[group]!, sample.tMs);
    if (!wanted.has(sample.name)) continue;
    let column = values.get(sample.name);
    if (column === undefined) {
      column = new Float64Array(groups).fill(Number.NaN);
      values.set(sample.name, column);
    }
    column[group] = sample.value;
  }
  return { step, tMs, values };
}
