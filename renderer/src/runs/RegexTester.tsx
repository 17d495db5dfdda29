// Tries a workload's metric regex as it is typed: on a pasted sample or a stored run's log, showing the first matches.
import { useEffect, useState } from 'react';
import type { MethodOutput, Run } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage, formatNumber } from '../shared/format.js';
import { dropPartialFirstLine, toPlainText } from '../shared/plainText.js';
import './NewRun.css';

/** Long enough to skip the keystrokes of one word, short enough to feel live (as the command preview). */
const TEST_DEBOUNCE_MS = 300;
/** The end of a stored log the test reads: a MiB holds thousands of step lines, and the engine takes up to 8. */
const STORED_LOG_BYTES = 1024 * 1024;
/** Matches shown; the count covers them all. */
const MATCHES_SHOWN = 8;
/** Newest runs offered in the select. */
const RUNS_OFFERED = 50;

type TestResult = MethodOutput<'metrics.testRegex'>;
type Outcome = { key: string; ok: true; value: TestResult } | { key: string; ok: false; error: string };
type StoredLog = { runId: number; ok: true; text: string; lines: number } | { runId: number; ok: false; error: string };

function formatValue(value: number | string | undefined): string {
  if (value === undefined) return '';
  return typeof value === 'number' ? formatNumber(value, 6) : value;
}

function MatchesTable({ result }: { result: TestResult }) {
  const shown = result.matches.slice(0, MATCHES_SHOWN);
  return (
    <>
      <p className="regex-count" data-testid="regex-match-count">
        {result.matchCount === 0
          ? 'No line matches.'
          : `${result.matchCount.toLocaleString()} matching line${result.matchCount === 1 ? '' : 's'}` +
            (result.matchCount > shown.length ? `, the first ${shown.length} shown` : '')}
      </p>
      {shown.length > 0 && (
        <table className="regex-matches">
          <thead>
            <tr>
              <th>line</th>
              {result.groups.map((group) => (
                <th key={group} className="mono">
                  {group}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((match) => (
              <tr key={match.line} title={match.text}>
                <td>{match.line}</td>
                {result.groups.map((group) => (
                  // The engine puts the step among the values too, so a `step` group gets its column like any other.
                  <td key={group} className="mono">
                    {formatValue(match.values[group])}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

export function RegexTester({ pattern, runs, initialRunId = null }: { pattern: string; runs: readonly Run[]; initialRunId?: number | null }) {
  const { api } = useBridge();
  const [sample, setSample] = useState('');
  const [runId, setRunId] = useState<number | null>(initialRunId);
  const [stored, setStored] = useState<StoredLog | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  // A stored run's log, fetched once per choice: its end, stripped of colours as the plain log download is.
  useEffect(() => {
    if (runId === null) return;
    let cancelled = false;
    api['runs.output']({ id: runId, fromEnd: true, maxBytes: STORED_LOG_BYTES }).then(
      (page) => {
        if (cancelled) return;
        const raw = page.chunks.map((chunk) => chunk.data).join('');
        const text = toPlainText(page.skippedBytes > 0 ? dropPartialFirstLine(raw) : raw);
        setStored({ runId, ok: true, text, lines: text.split('\n').length });
      },
      (error: unknown) => {
        if (!cancelled) setStored({ runId, ok: false, error: errorMessage(error) });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [api, runId]);

  const storedLog = runId !== null && stored?.runId === runId && stored.ok ? stored : null;
  const storedText = storedLog?.text ?? null;
  const text = runId === null ? sample : storedText;
  const key = `${pattern}\u0000${runId === null ? `sample:${sample}` : `run:${runId}`}`;

  useEffect(() => {
    if (pattern === '' || text === null || text === '') return;
    let cancelled = false;
    const timer = setTimeout(() => {
      api['metrics.testRegex']({ pattern, text }).then(
        (value) => {
          if (!cancelled) setOutcome({ key, ok: true, value });
        },
        (error: unknown) => {
          if (!cancelled) setOutcome({ key, ok: false, error: errorMessage(error) });
        },
      );
    }, TEST_DEBOUNCE_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [api, pattern, text, key]);

  let body;
  if (pattern === '') {
    body = <p className="hint">Type a pattern above to try it here.</p>;
  } else if (runId !== null && stored?.runId === runId && !stored.ok) {
    body = (
      <p className="inline-error">
        Could not read run #{runId}’s log: {stored.error}
      </p>
    );
  } else if (text === null) {
    body = <p className="hint">Reading run #{runId}’s log…</p>;
  } else if (text === '') {
    body = <p className="hint">Paste a few lines of a log, or pick a stored run, to try the pattern on.</p>;
  } else if (outcome === null) {
    body = <p className="hint">Trying the pattern…</p>;
  } else if (!outcome.ok || outcome.value.error !== null) {
    body = (
      <p className="inline-error" data-testid="regex-error">
        {outcome.ok ? outcome.value.error : outcome.error}
      </p>
    );
  } else {
    body = <MatchesTable result={outcome.value} />;
  }
  const stale = outcome !== null && outcome.key !== key;

  return (
    <div className="regex-tester">
      <div className="label-row">
        <span className="label">Try it</span>
        <select
          className="mode-select"
          data-testid="regex-test-run"
          aria-label="What to try the pattern on"
          value={runId ?? ''}
          onChange={(event) => setRunId(event.target.value === '' ? null : Number(event.target.value))}
        >
          <option value="">on a pasted sample</option>
          {runs.slice(0, RUNS_OFFERED).map((run) => (
            <option key={run.id} value={run.id}>
              against stored run #{run.id} {run.workloadName ?? 'ad-hoc'} ({run.status})
            </option>
          ))}
        </select>
      </div>
      {runId === null ? (
        <textarea
          data-testid="regex-test-text"
          className="mono"
          rows={4}
          spellCheck={false}
          aria-label="A sample of the log"
          placeholder={'step 120: loss 2.314, 41250 tok/s, 24.8 ms/step\nstep 130: loss 2.301, 41310 tok/s, 24.7 ms/step'}
          value={sample}
          onChange={(event) => setSample(event.target.value)}
        />
      ) : (
        storedLog !== null && (
          <p className="hint">
            Trying the last {storedLog.lines.toLocaleString()} lines of run #{runId}’s log (colours stripped).
          </p>
        )
      )}
      <div className={`regex-result ${stale ? 'stale' : ''}`} data-testid="regex-test-result" aria-live="polite">
        {body}
      </div>
    </div>
  );
}
