// A finished run's summary in words: steady throughput, how the warm-up was found, loss facts, where the numbers came from.
import type { RunSummary } from '../../../electron/shared/api.js';
import { formatDuration, formatNumber } from '../shared/format.js';

/** Digits for losses: enough to tell 2.4049 from 2.4101, as training logs print them. */
const LOSS_DIGITS = 4;

/** True when the engine found anything to summarise; a run with no parsed metrics gets no card. */
export function hasTrainingSummary(summary: RunSummary): boolean {
  return summary.metricsSource !== null || summary.steps !== null || summary.throughput.median !== null;
}

export function throughputText(summary: RunSummary): string {
  const { median, iqr, unit } = summary.throughput;
  if (median === null) return '–';
  // An interquartile range, said as such: "±" would read as a symmetric error.
  const spread = iqr === null ? '' : ` (IQR ${formatNumber(iqr)})`;
  return `${formatNumber(median)} ${unit ?? 'per s'}${spread}`;
}

export function stepTimeText(summary: RunSummary): string {
  const ms = summary.stepTimeMs.median;
  return ms === null ? '–' : `${formatNumber(ms)} ms`;
}

export function formatSeconds(seconds: number): string {
  if (seconds >= 60) return formatDuration(seconds * 1000);
  return `${seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
}

export function warmupText(summary: RunSummary): string {
  const { warmup } = summary;
  if (warmup === null) return 'no step timing to judge it by';
  const steps = `${warmup.steps} step${warmup.steps === 1 ? '' : 's'}`;
  // Either part may be zero: a log counting from step 0 can leave out its step 0 only, a run's time can be unknown.
  const cost = [warmup.steps > 0 ? steps : '', warmup.seconds > 0 ? formatSeconds(warmup.seconds) : ''].filter(Boolean).join(' / ');
  if (!warmup.stable) return `no steady state found; first fifth skipped${cost === '' ? '' : ` (${cost})`}`;
  if (cost === '')
    return warmup.rule === 'auto'
      ? warmup.reason !== ''
        ? `${warmup.reason} (detected automatically)`
        : 'none: steady from the start, detected automatically'
      : 'none';
  const how =
    warmup.rule === 'auto'
      ? warmup.reason !== ''
        ? `detected automatically: ${warmup.reason}`
        : 'detected automatically'
      : warmup.reason !== ''
        ? warmup.reason
        : warmup.rule === 'steps'
          ? `by the rule of ${steps}`
          : `by the rule of ${formatSeconds(warmup.seconds)}`;
  return `excluded ${cost}, ${how}`;
}

export function lossText(summary: RunSummary): string {
  const parts: string[] = [];
  if (summary.finalLoss !== null) parts.push(`final ${formatNumber(summary.finalLoss, LOSS_DIGITS)}`);
  if (summary.bestLoss !== null) parts.push(`best ${formatNumber(summary.bestLoss, LOSS_DIGITS)}`);
  if (summary.evalLoss !== null) parts.push(`eval ${formatNumber(summary.evalLoss, LOSS_DIGITS)}`);
  return parts.length > 0 ? parts.join(' · ') : '–';
}

export function outliersText(summary: RunSummary): string | null {
  const { outlierSteps: count, outliers, stepTimeMs } = summary;
  const flagged = outliers && outliers.flaggedKept > 0 ? `${outliers.flaggedKept} far from the median kept (too many to be accidents)` : '';
  if (count === 0) return flagged === '' ? null : flagged;
  const why = outliers
    ? [
        outliers.marked > 0 ? `${outliers.marked} eval/checkpoint` : '',
        outliers.byUser > 0 ? `${outliers.byUser} named by you` : '',
        outliers.byRule > 0 ? `${outliers.byRule} far from the median` : '',
      ]
        .filter(Boolean)
        .join(', ')
    : 'eval/checkpoint';
  const withThem = stepTimeMs.medianWithOutliers === null ? '' : `; step time with them ${formatNumber(stepTimeMs.medianWithOutliers)} ms`;
  return [`${count} step${count === 1 ? '' : 's'} left out (${why})${withThem}`, flagged].filter(Boolean).join('; ');
}

export function sourceText(source: RunSummary['metricsSource']): string {
  if (source === 'channel') return 'structured channel';
  if (source === 'text') return 'terminal output';
  return 'unknown';
}

/** Above this, energy reads better in watt-hours too (1 Wh = 3600 J). */
const WH_FROM_J = 3600;

export function energyText(energyJ: number | null): string {
  if (energyJ === null) return '–';
  const joules = `${formatNumber(energyJ)} J`;
  return energyJ >= WH_FROM_J ? `${joules} (${formatNumber(energyJ / WH_FROM_J)} Wh)` : joules;
}

export function energySourceText(source: 'counter' | 'integrated' | null): string | null {
  if (source === 'counter') return 'driver counter';
  if (source === 'integrated') return 'integrated power';
  return null;
}

/**
 * Energy per 1,000 tokens, roughly: the tokens are the steady throughput times the run's length, so warm-up and
 * slow steps count as if they ran at the median. Null unless the throughput is in tokens/s.
 */
export function energyPerKiloTokens(summary: RunSummary, durationMs: number | null): number | null {
  const energyJ = summary.gpu?.energyJ ?? null;
  const { median, unit } = summary.throughput;
  if (energyJ === null || median === null || median <= 0 || unit !== 'tokens/s' || durationMs === null || durationMs <= 0) return null;
  const tokens = median * (durationMs / 1000);
  return energyJ / (tokens / 1000);
}

export function throttleText(gpu: NonNullable<RunSummary['gpu']>): string {
  const total = gpu.throttledSeconds;
  if (total === null) return '–';
  if (total === 0) return 'none';
  const reasons = Object.entries(gpu.throttledByReason)
    .filter(([, s]) => s > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, s]) => `${reason} ${formatSeconds(s)}`);
  return reasons.length > 0 ? `${formatSeconds(total)} (${reasons.join(', ')})` : formatSeconds(total);
}

/** `78 %`, `2,790 MHz`: a number and its unit, or a dash when not reported. */
export function withUnit(value: number | null, unit: string, digits = 3): string {
  return value === null ? '–' : `${formatNumber(value, digits)} ${unit}`;
}
