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
 * Frees the columns of every part that is their last (parts are cut from their columns in order, so the one ending at
 * their length is), once the parts are committed: this thread is done with them (see SampleColumns.release).
 */
export function releaseCommittedColumns(parts: Iterable<ColumnsPart>): void {
  for (const part of parts) if (part.to === part.samples.length) part.samples.release();
}

/**
 * Every sample of the parts (in order) when few; else an even spread of them plus the last sample of each metric (the
 * newest step and value). Objects are made only for the samples sent.
 */
export function liveView(parts: readonly ColumnsPart[]): MetricSample[] {
  const total = parts.reduce((sum, part) => sum + part.to - part.from, 0);
  const stride = Math.max(1, Math.ceil(total / LIVE_SAMPLES_PER_MESSAGE));
  // Each metric's newest sample, by its place in the commit: found by the columns' own codes (a number a sample,
  // no string made), each metric named once per part.
  const newestAt = new Map<string, number>();
  let at = 0;
  for (const { samples, from, to } of parts) {
    if (stride === 1) break;
    const lastInPart = new Int32Array(samples.names.length * KINDS.length).fill(-1);
    for (let i = from; i < to; i++) lastInPart[samples.name[i]! * KINDS.length + samples.kind[i]!] = at + i - from;
    lastInPart.forEach((place, code) => {
      if (place >= 0) newestAt.set(`${KINDS[code % KINDS.length]!}\u0000${samples.names[Math.floor(code / KINDS.length)]!}`, place);
    });
    at += to - from;
  }
  const newest = [...newestAt.values()].sort((a, b) => a - b);
  const view: MetricSample[] = [];
  let next = 0;
  at = 0;
  for (const { samples, from, to } of parts)
    for (let i = from; i < to; i++, at++) {
      const isNewest = next < newest.length && newest[next] === at;
      if (isNewest) next++;
      if (at % stride === 0 || isNewest) view.push(samples.sample(i));
    }
  return view;
}
