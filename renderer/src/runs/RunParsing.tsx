// Parsing a run's stored output again, and what to do when it gave no metrics: its lines with numbers, a regex to try, a workload to save it in.
import { useEffect, useState } from 'react';
import { IMPORTED_COMMAND, type ReparseResult, type Run, type Workload, type WorkloadInput } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage, formatNumber } from '../shared/format.js';
import { RegexTester } from './RegexTester.js';
import { describeMetricsFound, hasAllMetrics, hasMetrics, metricsFound } from '../../../electron/shared/metricsFound.js';
import { ProgressBar } from '../shared/ProgressBar.js';
import './RunView.css';

/** Lines with numbers shown to write a regex against: enough to see the format, few enough to read. */
const NUMERIC_LINES_SHOWN = 12;

function describe(facts: ReparseResult['before']): string {
  const speed = facts.throughput === null ? 'no throughput' : `${formatNumber(facts.throughput, 4)} ${facts.unit ?? ''}`;
  return `${facts.samples.toLocaleString()} parsed values, ${facts.steps ?? '–'} steps, ${speed}`;
}

/**
 * The workload a regex is saved in for this run: its own (if the user made it), else a new one named after the run. A
 * run of a typed command gives it the command as typed, its {variables} defaulting to the run's values, so an edit of
 * the run (or of a run of the workload) still changes a variable rather than the command it made.
 */
function workloadForRun(run: Run, pattern: string): WorkloadInput {
  const imported = run.command[0] === IMPORTED_COMMAND;
  const typed = imported ? null : run.typedCommand;
  const made = {
    name: `${(run.workloadName ?? 'run').replace(/[^\w.\- +]/gu, '-').slice(0, 100)} ${run.id} regex`,
    description: `made to parse run ${run.id}`,
    env: {},
    tokensPerStep: '',
    metricRegex: pattern,
  };
  if (typed) {
    const variables = Object.entries(typed.values).map(([name, value]) => ({ name, default: value, description: '' }));
    return { ...made, cwd: typed.cwd, command: typed.template, mode: typed.mode, variables };
  }
  // An imported log is replayed through the terminal, as if it ran here.
  return { ...made, cwd: run.cwd || '/', command: imported ? ['cat', run.command[1] ?? '/dev/null'] : run.command, mode: 'argv', variables: [] };
}

/** Parsing a run again, shared by the title row's button and the no-metrics notice. */
export function useReparse(run: Run, workloads: readonly Workload[]) {
  const { api } = useBridge();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ReparseResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const own = workloads.find((w) => w.id === run.workloadId && !w.builtin) ?? null;

  /** With a pattern: saved first (in the run's own workload, or a new one), so a later Parse again uses it too. */
  const reparse = async (pattern: string | null) => {
    setBusy(true);
    setError(null);
    try {
      let workloadId: number | undefined;
      if (pattern !== null) {
        const saved = own
          ? await api['workloads.update']({ id: own.id, workload: { ...own, metricRegex: pattern } })
          : await api['workloads.create'](workloadForRun(run, pattern));
        workloadId = saved.id;
      }
      const [answer] = await api['runs.reparse']({ ids: [run.id], ...(workloadId === undefined ? {} : { workloadId }) });
      setResult(answer ?? null);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };
  return { busy, result, error, own, reparse };
}

export type Reparse = ReturnType<typeof useReparse>;

/** In the run's title row: compact, so the header (and the terminal below it) keeps its height. */
export function ReparseButton({ run, reparse }: { run: Run; reparse: Reparse }) {
  // A run pulled back from MLflow has no output here to parse.
  if (run.status === 'running' || run.origin !== null) return null;
  const { busy, result, error, own } = reparse;
  return (
    <span className="reparse-row">
      {result && (
        <span
          className="reparse-result"
          data-testid="reparse-result"
          role="status"
          title={`Before: ${describe(result.before)}. Now: ${describe(result.after)}.`}
        >
          Before: {describe(result.before)}. Now: {describe(result.after)}.
        </span>
      )}
      {error && (
        <span className="inline-error" role="alert" title={error}>
          {error}
        </span>
      )}
      <button
        type="button"
        className="button small"
        data-testid="reparse-run"
        disabled={busy}
        title={`Read the stored output again with today’s parsers${own?.metricRegex ? ' and the workload’s regex' : ''}; the old summary is kept`}
        onClick={() => void reparse.reparse(null)}
      >
        {busy ? 'Parsing…' : 'Parse again'}
      </button>
    </span>
  );
}

/** A run whose output gave no metrics: its lines with numbers, a regex tried live, saved and applied. */
export function NoMetricsNotice({ run, reparse }: { run: Run; reparse: Reparse }) {
  const { api } = useBridge();
  const [numeric, setNumeric] = useState<string[] | null>(null);
  const [pattern, setPattern] = useState('');
  const found = metricsFound(run.summary);
  // Offered whenever a step time or a loss is missing: any other value parsed (an `epoch` counter) is no metric to compare.
  const noMetrics = run.status !== 'running' && run.outputBytes > 0 && !hasAllMetrics(found);
  const nothing = !hasMetrics(found);

  useEffect(() => {
    if (!noMetrics) return;
    let cancelled = false;
    api['runs.numericLines']({ id: run.id, limit: NUMERIC_LINES_SHOWN }).then(
      (answer) => {
        if (!cancelled) setNumeric(answer.lines);
      },
      () => {
        if (!cancelled) setNumeric([]);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [api, noMetrics, run.id]);

  if (!noMetrics) return null;
  const teach = (
    <>
      <p>
        {nothing ? (
          <strong>No step time, throughput or loss was found in this run’s output.</strong>
        ) : (
          <strong>Found {describeMetricsFound(found)} in this run’s output.</strong>
        )}{' '}
        The built-in parsers know Hugging Face, Lightning, Keras, nanoGPT, llm.c, Megatron, torchtitan, timm, fairseq, tqdm and plain{' '}
        <code>step N: loss X, 45 ms</code> lines. Write a regex with named groups for this format (<code>step</code>, <code>loss</code>,{' '}
        <code>step_time_ms</code>, <code>tokens_per_sec</code>, or any name), try it below, and parse the run again.
      </p>
      {numeric && numeric.length > 0 && (
        <>
          <p className="hint">Lines of its output that hold numbers:</p>
          <pre className="numeric-lines mono" data-testid="numeric-lines">
            {numeric.join('\n')}
          </pre>
        </>
      )}
      {numeric && numeric.length === 0 && <p className="hint">None of its first lines holds a decimal number.</p>}
      <label className="field">
        <span className="label">Metric regex</span>
        <input
          className="mono"
          data-testid="parsing-regex"
          placeholder={'step (?<step>\\d+).*loss (?<loss>[\\d.]+)'}
          spellCheck={false}
          value={pattern}
          onChange={(event) => setPattern(event.target.value)}
        />
        <span className="hint">
          Saved in {reparse.own ? `the workload ${reparse.own.name}` : 'a new workload made for this run'}; each named group becomes a metric.
        </span>
      </label>
      <RegexTester pattern={pattern} runs={[run]} initialRunId={run.id} />
      <div className="actions">
        <button
          type="button"
          className="button primary"
          data-testid="reparse-with-regex"
          disabled={reparse.busy || pattern.trim() === ''}
          onClick={() => void reparse.reparse(pattern)}
        >
          {reparse.busy ? 'Parsing…' : 'Save regex and parse again'}
        </button>
        {reparse.busy && <ProgressBar label="Parsing the stored output again" testId="reparse-progress" />}
      </div>
    </>
  );
  // Nothing found: the way out is the first thing on the page. Half found: there, folded, for the half that is missing.
  return nothing ? (
    <div className="notice no-metrics" data-testid="no-metrics" role="status">
      {teach}
    </div>
  ) : (
    <details className="notice no-metrics partial" data-testid="no-metrics">
      <summary data-testid="no-metrics-summary">
        {found.loss ? 'No step time or throughput' : 'No loss'} found in this run’s output: teach its format with a regex…
      </summary>
      {teach}
    </details>
  );
}
