// Durations as a person types them in any form of the app: minutes, one unit everywhere (a run's time limit, a
// sweep's per-run limit, the wait for an idle GPU), a decimal point or comma for parts of a minute.

export type ParsedDuration = { ok: true; seconds: number | undefined } | { ok: false; error: string };

export interface DurationBounds {
  /** The field's name, as errors start with it. */
  what: string;
  /** The contract's longest, in seconds. */
  maxSeconds: number;
  /** Whether 0 means something (no wait) rather than nothing. */
  allowZero?: boolean;
}

/** Minutes as typed, in seconds (whole seconds, as the engine takes them); blank means none. */
export function parseMinutes(text: string, { what, maxSeconds, allowZero = false }: DurationBounds): ParsedDuration {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, seconds: undefined };
  const minutes = Number(trimmed.replace(',', '.'));
  if (!Number.isFinite(minutes) || minutes < 0 || (!allowZero && minutes === 0)) {
    return { ok: false, error: `${what}: give minutes, a number ${allowZero ? 'of 0 or more' : 'above 0'}` };
  }
  const seconds = Math.round(minutes * 60);
  if (seconds > maxSeconds) return { ok: false, error: `${what}: at most ${describeMinutes(maxSeconds)}` };
  if (!allowZero && seconds === 0) return { ok: false, error: `${what}: at least a second (0.02 minutes)` };
  return { ok: true, seconds };
}

/** Seconds as the forms show them: `a week (10080 minutes)`, `60 minutes`, `1.5 minutes`, `1 minute`. */
export function describeMinutes(seconds: number): string {
  const minutes = seconds / 60;
  const text = minutes === 1 ? '1 minute' : `${Number.isInteger(minutes) ? minutes : Number(minutes.toFixed(2))} minutes`;
  return seconds === 7 * 24 * 3600 ? `a week (${text})` : text;
}
