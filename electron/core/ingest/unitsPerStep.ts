// How much work one step holds (tokens or samples): stated with the run, else the workload's expression.
import type { Run, Workload } from '../../shared/api.js';
import { evaluateExpression, ExpressionError } from '../metrics/expression.js';

export interface StepUnits {
  tokensPerStep: number | null;
  samplesPerStep: number | null;
}

/**
 * Tokens: what the user stated with the run (or its sweep's expression gave), else the workload's `tokensPerStep`
 * expression over the run's values; samples: what was stated. An expression that cannot be evaluated (a variable
 * missing) gives nothing, and the run reports steps/s rather than a guess. The script's own statement of its
 * tokens per step wins over all of these when the summary is made (metrics/summary.ts).
 */
export function stepUnits(stated: Run['unitsPerStep'], workload: Workload | null | undefined, config: Record<string, string>): StepUnits {
  const samplesPerStep = stated?.samples ?? null;
  if (stated?.tokens != null) return { tokensPerStep: stated.tokens, samplesPerStep };
  if (!workload?.tokensPerStep) return { tokensPerStep: null, samplesPerStep };
  try {
    return { tokensPerStep: evaluateExpression(workload.tokensPerStep, config), samplesPerStep };
  } catch (error) {
    if (error instanceof ExpressionError) return { tokensPerStep: null, samplesPerStep };
    throw error;
  }
}
