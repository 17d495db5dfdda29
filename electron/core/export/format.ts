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

export function fixed(value: number | null, digits: number): string {
  return value === null ? '' : value.toFixed(digits);
}

/** Whole numbers with thousands separators: 170,478. */
export function whole(value: number | null): string {
  return value === null ? '' : Math.round(value).toLocaleString('en-US');
}

export function speedupText(row: ComparisonRow): string {
  return row.speedup.ratio === null ? '' : `${row.speedup.ratio.toFixed(2)}x`;
}

export function intervalText(interval: { low: number; high: number } | null, digits: number): string {
  return interval === null ? '' : `${interval.low.toFixed(digits)}-${interval.high.toFixed(digits)}`;
}

export function rowLabel(row: ComparisonRow): string {
  return `${row.name}${row.isBaseline && row.name !== 'baseline' ? ' (baseline)' : ''}${row.best ? ' ★' : ''}`;
}
