// Number and label formatting shared by the exports, so every format shows the same figures.
import type { ComparisonRow } from '../../shared/api.js';

const SPECIAL_HEADERS: Record<string, string> = { amp: 'AMP', lr: 'LR', seq_len: 'Seq len', pin_memory: 'Pin memory' };

/** `batch` → `Batch`, `amp` → `AMP`, `seq_len` → `Seq len`. */
export function columnTitle(variable: string): string {
  return SPECIAL_HEADERS[variable] ?? variable.charAt(0).toUpperCase() + variable.slice(1).replace(/_/gu, ' ');
}

export function throughputTitle(unit: string | null): string {
  return unit === 'tokens/s' ? 'Tok/s' : unit === 'samples/s' ? 'Samples/s' : unit === 'steps/s' ? 'Steps/s' : 'Throughput';
}

/** Significant figures in every export: enough to tell 0.68 from 0.72 steps/s and 2.405 from 2.410, never integer-rounded rates. */
export const SIGNIFICANT_FIGURES = 4;

/** A figure to 4 significant figures, with thousands separators: 170,700; 0.68; 2.405. */
export function figure(value: number | null, digits = SIGNIFICANT_FIGURES): string {
  return value === null || !Number.isFinite(value) ? '' : value.toLocaleString('en-US', { maximumSignificantDigits: digits });
}

/** The same for CSV: no separators, so a spreadsheet reads it as a number. */
export function plainFigure(value: number | null | undefined, digits = SIGNIFICANT_FIGURES): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '' : value.toLocaleString('en-US', { maximumSignificantDigits: digits, useGrouping: false });
}

/** A signed difference to 3 significant figures: +0.0123, -0.004. */
export function signed(value: number | null): string {
  if (value === null) return '';
  const text = figure(value, 3);
  return value > 0 ? `+${text}` : value === 0 ? '0' : text;
}

/** `1.09x`; blank without a ratio. */
export function speedupText(row: ComparisonRow): string {
  return row.speedup.ratio === null ? '' : `${figure(row.speedup.ratio, 3)}x`;
}

/** `1.05x (1.02-1.08)`: the speedup with its 95 % interval, as the footnotes promise. */
export function speedupWithInterval(row: ComparisonRow): string {
  const ratio = speedupText(row);
  return row.speedup.ci95 === null || ratio === '' ? ratio : `${ratio} (${intervalText(row.speedup.ci95, 3)})`;
}

export function intervalText(interval: { low: number; high: number } | null, digits = SIGNIFICANT_FIGURES): string {
  return interval === null ? '' : `${figure(interval.low, digits)}-${figure(interval.high, digits)}`;
}

/** The compared value with its metric and signed delta: `3.86 eval loss (+0.06)`. */
export function comparedText(row: ComparisonRow): string {
  if (row.compared === null) return '';
  return `${figure(row.compared.value)} ${row.compared.metric.replace(/_/gu, ' ')}`;
}

/** Why the speedup has no verdict or no figure, and the row's notes (partial, identical copies). */
export function rowReasons(row: ComparisonRow): string {
  return [row.speedup.reason ?? '', ...row.notes].filter(Boolean).join('; ');
}

export function rowLabel(row: ComparisonRow): string {
  return `${row.name}${row.isBaseline && row.name !== 'baseline' ? ' (baseline)' : ''}${row.best ? ' ★' : ''}`;
}
