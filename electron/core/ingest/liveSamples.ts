// What the engine's thread hears of a live run's parsed samples: all of them, or in a flood a thinned view that keeps each metric's latest.
import type { MetricSample } from '../metrics/samples.js';
import { KINDS, type SampleColumns } from '../store/sampleColumns.js';

/**
 * Samples of one commit sent to the engine at most: live charts draw a few thousand points, and the step limit
 * needs the newest step. A flood of step lines gives hundreds of thousands a second; copying all of them to the
 * engine's thread (and on to every view) would keep that thread from reading the pty.
 */
export const LIVE_SAMPLES_PER_MESSAGE = 2000;

/** A part of some columns: samples `from` to `to`. */
export interface ColumnsPart {
  samples: SampleColumns;
  from: number;
  to: number;
}

/**
 * Every sample of the parts (in order) when few; else an even spread of them plus the last sample of each metric (the
 * newest step and value). Objects are made only for the samples sent.
 */
export function liveView(parts: readonly ColumnsPart[]): MetricSample[] {
  const total = parts.reduce((sum, part) => sum + part.to - part.from, 0);
  const stride = Math.max(1, Math.ceil(total / LIVE_SAMPLES_PER_MESSAGE));
  const view: MetricSample[] = [];
  let at = 0;
  for (const { samples, from, to } of parts) for (let i = from; i < to; i++, at++) if (at % stride === 0) view.push(samples.sample(i));
  if (stride === 1) return view;
  // Each metric's newest, found from the end: by the columns' own codes (a number a sample, no string made), each
  // metric named once per part, and the walk stops once every metric of the commit is found.
  const newest: Array<{ at: number; part: ColumnsPart; index: number }> = [];
  const found = new Set<string>();
  let end = total;
  for (let p = parts.length - 1; p >= 0; p--) {
    const part = parts[p]!;
    const { samples, from, to } = part;
    const seenCodes = new Set<number>();
    const metricsInPart = new Set<number>();
    for (let i = from; i < to; i++) metricsInPart.add(samples.name[i]! * KINDS.length + samples.kind[i]!);
    for (let i = to - 1; i >= from && seenCodes.size < metricsInPart.size; i--) {
      const code = samples.name[i]! * KINDS.length + samples.kind[i]!;
      if (seenCodes.has(code)) continue;
      seenCodes.add(code);
      const key = `${KINDS[samples.kind[i]!]!}\u0000${samples.names[samples.name[i]!]!}`;
      if (found.has(key)) continue;
      found.add(key);
      newest.push({ at: end - (to - i), part, index: i });
    }
    end -= to - from;
  }
  // Put in among the spread by their place in the commit (already there when the stride lands on one).
  const merged: MetricSample[] = [];
  newest.sort((a, b) => a.at - b.at);
  let next = 0;
  for (let k = 0; k < view.length; k++) {
    const viewAt = k * stride;
    while (next < newest.length && newest[next]!.at < viewAt) merged.push(sampleOf(newest[next++]!));
    if (next < newest.length && newest[next]!.at === viewAt) next++;
    merged.push(view[k]!);
  }
  while (next < newest.length) merged.push(sampleOf(newest[next++]!));
  return merged;
}

function sampleOf(entry: { part: ColumnsPart; index: number }): MetricSample {
  return entry.part.samples.sample(entry.index);
}
