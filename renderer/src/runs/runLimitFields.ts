// New run's limits as typed, and as runs.start takes them: a time limit in minutes, a step limit, the work per step.
import { MAX_RUN_SECONDS } from '../../../electron/shared/api.js';
import { parseMinutes } from '../shared/duration.js';
import { parseStepLimit } from '../shared/runForm/stepLimit.js';

export interface RunLimitFields {
  timeLimit: string;
  stepLimit: string;
  perStep: string;
  perStepUnit: 'tokens' | 'samples';
}

export interface RunLimitValues {
  timeoutSeconds?: number;
  maxSteps?: number;
  unitsPerStep?: { tokens: number | null; samples: number | null };
}

/** The Work per step field: empty means not given; otherwise a positive number of tokens or samples. */
export function parsePerStep(
  text: string,
  unit: 'tokens' | 'samples',
): { ok: true; value: { tokens: number | null; samples: number | null } | null } | { ok: false; error: string } {
  const trimmed = text.trim().replace(/[_,\s]/gu, '');
  if (trimmed === '') return { ok: true, value: null };
  const number = Number(trimmed);
  if (!/^\d+(\.\d+)?$/u.test(trimmed) || !(number > 0)) return { ok: false, error: `work per step is a positive number of ${unit}, e.g. 8192` };
  return { ok: true, value: unit === 'tokens' ? { tokens: number, samples: null } : { tokens: null, samples: number } };
}

/** The limits as runs.start takes them, or the first field that does not read. */
export function parseRunLimits(fields: RunLimitFields): { ok: true; value: RunLimitValues } | { ok: false; error: string } {
  const limit = parseMinutes(fields.timeLimit, { what: 'Time limit', maxSeconds: MAX_RUN_SECONDS });
  if (!limit.ok) return limit;
  const maxSteps = parseStepLimit(fields.stepLimit);
  if (!maxSteps.ok) return maxSteps;
  const units = parsePerStep(fields.perStep, fields.perStepUnit);
  if (!units.ok) return units;
  return { ok: true, value: { timeoutSeconds: limit.seconds, maxSteps: maxSteps.steps, ...(units.value ? { unitsPerStep: units.value } : {}) } };
}
