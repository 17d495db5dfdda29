// A comparison (#/compare?...): runs or sweeps side by side against a baseline, a row per config (repeats pooled) or
// per run, with the speed verdict, the quality gate and flagged differences; the baseline, grouping and gate chosen
// here live in the URL; under the table the engine's notes, then the runs' charts; Export renders it as a file.
import { useEffect, useMemo, useState, type KeyboardEvent } from 'react';
import type { Comparison, ComparisonRow, MethodInput } from '../../../electron/shared/api.js';
import { APART_SHIFT_ALLOWANCE } from '../../../electron/shared/api/compare.js';
import { useBridge } from '../bridge/context.js';
import {
  columnTitle,
  comparisonUnit,
  deltaText,
  figure,
  fixed,
  intervalText,
  matchedAtText,
  NONE,
  speedupText,
  throughputTitle,
  whole,
} from './compareText.js';
import { compareRoute, DEFAULT_GATE, type CompareViewRoute } from '../shared/comparisons/compareRoute.js';
import { errorMessage, formatDateTime } from '../shared/format.js';
import { useView, viewHash } from '../route.js';
import { chartedRunIds, CompareCharts, useRunSeries } from './CompareCharts.js';
import { comparisonRequest, knownChartedRuns } from './compareRequests.js';
import { CompareProfiles } from './CompareProfiles.js';
import { ExportMenu } from './ExportMenu.js';
import { useCompareColumns, type CompareColumns } from './compareColumns.js';
import { SweepRevisionDiffs } from '../shared/comparisons/RevisionDiff.js';
import { useSweep } from '../shared/sweepStore.js';
import { SweepFailures } from '../shared/comparisons/SweepFailures.js';
import './compare.css';
import { PublishToMlflow } from '../shared/publishing/PublishToMlflow.js';

type CompareState = { key: string; comparison: Comparison | null; error: string | null };

const VERDICT_TITLES: Record<ComparisonRow['speedup']['verdict'], string> = {
  baseline: 'the row the others are measured against',
  faster: 'faster: the whole 95 % interval of the speedup is above 1',
  slower: 'slower: the whole 95 % interval of the speedup is below 1',
  same: 'the same within ±δ: the whole 95 % interval lies inside 1 ± δ (no change larger than δ)',
  inconclusive: 'cannot tell: the 95 % interval holds 1 and changes larger than ±δ; more runs would decide',
  'repeat to decide': 'one run on a side says nothing about run-to-run variance: repeat the runs to get a verdict',
  unknown: 'no speedup: a step’s work differs and is not known, or there is no steady data to compare',
};

/** The badge's words: `no speedup` for unknown, `same ±2 %`, `inconclusive` with the runs that would decide beside it. */
function verdictLabel(row: ComparisonRow, minEffect: number): string {
  if (row.speedup.verdict === 'unknown') return 'no speedup';
  if (row.speedup.verdict === 'same') return `same ±${Number((minEffect * 100).toPrecision(3))} %`;
  return row.speedup.verdict;
}

/** Verdicts whose reason is shown under the badge: why there is none, or what would decide. */
const EXPLAINED: ReadonlySet<string> = new Set(['inconclusive', 'repeat to decide', 'unknown']);

/** A number typed into a gate field: empty is "no tolerance of this kind" (null); unreadable is refused (undefined) rather than read as zero. */
function readGateNumber(text: string, scale: number): number | null | undefined {
  if (text.trim() === '') return null;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? value / scale : undefined;
}

function GateField({
  label,
  unit,
  value,
  scale,
  testId,
  title,
  onCommit,
}: {
  label: string;
  unit: string;
  value: number | null;
  scale: number;
  testId: string;
  title: string;
  onCommit: (value: number | null) => void;
}) {
  const shown = value === null ? '' : String(Number((value * scale).toPrecision(6)));
  const [text, setText] = useState(shown);
  const [seen, setSeen] = useState(shown);
  // The route changed under the field (a link, Back): show its value.
  if (shown !== seen) {
    setSeen(shown);
    setText(shown);
  }
  const parsed = readGateNumber(text, scale);
  const commit = () => {
    if (parsed !== undefined && parsed !== value) onCommit(parsed);
    else if (parsed === undefined) setText(shown);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') commit();
  };
  return (
    <label className="gate-field" title={title}>
      <span className="input-with-unit">
        <input
          type="number"
          aria-label={`${label} tolerance of the gate (empty: none)`}
          min={0}
          step="any"
          inputMode="decimal"
          data-testid={testId}
          value={text}
          aria-invalid={parsed === undefined}
          onChange={(event) => setText(event.target.value)}
          onBlur={commit}
          onKeyDown={onKeyDown}
        />
        {unit && <span className="unit">{unit}</span>}
      </span>
    </label>
  );
}

function VerdictBadge({ row, minEffect }: { row: ComparisonRow; minEffect: number }) {
  const { verdict } = row.speedup;
  return (
    <span
      className={`badge verdict verdict-${verdict.replace(/ /gu, '-')}`}
      data-testid="row-verdict"
      data-verdict={verdict}
      title={row.speedup.reason ?? VERDICT_TITLES[verdict]}
    >
      {verdictLabel(row, minEffect)}
    </span>
  );
}

/** Work in one step: `16 samples`, `8,192 tokens`. */
function workPerStepText(row: ComparisonRow): string {
  const { tokens, samples } = row.workPerStep;
  return [tokens === null ? '' : `${whole(tokens)} tokens`, samples === null ? '' : `${whole(samples)} samples`].filter(Boolean).join(', ');
}

function lossDeltaTitle(row: ComparisonRow, baselineName: string): string {
  const { compared } = row;
  if (compared) {
    const where = compared.at === null ? '' : ` at ${compared.at}`;
    return `${compared.metric.replace(/_/gu, ' ')}${where}: ${figure(compared.value)} against ${baselineName}'s ${figure(compared.base)}, ${deltaText(compared.delta)}`;
  }
  if (row.matchedLoss) return `loss ${figure(row.matchedLoss.value)} ${matchedAtText(row.matchedLoss)} (the point both reached)`;
  return 'nothing to compare';
}

function CompareTable({ comparison }: { comparison: Comparison }) {
  const { rows, columns } = comparison;
  const unit = comparisonUnit(rows);
  const baseline = rows.find((row) => row.isBaseline);
  const baselineName = baseline?.name ?? 'the baseline';
  // Two sweeps each have a "baseline": the sweep tells them apart.
  const manySweeps = new Set(rows.map((row) => row.sweepId)).size > 1;
  const chosen = useCompareColumns(rows);
  const show = chosen.shows;
  return (
    <>
      <ColumnChooser columns={chosen} />
      <div className="table-scroll compare-table-scroll">
        <table className="data-table compare-table" data-testid="compare-table">
          <thead>
            <tr>
              <th>Config</th>
              {columns.map((column) => (
                <th key={column} className="variable" title={`the variable ${column}`}>
                  {columnTitle(column)}
                </th>
              ))}
              <th
                className="num"
                title="Geometric mean of the runs' steady medians (per token or per sample where a step's work is known); its 95 % t-interval under it"
              >
                {throughputTitle(unit)}
              </th>
              <th className="num" title="Ratio of geometric means against the baseline, with its 95 % t-interval over runs">
                Speedup
              </th>
              <th>Verdict</th>
              <th className="num" title="Runs in the row with a steady throughput: what the verdict rests on">
                n
              </th>
              {show('Step ms') && <th className="num">Step ms</th>}
              {show('VRAM') && <th className="num">VRAM</th>}
              {show('Util %') && <th className="num">Util %</th>}
              {show('Power W') && <th className="num">Power W</th>}
              {show('J / 1k tok') && (
                <th className="num" title="Joules per 1,000 tokens: mean power over throughput">
                  J / 1k tok
                </th>
              )}
              {show('Loss') && <th className="num">Loss</th>}
              {show('Eval loss') && <th className="num">Eval loss</th>}
              {show('Compared') && (
                <th className="num" title={`What the quality gate compared: ${comparison.gateText}`}>
                  Compared
                </th>
              )}
              {show('Δ') && (
                <th className="num" title="The compared value minus the baseline's, signed">
                  Δ
                </th>
              )}
              <th>Gate</th>
              {show('Exit') && <th title="How its runs ended, as the engine classified them">Exit</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr
                key={row.key}
                data-testid={`compare-row-${index}`}
                data-key={row.key}
                className={[row.best ? 'best' : '', row.isBaseline ? 'baseline' : '', row.gate === 'fail' ? 'gate-fail' : ''].join(' ').trim() || undefined}
              >
                <td className="config-col">
                  <span className="row-name" data-testid="row-name">
                    {row.name}
                  </span>

                  {row.isBaseline && <span className="badge row-flag baseline-flag">baseline</span>}
                  {row.partial && (
                    <span
                      className="badge row-flag partial-flag"
                      data-testid="row-partial"
                      title="Stopped, timed out or interrupted: numbers from the steps it had"
                    >
                      partial
                    </span>
                  )}
                  {row.best && (
                    <span
                      className="badge row-flag best-flag"
                      data-testid="row-best"
                      title={
                        row.isBaseline
                          ? 'No row is faster than the baseline and passes the gate: the baseline stays best'
                          : 'The fastest row that is faster than the baseline and passes the gate, every run ok'
                      }
                    >
                      ★ best
                    </span>
                  )}
                  {row.differences.length > 0 && (
                    <span
                      className="badge row-flag diff-flag"
                      data-testid="row-differences"
                      tabIndex={0}
                      title={`Ran under other conditions than the baseline:\n${row.differences.join('\n')}`}
                      aria-label={`Differs from the baseline: ${row.differences.join('; ')}`}
                    >
                      ⚠ {row.differences.length === 1 ? '1 difference' : `${row.differences.length} differences`}
                    </span>
                  )}
                  {row.machine !== null && (
                    <span
                      className="badge row-flag diff-flag"
                      data-testid="row-machine"
                      title="Measured on another machine than the baseline: no speedup verdict across machines unless asked"
                    >
                      on {row.machine}
                    </span>
                  )}
                  {row.fasterButWorse && (
                    <span className="badge row-flag faster-but-worse" data-testid="row-faster-but-worse" title={`Faster, but ${row.gateReason}`}>
                      faster but worse
                    </span>
                  )}
                  <span className="run-links row-runs">
                    {row.runIds.map((id) => (
                      <a key={id} href={viewHash({ kind: 'run', id })} title={`run #${id}`}>
                        #{id}
                      </a>
                    ))}
                    {manySweeps && row.sweepId !== null && (
                      <a className="row-sweep" href={viewHash({ kind: 'sweep', id: row.sweepId })} title="The sweep this config belongs to">
                        sweep {row.sweepId}
                      </a>
                    )}
                  </span>
                </td>
                {columns.map((column) => (
                  <td key={column} className="variable mono">
                    {row.config[column] ?? ''}
                  </td>
                ))}
                <td
                  className="num"
                  data-testid="row-throughput"
                  data-value={row.throughput.median ?? ''}
                  data-unit={row.throughput.unit ?? ''}
                  data-work={workPerStepText(row)}
                  title={workPerStepText(row) ? `One step holds ${workPerStepText(row)}: the throughput is per unit of that work` : undefined}
                >
                  <span className="figure">
                    {figure(row.throughput.median)}
                    {row.throughput.unit !== unit && row.throughput.unit !== null && row.throughput.median !== null ? ` ${row.throughput.unit}` : ''}
                  </span>
                  {row.throughput.ci95 && (
                    <span className="ci" title="95 % t-interval of the geometric mean over runs">
                      {intervalText(row.throughput.ci95)}
                    </span>
                  )}
                </td>
                <td
                  className={`num speedup-cell verdict-text-${row.speedup.verdict.replace(/ /gu, '-')}`}
                  data-testid="row-speedup"
                  data-value={row.speedup.ratio ?? ''}
                >
                  <span className="figure">{speedupText(row)}</span>
                  {row.speedup.ci95 && (
                    <span className="ci" title="95 % t-interval of the speedup over runs">
                      {intervalText(row.speedup.ci95, 3)}
                    </span>
                  )}
                </td>
                <td>
                  <VerdictBadge row={row} minEffect={comparison.minEffect} />
                  {row.fairness.length > 0 && (
                    <span
                      className="unfair-flag"
                      data-testid="row-unfair"
                      data-kinds={row.fairness.map((flag) => flag.kind).join(' ')}
                      tabIndex={0}
                      title={`Not a fair machine: run it again on a quiet one.\n${row.fairness.map((flag) => `${flag.kind} (run${flag.runIds.length === 1 ? '' : 's'} ${flag.runIds.map((id) => `#${id}`).join(', ')}): ${flag.message}`).join('\n')}`}
                      aria-label={`Not a fair machine: ${row.fairness.map((flag) => flag.kind).join(', ')}`}
                    >
                      ⚠
                    </span>
                  )}
                  {row.ranApart !== null ? (
                    // Ran apart from the baseline's runs in time: the whole reason (both sides' times, the interval) is
                    // the title; under the badge, in two short lines, what it means.
                    <span className="row-reason" data-testid="row-apart" title={row.speedup.reason ?? row.ranApart}>
                      {row.speedup.verdict === 'faster' || row.speedup.verdict === 'slower'
                        ? `ran apart; beyond ±${APART_SHIFT_ALLOWANCE * 100} %`
                        : 'ran apart: one sweep decides'}
                    </span>
                  ) : (
                    row.speedup.reason &&
                    EXPLAINED.has(row.speedup.verdict) && (
                      <span className="row-reason" data-testid="row-reason">
                        {row.speedup.reason}
                      </span>
                    )
                  )}
                  {row.notes.map((note) => (
                    <span key={note} className="row-reason" data-testid="row-note">
                      {note}
                    </span>
                  ))}
                </td>
                <td
                  className="num"
                  title={row.runs
                    .map((r) => `#${r.id}: ${r.steadySteps ?? '?'} steady steps, warm-up ${r.warmupSteps ?? '?'}, left out ${r.leftOutSteps}`)
                    .join('\n')}
                >
                  <span data-testid="row-n">{row.n}</span>
                </td>
                {show('Step ms') && <td className="num">{figure(row.stepTimeMs)}</td>}
                {show('VRAM') && (
                  <td className="num" data-testid="row-vram">
                    {row.vramPeakMiB === null ? NONE : `${whole(row.vramPeakMiB)} MiB`}
                  </td>
                )}
                {show('Util %') && <td className="num">{fixed(row.utilMean, 0)}</td>}
                {show('Power W') && <td className="num">{fixed(row.powerMeanW, 0)}</td>}
                {show('J / 1k tok') && <td className="num">{figure(row.energyPer1kTokensJ)}</td>}
                {show('Loss') && (
                  <td className="num" data-testid="row-loss">
                    {figure(row.finalLoss)}
                  </td>
                )}
                {show('Eval loss') && <td className="num">{figure(row.evalLoss)}</td>}
                {show('Compared') && (
                  <td className="num" data-testid="row-compared" title={lossDeltaTitle(row, baselineName)}>
                    {row.compared === null ? NONE : figure(row.compared.value)}
                    {row.compared && <span className="ci">{row.compared.metric.replace(/_/gu, ' ')}</span>}
                  </td>
                )}
                {show('Δ') && (
                  <td className="num" data-testid="row-loss-delta" title={lossDeltaTitle(row, baselineName)}>
                    {row.isBaseline ? NONE : deltaText(row.lossDelta)}
                  </td>
                )}
                <td className="gate-col">
                  <span className={`badge gate gate-${row.gate === 'n/a' ? 'na' : row.gate}`} data-testid="row-gate" title={row.gateReason}>
                    {row.gate}
                  </span>
                </td>
                {show('Exit') && (
                  <td className="exit-col">
                    {row.exitClasses.map((exit) => (
                      <span key={exit} className={`exit-word ${exit === 'ok' ? 'ok' : 'bad'}`}>
                        {exit}
                      </span>
                    ))}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** Columns a person may hide to fit the window; those with no value in any row are named as left out. */
function ColumnChooser({ columns }: { columns: CompareColumns }) {
  const hiddenCount = columns.withData.filter((column) => column.hidden).length;
  return (
    <details className="compare-columns" data-testid="compare-columns">
      <summary>Columns{hiddenCount > 0 ? ` (${hiddenCount} hidden)` : ''}</summary>
      <div className="compare-columns-list">
        {columns.withData.map((column) => (
          <label key={column.label}>
            <input
              type="checkbox"
              data-testid={`compare-column-${column.label}`}
              checked={!column.hidden}
              onChange={(event) => columns.setHidden(column.label, !event.target.checked)}
            />{' '}
            {column.label}
          </label>
        ))}
        {columns.empty.length > 0 && <span className="hint">No values, so left out: {columns.empty.join(', ')}</span>}
      </div>
    </details>
  );
}

function CompareNotes({ comparison }: { comparison: Comparison }) {
  const flagged = comparison.rows.filter((row) => row.differences.length > 0);
  const failed = comparison.rows.filter((row) => row.gate === 'fail');
  return (
    <div className="compare-notes" data-testid="compare-notes">
      <p>
        Geometric means of the runs’ steady medians; speedup with a 95 % t-interval over runs: faster or slower when it excludes 1, same inside 1 ±{' '}
        {Number((comparison.minEffect * 100).toPrecision(3))} %, else inconclusive.{' '}
        <span data-testid="compare-gate-text">Quality gate: {comparison.gateText}; NaN fails.</span>
      </p>
      {comparison.notes.map((note) => (
        <p key={note}>{note}</p>
      ))}
      {failed.length > 0 && (
        <ul className="compare-flags gate-notes">
          {failed.map((row) => (
            <li key={row.key}>
              <strong>{row.name}</strong> fails the gate: {row.gateReason}
            </li>
          ))}
        </ul>
      )}
      {flagged.length > 0 && (
        <ul className="compare-flags" data-testid="compare-differences">
          {flagged.map((row) => (
            <li key={row.key}>
              <strong>⚠ {row.name}</strong>: {row.differences.join('; ')}
            </li>
          ))}
        </ul>
      )}
      <p className="hint">Generated {formatDateTime(comparison.generatedAt)}.</p>
    </div>
  );
}

function CompareControls({ route, comparison }: { route: CompareViewRoute; comparison: Comparison | null }) {
  const [, navigate] = useView();
  const go = (change: Partial<Omit<CompareViewRoute, 'kind'>>) => navigate(compareRoute({ ...route, ...change }));
  const rows = comparison?.rows ?? [];
  const baselineRow = rows.find((row) => row.isBaseline);
  const baselineValue = baselineRow ? String(baselineRow.runIds[0]) : '';
  return (
    <div className="compare-controls">
      <label className="control">
        <span className="label">Baseline</span>
        <select
          data-testid="baseline-select"
          value={baselineValue}
          disabled={rows.length < 2}
          onChange={(event) => go({ baselineRunId: Number(event.target.value) })}
        >
          {rows.map((row) => (
            <option key={row.key} value={String(row.runIds[0])}>
              {row.name} (#{row.runIds[0]})
            </option>
          ))}
        </select>
      </label>
      <div className="control">
        <span className="label" id="group-by-label">
          One row per
        </span>
        <div className="button-group" role="group" aria-labelledby="group-by-label">
          {(['config', 'run'] as const).map((by) => (
            <button
              key={by}
              type="button"
              className="button small toggle"
              data-testid={`group-by-${by}`}
              aria-pressed={route.groupBy === by}
              title={by === 'config' ? 'Repeats of a config pooled into one row' : 'Every run a row of its own'}
              onClick={() => go({ groupBy: by })}
            >
              {by}
            </button>
          ))}
        </div>
      </div>
      {(route.acrossMachines || rows.some((row) => row.machine !== null)) && (
        <div className="control">
          <span className="label">Machines</span>
          <label
            className="machines-field"
            title="Rows measured on another machine than the baseline get no speedup unless you ask: timings from two machines compare machines as well as configs"
          >
            <input
              type="checkbox"
              data-testid="across-machines"
              checked={route.acrossMachines}
              onChange={(event) => go({ acrossMachines: event.target.checked })}
            />{' '}
            speedups across machines
          </label>
        </div>
      )}
      <div className="control" role="group" aria-labelledby="gate-label">
        <span className="label" id="gate-label">
          Quality gate
        </span>
        <div className="gate-fields">
          <label className="gate-field" title="Turn the quality gate off or on">
            <input
              type="checkbox"
              data-testid="gate-enabled"
              checked={route.gate.enabled}
              onChange={(event) => go({ gate: { ...route.gate, enabled: event.target.checked } })}
            />{' '}
            on
          </label>
          <label
            className="gate-field"
            title="auto: final eval loss when both sides have one, else train loss at the matched point; or a metric name the runs share (loss, eval_loss, accuracy, ...)"
          >
            <input
              type="text"
              aria-label="metric the gate compares"
              data-testid="gate-metric"
              defaultValue={route.gate.metric}
              key={route.gate.metric}
              size={10}
              onBlur={(event) => {
                const metric = event.target.value.trim();
                if (metric !== '' && metric !== route.gate.metric) go({ gate: { ...route.gate, metric } });
              }}
              onKeyDown={(event) => {
                if (event.key === 'Enter') event.currentTarget.blur();
              }}
            />
          </label>
          <select
            aria-label="which way is better"
            data-testid="gate-direction"
            value={route.gate.direction}
            onChange={(event) => go({ gate: { ...route.gate, direction: event.target.value === 'higher' ? 'higher' : 'lower' } })}
          >
            <option value="lower">lower is better</option>
            <option value="higher">higher is better</option>
          </select>
          <span className="gate-or">worse by at most</span>
          <GateField
            label="absolute"
            unit=""
            value={route.gate.absolute}
            scale={1}
            testId="gate-absolute"
            title="How much worse than the baseline still passes (empty: no absolute tolerance)"
            onCommit={(absolute) => go({ gate: { ...route.gate, absolute } })}
          />
          <span className="gate-or">and</span>
          <GateField
            label="relative"
            unit="%"
            value={route.gate.relative}
            scale={100}
            testId="gate-relative"
            title="How much worse, as a share of the baseline's value, still passes (empty: none; with both, a row must be within both)"
            onCommit={(relative) => go({ gate: { ...route.gate, relative } })}
          />
          {JSON.stringify(route.gate) !== JSON.stringify(DEFAULT_GATE) && (
            <button type="button" className="button small" data-testid="gate-reset" onClick={() => go({ gate: DEFAULT_GATE })}>
              Default
            </button>
          )}
        </div>
      </div>
    </div>
  );
}

function what(route: CompareViewRoute): string {
  const parts: string[] = [];
  if (route.sweepIds.length > 0) parts.push(`${route.sweepIds.length === 1 ? 'sweep' : 'sweeps'} ${route.sweepIds.map((id) => `#${id}`).join(', ')}`);
  if (route.runIds.length > 0) parts.push(`${route.runIds.length === 1 ? 'run' : 'runs'} ${route.runIds.map((id) => `#${id}`).join(', ')}`);
  return parts.join(' and ');
}

export function CompareView({ route }: { route: CompareViewRoute }) {
  const { api } = useBridge();
  const [, navigate] = useView();
  const request = useMemo(() => comparisonRequest(route), [route]);
  const requestKey = JSON.stringify(request);
  const [reloads, setReloads] = useState(0);
  /** Each Refresh asks again, even for the same request. */
  const key = `${reloads} ${requestKey}`;
  const [state, setState] = useState<CompareState>({ key: '', comparison: null, error: null });
  const empty = route.runIds.length === 0 && route.sweepIds.length === 0;
  // Runs named in the URL are known before the comparison comes back: their series are asked for at once, beside it.
  const knownRuns = knownChartedRuns(route);
  const rowRuns = useMemo(() => (state.comparison ? chartedRunIds(state.comparison.rows) : null), [state.comparison]);
  const series = useRunSeries(knownRuns ?? rowRuns);

  useEffect(() => {
    if (empty) return;
    let cancelled = false;
    api['compare.runs'](JSON.parse(requestKey) as MethodInput<'compare.runs'>).then(
      (comparison) => {
        if (!cancelled) setState({ key, comparison, error: null });
      },
      (error: unknown) => {
        if (!cancelled) setState({ key, comparison: null, error: errorMessage(error) });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [api, key, requestKey, empty]);

  if (empty) {
    return (
      <section className="compare-view" data-testid="compare-view">
        <header className="view-header">
          <h2>Compare</h2>
        </header>
        <p className="placeholder">
          Nothing to compare yet: tick runs in the <a href={viewHash({ kind: 'runs' })}>runs table</a>, or open a sweep and press Compare.
        </p>
      </section>
    );
  }

  // The last answer stays on screen while the next one comes: a baseline change does not blank the table.
  const loading = state.key !== key;
  const { comparison } = state;
  const error = loading ? null : state.error;
  const baselineMissing = error !== null && route.baselineRunId !== null && /baseline/u.test(error);
  return (
    <section className="compare-view" aria-label="Comparison" data-testid="compare-view" data-ready={comparison && !loading ? 'true' : 'false'}>
      <header className="view-header compare-header">
        <h2>Compare</h2>
        <span className="hint compare-what" data-testid="compare-what">
          {what(route)}
        </span>
        {loading && comparison && <span className="hint">Updating…</span>}
        <span className="spacer" />
        <a className="button small" href={viewHash({ kind: 'runs' })}>
          Runs table
        </a>
        <button
          type="button"
          className="button small"
          data-testid="compare-refresh"
          title="Compare again: runs that ended since are included"
          onClick={() => setReloads((n) => n + 1)}
        >
          Refresh
        </button>
        <PublishToMlflow subject={{ comparison: request }} publications={{ comparison: request }} disabled={comparison === null} what="this comparison" />
        <ExportMenu request={request} disabled={comparison === null} />
      </header>
      <CompareControls route={route} comparison={comparison} />
      {route.sweepIds.map((id) => (
        <CompareSweepCode key={id} sweepId={id} />
      ))}
      {error && (
        <div className="inline-error compare-error" role="alert" data-testid="compare-error">
          Could not compare: {error}
          {baselineMissing && (
            <button type="button" className="button small" onClick={() => navigate(compareRoute({ ...route, baselineRunId: null }))}>
              Use the default baseline
            </button>
          )}
        </div>
      )}
      {!comparison && !error && loading && <p className="placeholder">Comparing…</p>}
      {comparison && (
        <div className={`compare-body ${loading ? 'updating' : ''}`}>
          <CompareTable comparison={comparison} />
          <CompareNotes comparison={comparison} />
          <CompareCharts rows={comparison.rows} series={series} />
          <CompareProfiles rows={comparison.rows} />
        </div>
      )}
    </section>
  );
}

/** A sweep compared: why any of its configs failed; for a before/after (a `git=` sweep), the code change it measured. */
function CompareSweepCode({ sweepId }: { sweepId: number }) {
  const { sweep } = useSweep(sweepId);
  if (!sweep) return null;
  return (
    <>
      <SweepFailures sweep={sweep} />
      <SweepRevisionDiffs sweep={sweep} />
    </>
  );
}
