// Tune on a run's page: the knobs' ladder on the run's command as it is (tune.start), followed step by step and found again after a reload, then the table, the total and the change that makes each kept knob permanent.
import { useEffect, useState } from 'react';
import type { Run, TuneRecord } from '../../../electron/shared/api.js';
import { DEFAULT_TUNE_MIN_STEP_SECONDS, IMPORTED_COMMAND } from '../../../electron/shared/api.js';
import { confidenceText } from '../../../electron/shared/confidenceText.js';
import { useBridge } from '../bridge/context.js';
import { downloadText } from '../shared/downloadText.js';
import { errorMessage } from '../shared/format.js';
import './RunTune.css';

/** Short runs by default, as `tune` (DEFAULT_TUNE_MAX_STEPS in shared/api/tune.ts). */
const DEFAULT_STEPS = 30;

function figure3(value: number): string {
  return value.toLocaleString('en-US', { minimumSignificantDigits: 3, maximumSignificantDigits: 3, useGrouping: false });
}

function speedup(ratio: number | null, ci95: { low: number; high: number } | null): string {
  if (ratio === null) return '-';
  return `${figure3(ratio)}x${ci95 ? ` (${figure3(ci95.low)}–${figure3(ci95.high)})` : ''}`;
}

export function RunTune({ run }: { run: Run }) {
  const bridge = useBridge();
  const { api } = bridge;
  const [steps, setSteps] = useState(String(DEFAULT_STEPS));
  const [waitForIdle, setWaitForIdle] = useState(true);
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** This run's newest tune, as the engine keeps it: found again after a reload, followed live while it runs. */
  const [tune, setTune] = useState<TuneRecord | null>(null);
  const tunable = !(run.status === 'running' || run.command[0] === IMPORTED_COMMAND || run.origin !== null);

  useEffect(() => {
    if (!tunable) return undefined;
    let current = true;
    api['tune.list']({ sourceRunId: run.id, limit: 1 }).then(
      (list) => {
        const newest = list[0];
        if (!current || !newest) return;
        setTune((shown) => (shown && shown.id > newest.id ? shown : newest));
        // The form says what the tune shown was asked with, for a Tune again of the same.
        if (newest.request.maxSteps !== undefined) setSteps(String(newest.request.maxSteps));
        setWaitForIdle(newest.request.waitForIdle);
      },
      (failure: unknown) => current && setError(errorMessage(failure)),
    );
    const off = bridge.on('tunes.onDidChange', (changed) => {
      if (changed.sourceRunId === run.id) setTune((shown) => (shown === null || changed.id >= shown.id ? changed : shown));
    });
    return () => {
      current = false;
      off();
    };
  }, [api, bridge, run.id, tunable]);

  if (!tunable) return null;
  const stepCount = /^\d+$/u.test(steps) && Number(steps) > 0 ? Number(steps) : null;
  const running = tune?.status === 'running';
  const ask = async (call: () => Promise<TuneRecord>) => {
    setAsking(true);
    setError(null);
    try {
      setTune(await call());
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setAsking(false);
    }
  };
  const start = () => {
    if (stepCount === null) return;
    void ask(() =>
      api['tune.start']({ request: { command: { template: run.command, mode: 'argv', cwd: run.cwd }, maxSteps: stepCount, waitForIdle }, sourceRunId: run.id }),
    );
  };
  return (
    <details className="run-tune" data-testid="run-tune" open={tune !== null ? true : undefined}>
      <summary>
        <span className="fingerprint-title">Tune</span>{' '}
        <span className="hint">which standard speed-ups make this command faster here, without changing the script</span>
      </summary>
      <p className="hint">
        Baseline, then +workers, +autocast, +TF32, +cudnn.benchmark, +compile, each a sweep of the best so far against it plus one knob; a knob is kept only
        when faster and within the quality gate. Knobs that cannot apply here are skipped with the reason.
      </p>
      <div className="run-tune-controls">
        <label>
          Steps per run{' '}
          <input
            title={`and, where steps are fast, on until they span ${DEFAULT_TUNE_MIN_STEP_SECONDS} s, so a run measures more than its warm-up`}
            data-testid="tune-steps"
            className="mono"
            size={5}
            value={steps}
            onChange={(event) => setSteps(event.target.value)}
            aria-invalid={stepCount === null}
          />
        </label>
        <label>
          <input type="checkbox" data-testid="tune-wait-idle" checked={waitForIdle} onChange={(event) => setWaitForIdle(event.target.checked)} /> wait for a
          quiet machine before each run
        </label>
        <button type="button" className="button small" data-testid="tune-start" disabled={asking || running || stepCount === null} onClick={start}>
          {running ? 'Tuning… (each step is a sweep: see Sweeps)' : tune === null ? 'Tune' : 'Tune again'}
        </button>
        {running && (
          <button
            type="button"
            className="button small"
            data-testid="tune-cancel"
            disabled={asking}
            onClick={() => void ask(() => api['tune.cancel']({ id: tune.id }))}
          >
            Cancel
          </button>
        )}
        {tune !== null && (tune.status === 'cancelled' || tune.status === 'interrupted') && (
          <button
            type="button"
            className="button small"
            data-testid="tune-resume"
            disabled={asking}
            onClick={() => void ask(() => api['tune.resume']({ id: tune.id }))}
          >
            Resume from the step it reached
          </button>
        )}
      </div>
      {stepCount === null && <p className="inline-error">Steps per run is a whole number from 1.</p>}
      {error && (
        <p className="inline-error" role="alert" data-testid="tune-error">
          {error}
        </p>
      )}
      {tune && (
        <>
          <TuneAnswer tune={tune} />
          <p className="run-tune-export">
            Report:{' '}
            {(['md', 'html'] as const).map((format) => (
              <button
                key={format}
                type="button"
                className="button small"
                data-testid={`tune-export-${format}`}
                disabled={asking}
                onClick={() =>
                  void api['tune.export']({ id: tune.id, format }).then(
                    (file) => downloadText(file.content, file.filename, file.mimeType),
                    (failure: unknown) => setError(errorMessage(failure)),
                  )
                }
              >
                {format === 'md' ? 'Markdown' : 'HTML page'}
              </button>
            ))}
          </p>
        </>
      )}
    </details>
  );
}

function TuneAnswer({ tune }: { tune: TuneRecord }) {
  const result = tune.result;
  const unit = result.steps.find((s) => s.throughput.unit)?.throughput.unit ?? null;
  const kept = Object.entries(result.kept)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  return (
    <div data-testid="tune-result">
      <p>
        Tune {tune.id} ·{' '}
        <span data-testid="tune-status">{tune.status === 'running' ? `running: ${result.steps.length} of the ladder's steps decided` : tune.status}</span> ·
        torch {result.machine.torch ?? 'not seen'}, {result.machine.cuda === null ? 'CUDA not seen' : result.machine.cuda ? 'CUDA' : 'no CUDA'}
      </p>
      <table className="run-tune-table" data-testid="tune-table">
        <thead>
          <tr>
            <th>Config</th>
            <th>Throughput{unit ? ` (${unit}, 95 % CI)` : ''}</th>
            <th title="95 % shared between the looks a step may take at its runs as it adds rounds, so a knob is called faster when it is not at most 5 % of the time">
              Speedup ({confidenceText(result.confidence)} CI)
            </th>
            <th>Verdict</th>
            <th>Runs</th>
            <th>Step ms</th>
            {result.lossAt === null ? (
              <th>Final loss</th>
            ) : (
              <th title="the most work every row's runs reached: runs of fast steps stop after a stretch of time, so their final losses are at unequal work">
                Loss at {result.lossAt}
              </th>
            )}
            <th>VRAM MiB</th>
            <th>Gate</th>
            <th>Kept</th>
          </tr>
        </thead>
        <tbody>
          {result.steps.map((step) => (
            <tr key={step.name} data-testid={`tune-step-${step.name}`} className={`tune-${step.status}`} title={step.reason}>
              <td className="mono">{step.name}</td>
              <td>
                {step.throughput.median === null
                  ? '-'
                  : `${figure3(step.throughput.median)}${step.throughput.ci95 ? ` (${figure3(step.throughput.ci95.low)}–${figure3(step.throughput.ci95.high)})` : ''}`}
              </td>
              <td>{step.status === 'skipped' ? '-' : speedup(step.speedup.ratio, step.speedup.ci95)}</td>
              <td>{step.status === 'skipped' ? 'skipped' : step.speedup.verdict}</td>
              <td>{step.status === 'skipped' ? '-' : step.status === 'baseline' ? step.n.candidate : `${step.n.candidate}+${step.n.against}`}</td>
              <td>{step.stepTimeMs === null ? '-' : step.stepTimeMs.toFixed(2)}</td>
              <td>{step.finalLoss === null ? '-' : step.finalLoss.toPrecision(4)}</td>
              <td>{step.vramPeakMiB === null ? '-' : step.vramPeakMiB.toFixed(0)}</td>
              <td>{step.status === 'baseline' || step.status === 'skipped' ? '-' : step.gate}</td>
              <td>{step.status === 'baseline' ? '-' : step.kept ? 'yes' : 'no'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <ul className="run-tune-reasons">
        {result.steps
          .filter((step) => step.status !== 'baseline')
          .map((step) => (
            <li key={step.name} data-testid={`tune-reason-${step.name}`}>
              <span className="mono">{step.name}</span>: {step.status}: {step.reason}
            </li>
          ))}
      </ul>
      {result.total && (
        <p data-testid="tune-total">
          Total: <span className="mono">{kept}</span>: {speedup(result.total.ratio, result.total.ci95)} against the baseline, {result.total.verdict} (
          {result.total.measuredBy})
        </p>
      )}
      {result.notes.map((note) => (
        <p key={note} className="hint">
          {note}
        </p>
      ))}
      {result.suggestions.length > 0 && (
        <>
          <h4>To make it permanent</h4>
          <ul data-testid="tune-suggestions">
            {result.suggestions.map((s) => (
              <li key={s.text} className="mono">
                {s.text}
              </li>
            ))}
          </ul>
          {result.patch && (
            <>
              <p className="hint">As a patch: in {result.patchDir ?? result.cwd}, `git apply` or `patch -p1` it.</p>
              <pre className="run-tune-patch" data-testid="tune-patch">
                {result.patch}
              </pre>
            </>
          )}
        </>
      )}
      {result.error && <p className="inline-error">{result.error}</p>}
    </div>
  );
}
