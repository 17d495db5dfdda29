// A comparison's figures as text, exactly as the exports write them (electron/core/export/format.ts), so a number on
// screen can be found in the Markdown, CSV or HTML file; the renderer may not import the engine, hence the copy.
import type { ComparisonRow } from '../../../electron/shared/api.js';

const SPECIAL_HEADERS: Record<string, string> = { amp: 'AMP', lr: 'LR', seq_len: 'Seq len', pin_memory: 'Pin memory' };

/** `batch` → `Batch`, `amp` → `AMP`, `seq_len` → `Seq len`. */
export function columnTitle(variable: string): string {
  return SPECIAL_HEADERS[variable] ?? variable.charAt(0).toUpperCase() + variable.slice(1).replace(/_/gu, ' ');
}

export function throughputTitle(unit: string | null): string {
  return unit === 'tokens/s' ? 'Tokens/s' : unit === 'samples/s' ? 'Samples/s' : unit === 'steps/s' ? 'Steps/s' : 'Throughput';
}

/** The exports leave an unknown value empty; a table cell shows a dash instead. */
export const NONE = '–';

export function fixed(value: number | null, digits: number): string {
  return value === null ? NONE : value.toFixed(digits);
}

/** Whole numbers with thousands separators: 170,478. */
export function whole(value: number | null): string {
  return value === null ? NONE : Math.round(value).toLocaleString('en-US');
}

/** Significant figures, as in the exports (SIGNIFICANT_FIGURES in electron/core/export/format.ts). */
const SIGNIFICANT_FIGURES = 4;

/** A figure to 4 significant figures, trailing zeros kept, with thousands separators: 170,700; 0.6800; 2.405 (as the exports). */
export function figure(value: number | null, digits = SIGNIFICANT_FIGURES): string {
  if (value === null || !Number.isFinite(value)) return NONE;
  // A whole number wider than `digits` is shown whole (rounded to `digits` figures): 170,700, not 1.707e5.
  const options =
    Math.abs(value) >= 10 ** digits ? { maximumSignificantDigits: digits } : { minimumSignificantDigits: digits, maximumSignificantDigits: digits };
  return value.toLocaleString('en-US', options);
}

/** `1.09x`, with an ASCII x as in the exports (the sweep matrix's × is its own). */
export function speedupText(row: ComparisonRow): string {
  return row.speedup.ratio === null ? NONE : `${figure(row.speedup.ratio, 3)}x`;
}

/** An interval to `digits` significant figures: `1.02-1.08`. */
export function intervalText(interval: { low: number; high: number } | null, digits = SIGNIFICANT_FIGURES): string {
  return interval === null ? '' : `${figure(interval.low, digits)}-${figure(interval.high, digits)}`;
}

/** A signed difference to 3 significant figures: `+0.0123`, `-0.004`. */
export function deltaText(value: number | null): string {
  if (value === null) return NONE;
  const text = figure(value, 3);
  return value > 0 ? `+${text}` : value === 0 ? '0' : text;
}

/** Where the losses were matched: "at step 60" or "at 122,880 tokens". */
export function matchedAtText(matched: NonNullable<ComparisonRow['matchedLoss']>): string {
  return matched.by === 'tokens' ? `at ${whole(matched.at)} tokens` : `at step ${whole(matched.at)}`;
}

/** The throughput unit of a comparison: the first row that has one. */
export function comparisonUnit(rows: readonly ComparisonRow[]): string | null {
  return rows.find((row) => row.throughput.unit)?.throughput.unit ?? null;
}
