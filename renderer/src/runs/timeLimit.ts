// The New run form's Time limit field: minutes as typed, turned into runs.start's timeoutSeconds.

/** The contract's longest limit, a week, in minutes. */
const MAX_TIME_LIMIT_MINUTES = 7 * 24 * 60;

/** The Time limit field, in minutes (a decimal comma is fine too), as runs.start's timeoutSeconds; blank means none. */
export function parseTimeLimit(text: string): { ok: true; seconds: number | undefined } | { ok: false; error: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, seconds: undefined };
  const minutes = Number(trimmed.replace(',', '.'));
  if (!Number.isFinite(minutes) || minutes <= 0) return { ok: false, error: 'Time limit: give minutes, a number above 0' };
  if (minutes > MAX_TIME_LIMIT_MINUTES) return { ok: false, error: 'Time limit: at most a week (10080 minutes)' };
  return { ok: true, seconds: minutes * 60 };
}
