// The New run form's "Stop after N steps" field, turned into runs.start's maxSteps.

/** Blank means no limit; otherwise a whole number of steps above 0. */
export function parseStepLimit(text: string): { ok: true; steps: number | undefined } | { ok: false; error: string } {
  // Thousands separators as people type them: 100,000 or 100 000 or 100_000.
  const trimmed = text.trim().replace(/[\s,_]/gu, '');
  if (trimmed === '') return { ok: true, steps: undefined };
  if (!/^\d+$/u.test(trimmed)) return { ok: false, error: 'Stop after: give a whole number of steps' };
  const steps = Number(trimmed);
  if (!Number.isSafeInteger(steps) || steps <= 0) return { ok: false, error: 'Stop after: give a whole number of steps above 0' };
  return { ok: true, steps };
}
