// A comparison as Markdown (GitHub tables), CSV (RFC 4180), JSON (per config, against the baseline)
// and a self-contained HTML report with its charts.
import { stringify } from 'csv-stringify/sync';
import type { Comparison, ComparisonRow, ExportFormat, Run, RunSeries } from '../../shared/api.js';
import {
  columnTitle,
  comparedText,
  fairnessText,
  figure,
  intervalText,
  machineText,
  plainFigure,
  rowLabel,
  rowReasons,
  runsText,
  signed,
  SIGNIFICANT_FIGURES,
  SPEEDUP_FIGURES,
  speedupWithInterval,
  throughputTitle,
  verdictText,
  workText,
} from './format.js';
import { lineChartSvg } from './svgChart.js';

export interface ExportInput {
  comparison: Comparison;
  runs: ReadonlyMap<number, Run>;
  series: readonly RunSeries[];
  title: string;
}

function escapeMarkdown(text: string): string {
  return text.replace(/\|/gu, '\\|').replace(/\n/gu, ' ');
}

/** A throughput cell: the figure, and its unit when the rows do not all share one. */
function throughputCell(row: ComparisonRow, unit: string | null): string {
  const value = figure(row.throughput.median);
  return value !== '' && row.throughput.unit !== unit && row.throughput.unit !== null ? `${value} ${row.throughput.unit}` : value;
}

/** One unit for the column when every row has it, else null (each cell then names its own). */
function sharedUnit(comparison: Comparison): string | null {
  const units = new Set(comparison.rows.map((r) => r.throughput.unit).filter((u) => u !== null));
  return units.size === 1 ? [...units][0]! : null;
}

/** The footnote every format carries: what the figures are and what the verdicts mean. */
export function methodNote(comparison: Comparison): string {
  const delta = Number((comparison.minEffect * 100).toPrecision(3));
  return (
    "Throughput: the geometric mean of the runs' steady-state medians (warm-up and left-out steps excluded), per token or per sample wherever a step's work is known, with a 95 % t-interval over runs. " +
    'Speedup: the ratio of geometric means against the baseline, with a 95 % t-interval over runs (Welch; paired round by round for interleaved repeats where that is tighter). ' +
    `Verdict: faster or slower when the interval excludes 1; same when it lies inside 1 ± ${delta} %; inconclusive otherwise, with about how many more runs per side would decide; repeat to decide with one run on a side; no speedup where a step's work differs and is not known. ` +
    `n: runs in the row. Figures to ${SIGNIFICANT_FIGURES} significant figures, speedups to ${SPEEDUP_FIGURES}.`
  );
}

function headerLines(comparison: Comparison): string[] {
  return [
    `Machine: ${machineText(comparison.machine)}`,
    ...comparison.commands.map((c) => `Command: ${c}`),
    `Quality gate: ${comparison.gateText}; NaN fails.`,
  ];
}

export function toMarkdown({ comparison, title }: ExportInput): string {
  const unit = sharedUnit(comparison);
  const header = [
    'Config',
    ...comparison.columns.map(columnTitle),
    throughputTitle(unit),
    'Speedup (95 % CI)',
    'Verdict',
    'n',
    'Runs (steady steps, warm-up, left out)',
    'Work / step',
    'Fairness',
    'VRAM',
    'Compared',
    'Δ',
    'Gate',
    'Notes',
  ];
  const rows = comparison.rows.map((row) => [
    rowLabel(row),
    ...comparison.columns.map((c) => row.config[c] ?? ''),
    throughputCell(row, unit),
    speedupWithInterval(row),
    verdictText(row, comparison.minEffect),
    String(row.n),
    runsText(row),
    workText(row),
    fairnessText(row),
    row.vramPeakMiB === null ? '' : `${figure(row.vramPeakMiB)} MiB`,
    comparedText(row),
    row.isBaseline ? '' : signed(row.lossDelta),
    row.gate + (row.fasterButWorse ? ' (faster but worse)' : ''),
    rowReasons(row),
  ]);
  // Right-aligned: throughput, speedup, n, VRAM, compared value, delta (counted from the end: the variable columns come first).
  const numeric = new Set([12, 11, 9, 5, 4, 3].map((fromEnd) => header.length - fromEnd));
  const line = (cells: string[]) => `| ${cells.map(escapeMarkdown).join(' | ')} |`;
  const rule = `|${header.map((_, i) => (numeric.has(i) ? ' ---: ' : ' --- ')).join('|')}|`;
  const lines = [`## ${escapeMarkdown(title)}`, '', ...headerLines(comparison).map((l) => `${escapeMarkdown(l)}  `), '', line(header), rule, ...rows.map(line), ''];
  lines.push(methodNote(comparison));
  for (const note of comparison.notes) lines.push(note);
  const flagged = comparison.rows.filter((r) => r.differences.length > 0);
  for (const row of flagged) lines.push(`- ${escapeMarkdown(row.name)}: ${escapeMarkdown(row.differences.join('; '))}`);
  for (const row of comparison.rows.filter((r) => r.fairness.length > 0)) {
    lines.push(`- ${escapeMarkdown(row.name)}: ${escapeMarkdown(row.fairness.map((f) => `${f.kind} (runs ${f.runIds.join(', ')}): ${f.message}`).join('; '))}`);
  }
  return `${lines.join('\n')}\n`;
}

export function toCsv({ comparison }: ExportInput): string {
  const header = [
    'config',
    ...comparison.columns,
    'baseline',
    'runs',
    'throughput_median',
    'throughput_ci95_low',
    'throughput_ci95_high',
    'throughput_unit',
    'speedup',
    'speedup_ci95_low',
    'speedup_ci95_high',
    'verdict',
    'verdict_reason',
    'method',
    'more_runs_per_side',
    'min_effect',
    'n',
    'runs_detail',
    'steady_steps',
    'warmup_steps',
    'left_out_steps',
    'tokens_per_step',
    'samples_per_step',
    'fairness',
    'partial',
    'step_time_ms',
    'vram_peak_mib',
    'gpu_util_mean',
    'power_mean_w',
    'energy_per_1k_tokens_j',
    'final_loss',
    'eval_loss',
    'compared_metric',
    'compared_at',
    'compared_value',
    'baseline_value',
    'delta',
    'quality_gate',
    'gate_reason',
    'faster_but_worse',
    'exit_classes',
    'differences',
    'best',
    'notes',
    'machine',
    'commands',
    'gate',
  ];
  const num = plainFigure;
  const rows = comparison.rows.map((row) => [
    row.name,
    ...comparison.columns.map((c) => row.config[c] ?? ''),
    String(row.isBaseline),
    row.runIds.join(' '),
    num(row.throughput.median),
    num(row.throughput.ci95?.low),
    num(row.throughput.ci95?.high),
    row.throughput.unit ?? '',
    num(row.speedup.ratio),
    num(row.speedup.ci95?.low),
    num(row.speedup.ci95?.high),
    row.speedup.verdict,
    row.speedup.reason ?? '',
    row.speedup.method ?? '',
    row.speedup.moreRepeats === null ? '' : String(row.speedup.moreRepeats),
    String(comparison.minEffect),
    String(row.n),
    runsText(row),
    row.runs.map((r) => (r.steadySteps === null ? '' : String(r.steadySteps))).join(' '),
    row.runs.map((r) => (r.warmupSteps === null ? '' : String(r.warmupSteps))).join(' '),
    row.runs.map((r) => String(r.leftOutSteps)).join(' '),
    row.workPerStep.tokens === null ? '' : String(row.workPerStep.tokens),
    row.workPerStep.samples === null ? '' : String(row.workPerStep.samples),
    fairnessText(row),
    String(row.partial),
    num(row.stepTimeMs),
    num(row.vramPeakMiB),
    num(row.utilMean),
    num(row.powerMeanW),
    num(row.energyPer1kTokensJ),
    num(row.finalLoss),
    num(row.evalLoss),
    row.compared?.metric ?? '',
    row.compared?.at ?? '',
    num(row.compared?.value),
    num(row.compared?.base),
    num(row.lossDelta, 3),
    row.gate,
    row.gateReason,
    String(row.fasterButWorse),
    row.exitClasses.join(' '),
    row.differences.join('; '),
    String(row.best),
    row.notes.join('; '),
    machineText(comparison.machine),
    comparison.commands.join(' | '),
    comparison.gateText,
  ]);
  // RFC 4180: CRLF line ends, fields quoted when they hold a comma, quote or line break.
  return stringify([header, ...rows], { record_delimiter: '\r\n' });
}

function rowJson(row: ComparisonRow, runs: ReadonlyMap<number, Run>) {
  const first = runs.get(row.runIds[0]!);
  return {
    name: row.name,
    date: first?.startedAt ?? null,
    baseline: row.isBaseline,
    best: row.best,
    config: row.config,
    runIds: row.runIds,
    metrics: {
      throughput: row.throughput.median,
      throughput_ci95: row.throughput.ci95,
      throughput_unit: row.throughput.unit,
      step_time_ms: row.stepTimeMs,
      vram_peak_mib: row.vramPeakMiB,
      gpu_util_mean: row.utilMean,
      power_mean_w: row.powerMeanW,
      energy_per_1k_tokens_j: row.energyPer1kTokensJ,
      final_loss: row.finalLoss,
      eval_loss: row.evalLoss,
      exit_classes: row.exitClasses,
    },
    vs_baseline: {
      speedup: row.speedup.ratio,
      speedup_ci95: row.speedup.ci95,
      verdict: row.speedup.verdict,
      verdict_reason: row.speedup.reason,
      method: row.speedup.method,
      more_runs_per_side: row.speedup.moreRepeats,
      n: row.n,
      runs: row.runs,
      work_per_step: row.workPerStep,
      fairness: row.fairness,
      partial: row.partial,
      notes: row.notes,
      compared: row.compared,
      loss_delta: row.lossDelta,
      matched_loss: row.matchedLoss,
      quality_gate: row.gate,
      gate_reason: row.gateReason,
      faster_but_worse: row.fasterButWorse,
      differences: row.differences,
    },
  };
}

export function toJson({ comparison, runs, title }: ExportInput): string {
  return `${JSON.stringify(
    {
      title,
      generatedAt: comparison.generatedAt,
      machine: comparison.machine,
      commands: comparison.commands,
      groupBy: comparison.groupBy,
      gate: comparison.gate,
      gateText: comparison.gateText,
      minEffect: comparison.minEffect,
      method: methodNote(comparison),
      notes: comparison.notes,
      configs: comparison.rows.map((row) => rowJson(row, runs)),
    },
    null,
    2,
  )}\n`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/gu, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function toHtml(input: ExportInput): string {
  const { comparison, series, title } = input;
  const unit = sharedUnit(comparison);
  const header = [
    'Config',
    ...comparison.columns.map(columnTitle),
    throughputTitle(unit),
    '95 % CI',
    'Speedup (95 % CI)',
    'Verdict',
    'n',
    'Runs (steady steps, warm-up, left out)',
    'Work / step',
    'Fairness',
    'Step ms',
    'VRAM MiB',
    'Util %',
    'Power W',
    'J / 1k tok',
    'Loss',
    'Compared',
    'Δ',
    'Gate',
    'Notes',
    'Conditions',
  ];
  const body = comparison.rows
    .map((row) => {
      const cells = [
        rowLabel(row),
        ...comparison.columns.map((c) => row.config[c] ?? ''),
        throughputCell(row, unit),
        intervalText(row.throughput.ci95),
        speedupWithInterval(row),
        verdictText(row, comparison.minEffect),
        String(row.n),
        runsText(row),
        workText(row),
        fairnessText(row),
        figure(row.stepTimeMs),
        figure(row.vramPeakMiB),
        figure(row.utilMean, 3),
        figure(row.powerMeanW),
        figure(row.energyPer1kTokensJ),
        figure(row.finalLoss),
        comparedText(row),
        row.isBaseline ? '' : signed(row.lossDelta),
        `${row.gate}${row.fasterButWorse ? ' (faster but worse)' : ''}`,
        rowReasons(row),
        row.differences.join('; '),
      ];
      return `<tr class="${row.best ? 'best' : ''}${row.gate === 'fail' ? ' fail' : ''}">${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`;
    })
    .join('\n');
  const chart = (name: string, label: string, from: 'metrics' | 'telemetry', xLabel: string) => {
    const lines = series.map((s) => ({ label: s.label, points: s[from][name] ?? [] })).filter((l) => l.points.length > 0);
    return lines.length === 0 ? '' : `<figure><figcaption>${escapeHtml(label)}</figcaption>${lineChartSvg(lines, { xLabel, yLabel: label })}</figure>`;
  };
  const charts = [
    chart('tokens_per_sec', 'Tokens/s by step', 'metrics', 'step'),
    chart('step_time_ms', 'Step time (ms) by step', 'metrics', 'step'),
    chart('loss', 'Loss by step', 'metrics', 'step'),
    chart('utilGpu', 'GPU utilisation (%) by time', 'telemetry', 's'),
    chart('memUsedMiB', 'VRAM (MiB) by time', 'telemetry', 's'),
    chart('powerW', 'Power (W) by time', 'telemetry', 's'),
    chart('tempC', 'Temperature (°C) by time', 'telemetry', 's'),
    chart('smClockMHz', 'SM clock (MHz) by time', 'telemetry', 's'),
  ].join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1b1f24;background:#fff}
table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:right;white-space:nowrap}
td:first-child,th:first-child,td:last-child{text-align:left}tr.best{background:#e6f4ea}tr.fail td{color:#a40e26}
figure{display:inline-block;margin:0 1.5rem 1.5rem 0}figcaption{font-weight:600;margin-bottom:.3rem}.notes{color:#57606a}
@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}td,th{border-color:#30363d}tr.best{background:#12361f}}
</style></head><body>
<h1>${escapeHtml(title)}</h1>
<p class="notes">Generated ${escapeHtml(comparison.generatedAt)} by Tuning Bench.</p>
${headerLines(comparison).map((l) => `<p class="notes">${escapeHtml(l)}</p>`).join('\n')}
<p class="notes">${escapeHtml(methodNote(comparison))}</p>
<table><thead><tr>${header.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>
${body}
</tbody></table>
${comparison.notes.map((n) => `<p class="notes">${escapeHtml(n)}</p>`).join('\n')}
<section>${charts}</section>
</body></html>
`;
}

export const EXPORTERS: Record<ExportFormat, { render: (input: ExportInput) => string; extension: string; mimeType: string }> = {
  md: { render: toMarkdown, extension: 'md', mimeType: 'text/markdown' },
  csv: { render: toCsv, extension: 'csv', mimeType: 'text/csv' },
  json: { render: toJson, extension: 'json', mimeType: 'application/json' },
  html: { render: toHtml, extension: 'html', mimeType: 'text/html' },
};
