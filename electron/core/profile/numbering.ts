// A profile's steps numbered as the script numbers them: each profiled step matched, by time, to the step number the
// script printed between its end and the next step's end (nanoGPT prints `iter 15` after the optimizer step that
// ends the profiler's 16th step).

/** A step of the profile: its number by boundaries and when it ended (epoch ms). */
export interface TimedStep {
  step: number;
  endedAtMs: number | null;
}

/** A step number the script printed (a training metric's step) and when it arrived (epoch ms). */
export interface StepMark {
  step: number;
  atMs: number;
}

/**
 * The offset from the profile's numbering to the script's (script = profile + offset), or null when the script's
 * numbers cannot be matched: the offset most matched steps agree on, if at least half of them do.
 */
export function scriptStepOffset(steps: readonly TimedStep[], marks: readonly StepMark[], windowEndedAtMs: number | null = null): number | null {
  const timed = steps.filter((s): s is { step: number; endedAtMs: number } => s.endedAtMs !== null).sort((a, b) => a.endedAtMs - b.endedAtMs);
  if (timed.length === 0 || marks.length === 0) return null;
  const sorted = [...marks].sort((a, b) => a.atMs - b.atMs);
  const offsets = new Map<number, number>();
  let matched = 0;
  timed.forEach((step, i) => {
    // The last step's line comes once the profiler has written its results (the window's end), then within a step.
    const typical = i > 0 ? step.endedAtMs - timed[i - 1]!.endedAtMs : 0;
    const next = timed[i + 1]?.endedAtMs ?? Math.max(step.endedAtMs, windowEndedAtMs ?? step.endedAtMs) + typical;
    // The first number printed after the step ended, before the next one did.
    const mark = sorted.find((m) => m.atMs > step.endedAtMs && m.atMs <= next);
    if (!mark) return;
    matched += 1;
    const offset = mark.step - step.step;
    offsets.set(offset, (offsets.get(offset) ?? 0) + 1);
  });
  if (matched === 0) return null;
  const [best, count] = [...offsets.entries()].sort((a, b) => b[1] - a[1])[0]!;
  return count * 2 >= matched ? best : null;
}
