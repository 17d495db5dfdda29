// Small statistics for benchmarks: medians of repeated side-by-side measurements.

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
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
