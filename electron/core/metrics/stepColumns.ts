// Samples grouped by step as typed columns (one entry per step, in step order): a summary or chart of millions of
// steps holds a few numbers a step, where an object and a Map per step held about 320 bytes a step.
import type { SampleColumns } from '../store/sampleColumns.js';

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

/** The samples `picked` (indexes into `samples`, ascending) grouped by step: see StepColumns. Samples without a step are passed over. */
export function groupByStep(samples: SampleColumns, picked: Uint32Array, names: readonly string[]): StepColumns {
  const order = picked.filter((i) => !Number.isNaN(samples.step[i]!));
  const stepOf = samples.step;
  // By step, then in the samples' order (spelled out, so the last of a step is the last given whatever the sort).
  // A log's steps mostly come in order already: then the sort, most of the time this takes, is left out.
  let inOrder = true;
  for (let k = 1; k < order.length && inOrder; k++) inOrder = stepOf[order[k - 1]!]! <= stepOf[order[k]!]!;
  if (!inOrder) order.sort((a, b) => stepOf[a]! - stepOf[b]! || a - b);
  let groups = 0;
  for (let k = 0; k < order.length; k++) if (k === 0 || stepOf[order[k]!] !== stepOf[order[k - 1]!]) groups++;
  const step = new Float64Array(groups);
  const tMs = new Float64Array(groups);
  const wanted = new Map<number, string>();
  for (const name of names) if (samples.nameCode(name) >= 0) wanted.set(samples.nameCode(name), name);
  const values = new Map<string, Float64Array>();
  let group = -1;
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    if (k === 0 || stepOf[i] !== stepOf[order[k - 1]!]) {
      group++;
      step[group] = stepOf[i]!;
      tMs[group] = samples.tMs[i]!;
    }
    tMs[group] = Math.max(tMs[group]!, samples.tMs[i]!);
    const name = wanted.get(samples.name[i]!);
    if (name === undefined) continue;
    let column = values.get(name);
    if (column === undefined) {
      column = new Float64Array(groups).fill(Number.NaN);
      values.set(name, column);
    }
    column[group] = samples.value[i]!;
  }
  return { step, tMs, values };
}
