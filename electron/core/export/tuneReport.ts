// A tune's result as a report to keep or send (Markdown or one self-contained HTML page): the answer first, then the ladder's table, each step's reason, how to make the kept knobs permanent, and the method.
import type { TuneResult, TuneStep } from '../../shared/api.js';
import { CONFIDENCE, confidenceText } from '../../shared/confidenceText.js';
import { figure, intervalText, msText, runIdsText, SIGNIFICANT_FIGURES, SPEEDUP_FIGURES, throughputTitle } from './format.js';
import { columnsWithData, escapeHtml, escapeMarkdown, htmlPageStart, htmlTable, markdownTable, type Column } from './markup.js';

export type TuneReportFormat = 'md' | 'html';

export interface TuneReportOptions {
  generatedAt: Date;
  /** Default: `Tuning results: <command>`. */
  title?: string;
}

/** A run of text, part of it code (a command, a folder, knobs): code in backticks in Markdown, in <code> in HTML. */
type Inline = string | { code: string };
type Paragraph = Inline[];

/** The report before it is written in one format or the other. */
interface Report {
  title: string;
  /** A cancelled or failed tune, said before anything else. */
  alert: Paragraph | null;
  facts: Paragraph[];
  answer: Paragraph[];
  unit: string | null;
  /** The confidence of the speedups' intervals, as a reader sees it (98.3 %: the tune's looks share the 5 %). */
  confidence: string;
  steps: TuneStep[];
  reasons: Array<{ name: string; text: Paragraph }>;
  permanent: { changes: Paragraph[]; patch: string | null; apply: Paragraph } | null;
  method: string;
  /** Where the loss column is read (TuneResult.lossAt). */
  lossAt: string | null;
  notes: string[];
  error: string | null;
}

const knobList = (knobs: Record<string, string>) =>
  Object.entries(knobs)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');

const speedup = (ratio: number | null) => (ratio === null || !Number.isFinite(ratio) ? '' : `${figure(ratio, SPEEDUP_FIGURES)}x`);

/** The throughput column's title: `Samples/s`, or the unit itself where it is none of the usual ones. */
function throughputHeading(unit: string | null): string {
  const title = throughputTitle(unit);
  return title === 'Throughput' && unit !== null ? `Throughput (${unit})` : title;
}

/** The verdict as a reader takes it; a skipped step has none. */
function verdictCell(step: TuneStep): string {
  if (step.status === 'skipped') return 'skipped';
  if (step.status === 'baseline') return 'baseline';
  if (step.speedup.verdict === '-') return '';
  return step.speedup.verdict === 'unknown' ? 'no speedup' : step.speedup.verdict;
}

function runsCell(step: TuneStep): string {
  if (step.status === 'skipped') return '';
  return step.status === 'baseline' ? String(step.n.candidate) : `${step.n.candidate}+${step.n.against}`;
}

/** The ladder's columns; `split` (HTML) puts intervals and units on a second, smaller line. */
function stepColumns(unit: string | null, split: boolean, confidence: string, lossAt: string | null): Array<Column<TuneStep>> {
  const throughput = (step: TuneStep) => {
    const value = figure(step.throughput.median);
    return value !== '' && step.throughput.unit !== null && step.throughput.unit !== unit ? `${value} ${step.throughput.unit}` : value;
  };
  const throughputCi = (step: TuneStep) => intervalText(step.throughput.ci95);
  const speedupCi = (step: TuneStep) => (step.status === 'skipped' ? '' : intervalText(step.speedup.ci95, SPEEDUP_FIGURES));
  const speedupCell = (step: TuneStep) => (step.status === 'skipped' ? '' : speedup(step.speedup.ratio));
  const joined = (main: string, detail: string) => (main === '' || detail === '' ? main : `${main} (${detail})`);
  return [
    { title: 'Config', cell: (step) => step.name },
    split
      ? { title: throughputHeading(unit), subtitle: '95 % CI', cell: throughput, detail: throughputCi, numeric: true }
      : { title: `${throughputHeading(unit)} (95 % CI)`, cell: (step) => joined(throughput(step), throughputCi(step)), numeric: true },
    split
      ? { title: 'Speedup', subtitle: `${confidence} CI`, cell: speedupCell, detail: speedupCi, numeric: true }
      : { title: `Speedup (${confidence} CI)`, cell: (step) => joined(speedupCell(step), speedupCi(step)), numeric: true },
    { title: 'Verdict', cell: verdictCell },
    { title: 'Runs', subtitle: 'candidate+against', cell: runsCell, numeric: true },
    { title: 'Step time', cell: (step) => msText(step.stepTimeMs), numeric: true },
    { title: lossAt === null ? 'Final loss' : `Loss at ${lossAt}`, cell: (step) => figure(step.finalLoss), numeric: true },
    { title: 'Peak VRAM', cell: (step) => (step.vramPeakMiB === null ? '' : `${figure(step.vramPeakMiB)} MiB`), numeric: true },
    { title: 'Gate', cell: (step) => (step.status === 'baseline' || step.status === 'skipped' ? '' : step.gate) },
    { title: 'Kept', cell: (step) => (step.status === 'baseline' ? '' : step.kept ? 'yes' : 'no') },
  ];
}

function machineText(machine: TuneResult['machine']): string {
  const cuda = machine.cuda === null ? 'CUDA not seen' : machine.cuda ? 'CUDA' : 'no CUDA';
  return `PyTorch ${machine.torch ?? 'not seen'}, ${cuda}`;
}

/** Where a step's figures come from: `sweep 3, runs 5-8`. */
function provenance(step: TuneStep): string {
  const sweeps = step.sweepIds.length === 0 ? '' : `sweep${step.sweepIds.length === 1 ? '' : 's'} ${step.sweepIds.join(', ')}`;
  const runs = step.runIds.length === 0 ? '' : runIdsText(step.runIds);
  return [sweeps, runs].filter(Boolean).join(', ');
}

function stepReason(step: TuneStep): Paragraph {
  if (step.status === 'baseline') return [`${step.reason}${provenance(step) === '' ? '' : ` (${provenance(step)})`}.`];
  // A cancelled step's reason is the word itself: said once.
  const parts: Paragraph = [step.reason === step.status || step.reason === '' ? `(${step.status}).` : `(${step.status}): ${step.reason}.`];
  if (step.status === 'skipped') return parts;
  parts.push(' Measured against ', step.against === 'baseline' ? 'the baseline' : { code: step.against });
  parts.push(provenance(step) === '' ? '.' : ` (${provenance(step)}).`);
  if (step.knobState !== null) parts.push(` Knob: ${step.knobState}.`);
  if (step.gate !== 'n/a' || step.status === 'kept') parts.push(` Quality gate: ${step.gate} (${step.gateReason}).`);
  return parts;
}

/** The answer first: what to keep and what it is worth, measured; or plainly that nothing was kept. */
function answer(result: TuneResult): Paragraph[] {
  const kept = knobList(result.kept);
  const unfinished = result.status === 'cancelled' ? ' before the tune was cancelled' : result.status === 'failed' ? ' before the tune failed' : '';
  if (kept === '') {
    return [
      [
        `Nothing was kept${unfinished}: `,
        result.status === 'succeeded'
          ? 'none of the knobs tried was faster within the quality gate here, so the script is best run as it is.'
          : 'no knob was measured faster within the quality gate.',
      ],
    ];
  }
  const total = result.total;
  if (total === null) return [[`Kept${unfinished}: `, { code: kept }, '. The kept combination was not measured against the baseline.']];
  const ratio = speedup(total.ratio);
  const ci = total.ci95 === null ? '' : ` (${confidenceText(result.confidence)} CI ${intervalText(total.ci95, SPEEDUP_FIGURES)})`;
  const verdict = total.verdict === 'unknown' ? 'no verdict' : total.verdict;
  const head: Paragraph =
    ratio === ''
      ? ['Keep ', { code: kept }, `: the kept combination has no measured speedup against the baseline (${verdict}${total.reason ? `: ${total.reason}` : ''}).`]
      : ['Keep ', { code: kept }, `: ${ratio} the baseline's throughput${ci}, ${verdict}${total.reason ? `: ${total.reason}` : ''}.`];
  const sweeps = total.sweepIds.length === 0 ? '' : ` (sweep${total.sweepIds.length === 1 ? '' : 's'} ${total.sweepIds.join(', ')})`;
  return [head, [`Measured: ${total.measuredBy}${sweeps}. The total is always measured side by side, never the steps' speedups multiplied.`]];
}

function alert(result: TuneResult): Paragraph | null {
  if (result.status === 'succeeded') return null;
  const at = result.steps.find((s) => s.status === 'cancelled' || s.status === 'failed');
  const where = at === undefined ? '' : ` at ${at.name}`;
  if (result.status === 'cancelled') return [`Cancelled${where}: the ladder stopped there; what follows is what was measured before.`];
  return [`Failed${where}${result.error ? `: ${result.error}` : ''}. What follows is what was measured before.`];
}

function permanent(result: TuneResult): Report['permanent'] {
  if (result.suggestions.length === 0) return null;
  // One patch of every edit; where none could be made as one, the suggestions' own diffs.
  const patch =
    result.patch ?? (result.suggestions.some((s) => s.diff !== null) ? result.suggestions.flatMap((s) => (s.diff === null ? [] : [s.diff])).join('') : null);
  const apply: Paragraph =
    patch === null
      ? ['No patch could be made: make each change above by hand.']
      : [
          'Save the patch as ',
          { code: 'tune.patch' },
          ' and apply it in ',
          { code: result.patchDir ?? result.cwd },
          ' with ',
          { code: 'git apply tune.patch' },
          ' (or ',
          { code: 'patch -p1 < tune.patch' },
          ').',
        ];
  return { changes: result.suggestions.map((s) => [s.text]), patch, apply };
}

const method = (confidence: number, lossAt: string | null) =>
  'Each step is a sweep of the best so far (the baseline, then the knobs kept before it) against it plus one knob, their runs interleaved. ' +
  "Throughput: the geometric mean of the runs' steady-state medians (or of their steady steps' work over their time, where steps come unevenly or their timing is too coarse to place a median step), with a 95 % t-interval over runs. " +
  `Speedup: the ratio of geometric means against what the step was measured against, with a ${confidenceText(confidence)} t-interval over runs (Runs: candidate+against)${confidence > CONFIDENCE ? ': a step looks at its runs again as it adds rounds while undecided, so the 5 % is shared between its looks, and a knob is called faster when it is not at most 5 % of the time' : ''}. ` +
  'A knob is kept only when it is faster (the interval above 1) and within the quality gate, so each step builds on what helped. ' +
  "The total is the kept combination measured against the baseline side by side; the steps' speedups are never multiplied. " +
  (lossAt === null
    ? ''
    : `Loss: the median over a row's runs of its train loss at ${lossAt}, the most work every row's runs reached (read off their loss curves): runs of fast steps stop after a stretch of time, so their final losses are at unequal work. `) +
  `Figures to ${SIGNIFICANT_FIGURES} significant figures, speedups to ${SPEEDUP_FIGURES}.`;

function buildReport(result: TuneResult, options: TuneReportOptions): Report {
  const units = new Set(result.steps.map((s) => s.throughput.unit).filter((u): u is string => u !== null));
  return {
    title: options.title ?? `Tuning results: ${result.command}`,
    alert: alert(result),
    facts: [
      [`Generated ${options.generatedAt.toISOString().replace(/\.\d{3}Z$/u, 'Z')} by Tuning Bench.`],
      ['Command: ', { code: result.command }, ' in ', { code: result.cwd }],
      [`Machine: ${machineText(result.machine)}`],
    ],
    answer: answer(result),
    unit: units.size === 1 ? [...units][0]! : null,
    confidence: confidenceText(result.confidence),
    steps: result.steps,
    reasons: result.steps.map((step) => ({ name: step.name, text: stepReason(step) })),
    permanent: permanent(result),
    method: method(result.confidence, result.lossAt),
    lossAt: result.lossAt,
    notes: result.notes,
    error: result.error,
  };
}

/** Text from the result as Markdown shows it literally: a `<` never opens markup, a backtick never opens code (a lone `>` opens nothing inside a line). */
function markdownLiteral(text: string): string {
  return text.replace(/[\\`<]/gu, (c) => `\\${c}`);
}

/** Prose for Markdown: literal, and a `|` or line break never ends a table cell or line. */
function markdownText(text: string): string {
  return escapeMarkdown(markdownLiteral(text));
}

/** A code span that holds any text: its fence longer than any run of backticks inside it. */
function codeSpan(text: string): string {
  const flat = text.replace(/\n/gu, ' ');
  const longest = Math.max(0, ...[...flat.matchAll(/`+/gu)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat.startsWith(' ') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

function markdownInline(paragraph: Paragraph): string {
  return paragraph.map((part) => (typeof part === 'string' ? markdownText(part) : codeSpan(part.code))).join('');
}

function htmlInline(paragraph: Paragraph): string {
  return paragraph.map((part) => (typeof part === 'string' ? escapeHtml(part) : `<code>${escapeHtml(part.code)}</code>`)).join('');
}

function toMarkdown(report: Report): string {
  const lines: string[] = [`# ${markdownText(report.title)}`, ''];
  if (report.alert) lines.push(`**${markdownInline(report.alert)}**`, '');
  lines.push(...report.facts.map((f) => `${markdownInline(f)}  `), '', '## Answer', '');
  for (const p of report.answer) lines.push(markdownInline(p), '');
  const columns = columnsWithData(stepColumns(report.unit, false, report.confidence, report.lossAt), report.steps);
  lines.push(
    '## Steps',
    '',
    ...markdownTable(
      columns.map((c) => ({ ...c, cell: (step: TuneStep) => markdownLiteral(c.cell(step)) })),
      report.steps,
    ),
    '',
  );
  for (const r of report.reasons) lines.push(`- **${markdownText(r.name)}**${r.name === 'baseline' ? ': ' : ' '}${markdownInline(r.text)}`);
  lines.push('');
  if (report.permanent) {
    lines.push('## How to make it permanent', '');
    for (const change of report.permanent.changes) lines.push(`- ${markdownInline(change)}`);
    lines.push('');
    if (report.permanent.patch !== null) {
      // A fence longer than any run of backticks in the patch (a Python docstring may hold ```).
      const fence = '`'.repeat(Math.max(3, ...[...report.permanent.patch.matchAll(/`+/gu)].map((m) => m[0].length + 1)));
      lines.push(`${fence}diff`, report.permanent.patch.trimEnd(), fence, '');
    }
    lines.push(markdownInline(report.permanent.apply), '');
  }
  lines.push('## Method', '', markdownText(report.method), '');
  if (report.notes.length > 0) lines.push('## Notes', '', ...report.notes.map((n) => `- ${markdownText(n)}`), '');
  if (report.error !== null) lines.push('## Error', '', markdownText(report.error), '');
  return `${lines.join('\n').trimEnd()}\n`;
}

/** What the tune's page adds to the shared style: the alert, the answer and the patch. */
const TUNE_STYLE = `.alert{border-left:4px solid #a40e26;background:#fdecee;padding:.5rem .8rem;font-weight:600}
.answer{font-size:16px}code{font:12px ui-monospace,monospace;background:#f6f8fa;padding:0 .2rem;border-radius:3px}
pre.patch{background:#f6f8fa;border:1px solid #d0d7de;padding:.6rem .8rem;overflow-x:auto;font:12px/1.4 ui-monospace,monospace}pre.patch code{background:none;padding:0}
@media (prefers-color-scheme:dark){.alert{background:#3c1618}code,pre.patch{background:#161b22}pre.patch{border-color:#30363d}}`;

function toHtml(report: Report): string {
  const rowClass = (step: TuneStep) => (step.kept ? 'best' : step.gate === 'fail' ? 'fail' : '');
  const table = htmlTable(stepColumns(report.unit, true, report.confidence, report.lossAt), report.steps, rowClass, 'tune-table');
  const parts = [
    htmlPageStart(report.title, TUNE_STYLE),
    `<h1>${escapeHtml(report.title)}</h1>`,
    report.alert ? `<p class="alert" data-testid="tune-alert">${htmlInline(report.alert)}</p>` : '',
    ...report.facts.map((f) => `<p class="notes">${htmlInline(f)}</p>`),
    '<h2>Answer</h2>',
    ...report.answer.map((p, i) => `<p${i === 0 ? ' class="answer" data-testid="tune-answer"' : ''}>${htmlInline(p)}</p>`),
    '<h2>Steps</h2>',
    table,
    `<ul class="row-notes" data-testid="tune-reasons">\n${report.reasons.map((r) => `<li><strong>${escapeHtml(r.name)}</strong>${r.name === 'baseline' ? ': ' : ' '}${htmlInline(r.text)}</li>`).join('\n')}\n</ul>`,
  ];
  if (report.permanent) {
    parts.push(
      '<h2>How to make it permanent</h2>',
      `<ul class="row-notes">\n${report.permanent.changes.map((c) => `<li>${htmlInline(c)}</li>`).join('\n')}\n</ul>`,
      report.permanent.patch === null ? '' : `<pre class="patch" data-testid="tune-patch"><code>${escapeHtml(report.permanent.patch.trimEnd())}</code></pre>`,
      `<p>${htmlInline(report.permanent.apply)}</p>`,
    );
  }
  parts.push('<h2>Method</h2>', `<p class="notes">${escapeHtml(report.method)}</p>`);
  if (report.notes.length > 0)
    parts.push('<h2>Notes</h2>', `<ul class="row-notes">\n${report.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('\n')}\n</ul>`);
  if (report.error !== null) parts.push('<h2>Error</h2>', `<p>${escapeHtml(report.error)}</p>`);
  parts.push('</body></html>');
  return `${parts.filter((p) => p !== '').join('\n')}\n`;
}

/** The tune's result as Markdown or as one self-contained HTML page; every text from the result is escaped. */
export function renderTuneReport(result: TuneResult, format: TuneReportFormat, options: TuneReportOptions): string {
  const report = buildReport(result, options);
  return format === 'md' ? toMarkdown(report) : toHtml(report);
}
