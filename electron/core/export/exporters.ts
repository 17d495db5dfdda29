// A comparison as Markdown (GitHub tables), CSV (RFC 4180), JSON (per config, against the baseline)
// and a self-contained HTML report with its charts.
import { stringify } from 'csv-stringify/sync';
import type { Comparison, ComparisonRow, ExportFormat, Run, RunSeries } from '../../shared/api.js';
import { APART_SHIFT_ALLOWANCE } from '../../shared/api/compare.js';
import {
  columnTitle,
  comparedText,
  environmentLines,
  fairnessText,
  figure,
  intervalText,
  machineText,
  msText,
  plainFigure,
  rowLabel,
  rowReasons,
  runsText,
  signed,
  SIGNIFICANT_FIGURES,
  SPEEDUP_FIGURES,
  speedupText,
  speedupWithInterval,
  throughputTitle,
  verdictText,
  workText,
} from './format.js';
import { columnsWithData, escapeHtml, escapeMarkdown, htmlPageStart, htmlTable, markdownTable, type Column } from './markup.js';
import { lineChartSvg, mergeIdenticalLines, type ChartLine } from './svgChart.js';
import { throughputChartSvg } from './throughputChart.js';

export interface ExportInput {
  comparison: Comparison;
  runs: ReadonlyMap<number, Run>;
  series: readonly RunSeries[];
  title: string;
}

/** A variable's values this short (about 110 px in the report's 13 px text) are never broken: `3e-4`, `max-autotune`. */
const WHOLE_VALUE_CHARS = 16;

/** A figure with its unit, or blank. */
const withUnit = (value: number | null, unit: string, digits?: number) => (value === null || !Number.isFinite(value) ? '' : `${figure(value, digits)} ${unit}`);

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
    `Rows whose runs ran apart in time from the baseline's (not interleaved: other sweeps, other days, imported logs) are faster or slower only beyond ±${APART_SHIFT_ALLOWANCE * 100} %, a shift the machine may make between sessions, and never same. ` +
    "Step time: the median over the row's runs of each run's steady-state median step time. Final loss: the median over the row's runs of each run's last train loss. " +
    `n: runs in the row. Figures to ${SIGNIFICANT_FIGURES} significant figures, speedups to ${SPEEDUP_FIGURES}.`
  );
}

/** What the figures hold for: the commands, the machine, the GPU settings and the software, and the gate. */
function headerLines(comparison: Comparison): string[] {
  const environment = environmentLines(comparison.environment);
  return [
    ...comparison.commands.map((c) => `Command: ${c}`),
    ...(environment.some((line) => line.startsWith('Machine: ')) ? environment : [`Machine: ${machineText(comparison.machine)}`, ...environment]),
    `Quality gate: ${comparison.gateText}; NaN fails.`,
  ];
}

/** The columns Markdown and HTML share, in the order a reader wants them: the config, then throughput with step time and loss beside it. */
function rowColumns(comparison: Comparison, unit: string | null) {
  return {
    config: { title: 'Config', cell: rowLabel } satisfies Column<ComparisonRow>,
    variables: comparison.columns.map((c): Column<ComparisonRow> => ({
      title: columnTitle(c),
      cell: (row) => row.config[c] ?? '',
      whole: comparison.rows.every((row) => (row.config[c] ?? '').length <= WHOLE_VALUE_CHARS),
    })),
    throughput: { title: throughputTitle(unit), cell: (row) => throughputCell(row, unit), numeric: true } satisfies Column<ComparisonRow>,
    beside: [
      { title: 'Step time', cell: (row) => msText(row.stepTimeMs), numeric: true },
      { title: 'Final loss', cell: (row) => figure(row.finalLoss), numeric: true },
      { title: 'Eval loss', cell: (row) => figure(row.evalLoss), numeric: true },
    ] satisfies Array<Column<ComparisonRow>>,
  };
}

export function toMarkdown({ comparison, title }: ExportInput): string {
  const unit = sharedUnit(comparison);
  const shared = rowColumns(comparison, unit);
  const columns = columnsWithData<ComparisonRow>(
    [
      shared.config,
      ...shared.variables,
      shared.throughput,
      ...shared.beside,
      { title: 'Speedup (95 % CI)', cell: speedupWithInterval, numeric: true },
      { title: 'Verdict', cell: (row) => verdictText(row, comparison.minEffect) },
      { title: 'n', cell: (row) => String(row.n), numeric: true },
      { title: 'Runs (steady steps, warm-up, left out)', cell: runsText },
      { title: 'Work / step', cell: workText },
      { title: 'Fairness', cell: fairnessText },
      { title: 'VRAM', cell: (row) => withUnit(row.vramPeakMiB, 'MiB'), numeric: true },
      { title: 'GPU util', cell: (row) => withUnit(row.utilMean, '%', 3), numeric: true },
      { title: 'Power', cell: (row) => withUnit(row.powerMeanW, 'W'), numeric: true },
      { title: 'Compared', cell: comparedText, numeric: true },
      { title: 'Δ', cell: (row) => (row.isBaseline ? '' : signed(row.lossDelta)), numeric: true },
      { title: 'Gate', cell: (row) => row.gate + (row.fasterButWorse ? ' (faster but worse)' : '') },
      { title: 'Notes', cell: rowReasons },
    ],
    comparison.rows,
  );
  const lines = [
    `## ${escapeMarkdown(title)}`,
    '',
    ...headerLines(comparison).map((l) => `${escapeMarkdown(l)}  `),
    '',
    ...markdownTable(columns, comparison.rows),
    '',
  ];
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
      environment: comparison.environment,
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

/** One run of a row, for the report's table of runs. */
interface RunItem {
  row: ComparisonRow;
  detail: ComparisonRow['runs'][number];
  run: Run | undefined;
}

function runItems(comparison: Comparison, runs: ReadonlyMap<number, Run>): RunItem[] {
  return comparison.rows.flatMap((row) => row.runs.map((detail) => ({ row, detail, run: runs.get(detail.id) })));
}

function runColumns(unit: string | null): Array<Column<RunItem>> {
  return [
    { title: 'Run', cell: (item) => `#${item.detail.id}` },
    { title: 'Config', cell: (item) => item.row.name },
    {
      title: throughputTitle(unit),
      cell: (item) =>
        unit === null && item.detail.throughput !== null ? withUnit(item.detail.throughput, item.row.throughput.unit ?? '') : figure(item.detail.throughput),
      numeric: true,
    },
    { title: 'Step time', cell: (item) => msText(item.run?.summary.stepTimeMs.median ?? null), numeric: true },
    { title: 'Final loss', cell: (item) => figure(item.run?.summary.finalLoss ?? null), numeric: true },
    { title: 'Steady steps', cell: (item) => (item.detail.steadySteps === null ? '' : item.detail.steadySteps.toLocaleString('en-US')), numeric: true },
    { title: 'Warm-up', cell: (item) => (item.detail.warmupSteps === null ? '' : item.detail.warmupSteps.toLocaleString('en-US')), numeric: true },
    { title: 'Left out', cell: (item) => (item.detail.leftOutSteps === 0 ? '' : item.detail.leftOutSteps.toLocaleString('en-US')), numeric: true },
    { title: 'Fairness', cell: (item) => item.detail.unfair.join(', ') },
    { title: 'Ended', cell: (item) => (item.run === undefined ? '' : (item.run.exitClass ?? item.run.status)) },
    { title: 'Same as', cell: (item) => (item.detail.identicalTo === null ? '' : `#${item.detail.identicalTo} (identical copy)`) },
  ];
}

/** Where each run sits: its row (the colour of its lines and dots) and its place among the row's repeats (the dash). */
function runPlaces(comparison: Comparison): Map<number, { row: ComparisonRow; index: number; repeat: number }> {
  const places = new Map<number, { row: ComparisonRow; index: number; repeat: number }>();
  comparison.rows.forEach((row, index) => row.runIds.forEach((id, repeat) => places.set(id, { row, index, repeat })));
  return places;
}

export function toHtml(input: ExportInput): string {
  const { comparison, series, title, runs } = input;
  const unit = sharedUnit(comparison);
  const shared = rowColumns(comparison, unit);
  const rowClass = (row: ComparisonRow) => [row.best ? 'best' : '', row.gate === 'fail' ? 'fail' : ''].filter(Boolean).join(' ');
  // Intervals under their figures and units under their titles, so the table fits a 1,440 px window with a GPU's columns.
  const rowTable = htmlTable<ComparisonRow>(
    [
      shared.config,
      ...shared.variables,
      { ...shared.throughput, detail: (row) => intervalText(row.throughput.ci95), subtitle: '95 % CI' },
      ...shared.beside,
      { title: 'Speedup', cell: speedupText, detail: (row) => intervalText(row.speedup.ci95, SPEEDUP_FIGURES), subtitle: '95 % CI', numeric: true },
      { title: 'Verdict', cell: (row) => verdictText(row, comparison.minEffect) },
      { title: 'n', cell: (row) => String(row.n), numeric: true },
      { title: 'Compared', cell: comparedText },
      { title: 'Δ', cell: (row) => (row.isBaseline ? '' : signed(row.lossDelta)), numeric: true },
      { title: 'Gate', cell: (row) => `${row.gate}${row.fasterButWorse ? ' (faster but worse)' : ''}` },
      { title: 'Work / step', cell: workText },
    ],
    comparison.rows,
    rowClass,
    'comparison-table',
  );
  // What the rows cost and how fair the machine was, in a table of their own: beside six varied variables, the GPU's
  // columns in the speed table would make it wider than a 1,440 px window. Left out when no row has any of them.
  const resourceTable = htmlTable<ComparisonRow>(
    [
      shared.config,
      { title: 'VRAM', subtitle: 'MiB', cell: (row) => figure(row.vramPeakMiB), numeric: true },
      { title: 'GPU util', subtitle: '%', cell: (row) => figure(row.utilMean, 3), numeric: true },
      { title: 'Power', subtitle: 'W', cell: (row) => figure(row.powerMeanW), numeric: true },
      { title: 'Energy', subtitle: 'J / 1k tokens', cell: (row) => figure(row.energyPer1kTokensJ), numeric: true },
      { title: 'Fairness', cell: fairnessText },
    ],
    comparison.rows,
    rowClass,
    'resources-table',
  );
  // Sentences about a row (why it has no verdict, identical repeats, differing conditions) under the table, where they
  // read as sentences, rather than in columns that would make every row tall and the table wider than the window.
  const rowNotes = comparison.rows
    .flatMap((row) => {
      const notes = [rowReasons(row), row.differences.length === 0 ? '' : `conditions differ: ${row.differences.join('; ')}`].filter(Boolean);
      return notes.length === 0 ? [] : [`<li><strong>${escapeHtml(row.name)}</strong>: ${escapeHtml(notes.join('; '))}</li>`];
    })
    .join('\n');
  const runTable = htmlTable(runColumns(unit), runItems(comparison, runs), () => '', 'runs-table');

  // One dot plot per unit the rows are in (one, unless the work of a step was not known to convert them).
  const units = [...new Set(comparison.rows.map((row) => row.throughput.unit).filter((u): u is string => u !== null))];
  const throughputCharts = units
    .map((u) =>
      throughputChartSvg(
        comparison.rows.filter((row) => row.throughput.unit === u),
        u,
      ),
    )
    .filter((svg): svg is string => svg !== null)
    .map((svg) => `<figure class="wide"><figcaption>Throughput by config: each run a dot</figcaption>${svg}</figure>`)
    .join('\n');

  const places = runPlaces(comparison);
  let merged = false;
  const chart = (name: string, label: string, from: 'metrics' | 'telemetry', xLabel: string) => {
    const lines: ChartLine[] = series
      .map((s) => {
        const place = places.get(s.runId);
        return {
          label: place === undefined ? s.label : `#${s.runId} ${place.row.name}`,
          name: `#${s.runId}`,
          points: s[from][name] ?? [],
          color: place?.index,
          dash: place?.repeat,
        };
      })
      .filter((l) => l.points.length > 0);
    const drawn = mergeIdenticalLines(lines, (first, others) => {
      merged = true;
      return `${first.label} = ${others.map((o) => o.name ?? o.label).join(' = ')} (identical)`;
    });
    return drawn.length === 0 ? '' : `<figure><figcaption>${escapeHtml(label)}</figcaption>${lineChartSvg(drawn, { xLabel, yLabel: label })}</figure>`;
  };
  const charts = [
    chart('tokens_per_sec', 'Tokens/s by step', 'metrics', 'step'),
    chart('samples_per_sec', 'Samples/s by step', 'metrics', 'step'),
    chart('step_time_ms', 'Step time (ms) by step', 'metrics', 'step'),
    chart('loss', 'Loss by step', 'metrics', 'step'),
    chart('utilGpu', 'GPU utilisation (%) by time', 'telemetry', 's'),
    chart('memUsedMiB', 'VRAM (MiB) by time', 'telemetry', 's'),
    chart('powerW', 'Power (W) by time', 'telemetry', 's'),
    chart('tempC', 'Temperature (°C) by time', 'telemetry', 's'),
    chart('smClockMHz', 'SM clock (MHz) by time', 'telemetry', 's'),
  ]
    .filter(Boolean)
    .join('\n');
  const identicalNote = merged
    ? '<p class="notes">Runs whose series are identical (the same seed ran twice) are drawn as one line, named for each of them: “#1 … = #2 (identical)”.</p>'
    : '';
  return `${htmlPageStart(title)}
<h1>${escapeHtml(title)}</h1>
<p class="notes">Generated ${escapeHtml(comparison.generatedAt)} by Tuning Bench.</p>
${headerLines(comparison)
  .map((l) => `<p class="notes">${escapeHtml(l)}</p>`)
  .join('\n')}
${rowTable}
${rowNotes === '' ? '' : `<ul class="row-notes" data-testid="row-notes">\n${rowNotes}\n</ul>`}
${throughputCharts}
<p class="notes">${escapeHtml(methodNote(comparison))}</p>
${comparison.notes.map((n) => `<p class="notes">${escapeHtml(n)}</p>`).join('\n')}
${resourceTable === '' ? '' : `<h2>Resources and fairness</h2>\n${resourceTable}`}
<h2>Runs</h2>
${runTable}
<section>${charts}</section>
${identicalNote}
</body></html>
`;
}

export const EXPORTERS: Record<ExportFormat, { render: (input: ExportInput) => string; extension: string; mimeType: string }> = {
  md: { render: toMarkdown, extension: 'md', mimeType: 'text/markdown' },
  csv: { render: toCsv, extension: 'csv', mimeType: 'text/csv' },
  json: { render: toJson, extension: 'json', mimeType: 'application/json' },
  html: { render: toHtml, extension: 'html', mimeType: 'text/html' },
};
