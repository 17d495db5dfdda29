// Small statistics for benchmarks: medians of repeated side-by-side measurements.
import { median as sampleMedian } from 'simple-statistics';

/** simple-statistics' median, with NaN for no values (it throws there), so a benchmark that measured nothing prints NaN. */
export function median(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : sampleMedian([...values]);
}

export interface BenchRow {
  benchmark: string;
  metric: string;
  value: number;
  unit: string;
  target?: string;
  pass?: boolean;
}

export function formatTable(rows: readonly BenchRow[]): string {
  const header = ['benchmark', 'metric', 'value', 'unit', 'target', 'ok'];
  const cells = rows.map((row) => [
    row.benchmark,
    row.metric,
    Number.isInteger(row.value) ? String(row.value) : row.value.toFixed(row.value >= 100 ? 1 : 3),
    row.unit,
    row.target ?? '',
    row.pass === undefined ? '' : row.pass ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}
