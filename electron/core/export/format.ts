// Number and label formatting shared by the exports, so every format shows the same figures.
import type { ComparisonRow, EnvironmentFact } from '../../shared/api.js';

const SPECIAL_HEADERS: Record<string, string> = { amp: 'AMP', lr: 'LR', seq_len: 'Seq len', pin_memory: 'Pin memory' };

/** `batch` → `Batch`, `amp` → `AMP`, `seq_len` → `Seq len`. */
export function columnTitle(variable: string): string {
  return SPECIAL_HEADERS[variable] ?? variable.charAt(0).toUpperCase() + variable.slice(1).replace(/_/gu, ' ');
}

export function throughputTitle(unit: string | null): string {
  return unit === 'tokens/s' ? 'Tokens/s' : unit === 'samples/s' ? 'Samples/s' : unit === 'steps/s' ? 'Steps/s' : 'Throughput';
}

/** Significant figures in every export: enough to tell 0.68 from 0.72 steps/s and 2.405 from 2.410, never integer-rounded rates. */
export const SIGNIFICANT_FIGURES = 4;

/**
 * A figure to 4 significant figures, trailing zeros kept (they are significant: 1.50 is not 1.5), with thousands
 * separators: 170,700; 0.6800; 2.405. Whole numbers of more digits keep them all: 1,234,567.
 */
export function figure(value: number | null, digits = SIGNIFICANT_FIGURES): string {
  return value === null || !Number.isFinite(value) ? '' : value.toLocaleString('en-US', significant(value, digits));
}

/** The same for CSV: no separators, so a spreadsheet reads it as a number. */
export function plainFigure(value: number | null | undefined, digits = SIGNIFICANT_FIGURES): string {
  return value === null || value === undefined || !Number.isFinite(value)
    ? ''
    : value.toLocaleString('en-US', { ...significant(value, digits), useGrouping: false });
}

function significant(value: number, digits: number): Intl.NumberFormatOptions {
  // A whole number wider than `digits` is shown whole (rounded to `digits` figures): 170,700, not 1.707e5.
  if (Math.abs(value) >= 10 ** digits) return { maximumSignificantDigits: digits };
  return { minimumSignificantDigits: digits, maximumSignificantDigits: digits };
}

/** A duration in milliseconds with its unit, `12.03 ms`; blank without one. */
export function msText(value: number | null): string {
  return value === null || !Number.isFinite(value) ? '' : `${figure(value)} ms`;
}

/** A signed difference to 3 significant figures: +0.0123, -0.004. */
export function signed(value: number | null): string {
  if (value === null) return '';
  const text = figure(value, 3);
  return value > 0 ? `+${text}` : value === 0 ? '0' : text;
}

/** Speedups and their intervals: three significant figures, trailing zeros kept (1.16x, 0.845-1.50). */
export const SPEEDUP_FIGURES = 3;

/** `1.09x`; blank without a ratio. */
export function speedupText(row: ComparisonRow): string {
  return row.speedup.ratio === null ? '' : `${figure(row.speedup.ratio, SPEEDUP_FIGURES)}x`;
}

/** `1.05x (1.02-1.08)`: the speedup with its 95 % interval, as the footnotes promise. */
export function speedupWithInterval(row: ComparisonRow): string {
  const ratio = speedupText(row);
  return row.speedup.ci95 === null || ratio === '' ? ratio : `${ratio} (${intervalText(row.speedup.ci95, SPEEDUP_FIGURES)})`;
}

/** The verdict as a reader should take it: `inconclusive (about 4 more runs per side)`, `same (±2 %)`, `faster ★`. */
export function verdictText(row: ComparisonRow, minEffect: number): string {
  const { verdict, moreRepeats } = row.speedup;
  if (verdict === 'same') return `same (within ±${Number((minEffect * 100).toPrecision(3))} %)`;
  if (verdict === 'inconclusive' && row.speedup.repeatsCannotDecide) return 'inconclusive (more runs like these cannot decide)';
  if (verdict === 'inconclusive')
    return moreRepeats === null
      ? 'inconclusive (many more runs needed)'
      : `inconclusive (about ${moreRepeats} more run${moreRepeats === 1 ? '' : 's'} per side)`;
  if (verdict === 'unknown') return 'no speedup';
  return verdict;
}

/** Each run of the row: `#12 180 steps, warm-up 1, left out 2 ⚠ host-busy`, and `(identical to #11)` for a copy. */
export function runsText(row: ComparisonRow): string {
  return row.runs
    .map((r) => {
      const parts = [`#${r.id}`];
      if (r.steadySteps !== null) parts.push(`${r.steadySteps} steps`);
      if (r.warmupSteps !== null) parts.push(`warm-up ${r.warmupSteps}`);
      if (r.leftOutSteps > 0) parts.push(`left out ${r.leftOutSteps}`);
      if (r.unfair.length > 0) parts.push(`⚠ ${r.unfair.join(', ')}`);
      if (r.identicalTo !== null) parts.push(`(identical to #${r.identicalTo})`);
      return parts.join(' ');
    })
    .join('; ');
}

/** Work in one step: `8,192 tokens`, `16 samples`, both, or blank. */
export function workText(row: ComparisonRow): string {
  const { tokens, samples } = row.workPerStep;
  return [tokens === null ? '' : `${tokens.toLocaleString('en-US')} tokens`, samples === null ? '' : `${samples.toLocaleString('en-US')} samples`]
    .filter(Boolean)
    .join(', ');
}

/** The row's fairness flags: `host-busy (runs 3, 5)`. */
export function fairnessText(row: ComparisonRow): string {
  return row.fairness.map((f) => `${f.kind} (run${f.runIds.length === 1 ? '' : 's'} ${f.runIds.join(', ')})`).join('; ');
}

/** The comparison's machine in one line: GPU, driver, CPU, PyTorch, each where known. */
export function machineText(machine: { gpu: string | null; driver: string | null; cpu: string | null; torch: string | null }): string {
  const parts = [
    machine.gpu,
    machine.driver === null ? null : `driver ${machine.driver}`,
    machine.cpu,
    machine.torch === null ? null : `PyTorch ${machine.torch}`,
  ].filter((p): p is string => p !== null);
  return parts.length === 0 ? 'not recorded' : parts.join(', ');
}

export function intervalText(interval: { low: number; high: number } | null, digits = SIGNIFICANT_FIGURES): string {
  return interval === null ? '' : `${figure(interval.low, digits)}-${figure(interval.high, digits)}`;
}

/** The compared value with its metric and where it was compared: `1.850 train loss at 7,680 tokens`. */
export function comparedText(row: ComparisonRow): string {
  if (row.compared === null) return '';
  const metric = row.compared.metric === 'loss' ? 'train loss' : row.compared.metric.replace(/_/gu, ' ');
  const at = row.compared.at === null || row.compared.at === 'final' ? '' : ` at ${row.compared.at}`;
  return `${figure(row.compared.value)} ${metric}${at}`;
}

/** Verdicts whose reason a reader needs beside them: why there is none, or what would decide. */
const EXPLAINED_VERDICTS: ReadonlySet<string> = new Set(['inconclusive', 'repeat to decide', 'unknown']);

/** Why the speedup has no verdict or no figure (or what would decide it), and the row's notes (partial, identical copies). */
export function rowReasons(row: ComparisonRow): string {
  const reason = EXPLAINED_VERDICTS.has(row.speedup.verdict) ? (row.speedup.reason ?? '') : '';
  return [reason, ...row.notes].filter(Boolean).join('; ');
}

export function rowLabel(row: ComparisonRow): string {
  return `${row.name}${row.isBaseline && row.name !== 'baseline' ? ' (baseline)' : ''}${row.best ? ' ★' : ''}`;
}

/** Run ids as a reader scans them: `run 4`, `runs 1-3, 7`. */
export function runIdsText(ids: readonly number[]): string {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const spans: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    spans.push(j === i ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return `${sorted.length === 1 ? 'run' : 'runs'} ${spans.join(', ')}`;
}

const ENVIRONMENT_GROUPS: ReadonlyArray<[EnvironmentFact['group'], string]> = [
  ['machine', 'Machine'],
  ['gpu settings', 'GPU settings'],
  ['software', 'Software'],
];

/**
 * The environment as lines, one a group that has a fact: `Machine: Host gpu-box · GPU NVIDIA H100 · Driver 550.90.07 · …`;
 * a fact whose runs differ names each value with its runs: `PyTorch 2.4.1 (runs 1-3), 2.5.0 (run 4)`.
 */
export function environmentLines(environment: readonly EnvironmentFact[]): string[] {
  return ENVIRONMENT_GROUPS.flatMap(([group, title]) => {
    const facts = environment.filter((fact) => fact.group === group);
    if (facts.length === 0) return [];
    const parts = facts.map((fact) => {
      const [only, ...more] = fact.values;
      const value = more.length === 0 ? (only?.text ?? '') : fact.values.map((v) => `${v.text} (${runIdsText(v.runIds)})`).join(', ');
      return `${fact.label} ${value}`;
    });
    return [`${title}: ${parts.join(' · ')}`];
  });
}
