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
  const newest = new Set<number>();
  if (stride > 1) {
    const lastOf = new Map<string, number>();
    let at = 0;
    for (const { samples, from, to } of parts)
      for (let i = from; i < to; i++) lastOf.set(`${KINDS[samples.kind[i]!]!}\u0000${samples.names[samples.name[i]!]!}`, at++);
    for (const index of lastOf.values()) newest.add(index);
  }
  const view: MetricSample[] = [];
  let at = 0;
  for (const { samples, from, to } of parts) for (let i = from; i < to; i++, at++) if (at % stride === 0 || newest.has(at)) view.push(samples.sample(i));
  return view;
}
