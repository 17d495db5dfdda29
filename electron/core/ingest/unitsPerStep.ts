// How much work one step holds (tokens or samples): stated with the run, else the workload's expression.
import type { Run, Workload } from '../../shared/api.js';
import { evaluateExpression, ExpressionError } from '../metrics/expression.js';

export interface StepUnits {
  tokensPerStep: number | null;
  samplesPerStep: number | null;
}

/**
 * What the user stated with the run wins; a workload's `tokensPerStep` expression over the run's
 * values comes next. An expression that cannot be evaluated (a variable missing) gives nothing,
 * and the run reports steps/s rather than a guess.
 */
export function stepUnits(stated: Run['unitsPerStep'], workload: Workload | null | undefined, config: Record<string, string>): StepUnits {
  if (stated && (stated.tokens !== null || stated.samples !== null)) {
    return { tokensPerStep: stated.tokens, samplesPerStep: stated.tokens === null ? stated.samples : null };
  }
  if (!workload?.tokensPerStep) return { tokensPerStep: null, samplesPerStep: null };
  try {
    return { tokensPerStep: evaluateExpression(workload.tokensPerStep, config), samplesPerStep: null };
  } catch (error) {
    if (error instanceof ExpressionError) return { tokensPerStep: null, samplesPerStep: null };
    throw error;
  }
}
