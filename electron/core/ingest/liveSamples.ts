// What the engine's thread hears of a live run's parsed samples: all of them, or in a flood a thinned view that keeps each metric's latest.

/**
 * Samples of one commit sent to the engine at most: live charts draw a few thousand points, and the step limit
 * needs the newest step. A flood of step lines gives hundreds of thousands a second; copying all of them to the
 * engine's thread (and on to every view) would keep that thread from reading the pty.
 */
export const LIVE_SAMPLES_PER_MESSAGE = 2000;

interface LiveSample {
  name: string;
  kind: string;
}

/** Every sample when few; else an even spread of them plus the last sample of each metric (the newest step and value). */
export function liveView<T extends LiveSample>(samples: readonly T[]): T[] {
  if (samples.length <= LIVE_SAMPLES_PER_MESSAGE) return [...samples];
  const stride = Math.ceil(samples.length / LIVE_SAMPLES_PER_MESSAGE);
  const lastOf = new Map<string, number>();
  samples.forEach((sample, index) => lastOf.set(`${sample.kind}\u0000${sample.name}`, index));
  const keep = new Set(lastOf.values());
  return samples.filter((_, index) => index % stride === 0 || keep.has(index));
}
