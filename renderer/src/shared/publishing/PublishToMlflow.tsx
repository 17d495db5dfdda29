// "Publish to MLflow" on a run, a sweep or a comparison: where it was published (with links into MLflow's UI), the
// tracking server and experiment to publish to, the setting that publishes every finished run and sweep on its own.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { MethodInput, MlflowSettings, Publication, PublishReport } from '../../../../electron/shared/api.js';
import { useBridge } from '../../bridge/context.js';
import { errorMessage, formatDateTime } from '../format.js';
import '../ExportMenu.css';
import './mlflow.css';

type PublishInput = MethodInput<'mlflow.publish'>;
type PublicationsInput = MethodInput<'mlflow.publications'>;

/** What the action publishes: runs and sweeps, or one comparison. */
export type PublishSubject = Pick<PublishInput, 'runIds' | 'sweepIds' | 'comparison'>;

const CREDENTIALS_TEXT: Record<'basic' | 'token' | 'none', string> = {
  basic: 'Signs in with MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD',
  token: 'Signs in with the token in MLFLOW_TRACKING_TOKEN',
  none: 'Signs in with nothing: for a server with sign-in, set MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD (or MLFLOW_TRACKING_TOKEN) where the app starts',
};

function resultText(report: PublishReport): string {
  const counts = new Map<string, number>();
  for (const outcome of report.results) counts.set(outcome.result, (counts.get(outcome.result) ?? 0) + 1);
  return [...counts].map(([result, n]) => `${n} ${result}`).join(', ');
}

export function PublishToMlflow({
  subject,
  publications: query,
  disabled = false,
  what,
}: {
  subject: PublishSubject;
  publications: PublicationsInput;
  disabled?: boolean;
  what: string;
}) {
  const bridge = useBridge();
  const { api } = bridge;
  const menuRef = useRef<HTMLDetailsElement>(null);
  const [settings, setSettings] = useState<MlflowSettings | null>(null);
  const [uri, setUri] = useState('');
  const [experiment, setExperiment] = useState('');
  const [records, setRecords] = useState<Publication[]>([]);
  const [busy, setBusy] = useState<'publish' | 'save' | null>(null);
  const [report, setReport] = useState<PublishReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const queryKey = JSON.stringify(query);

  const refresh = useCallback(() => {
    api['mlflow.publications'](JSON.parse(queryKey) as PublicationsInput).then(setRecords, () => undefined);
  }, [api, queryKey]);
  useEffect(refresh, [refresh]);
  useEffect(() => bridge.on('mlflow.onDidPublish', refresh), [bridge, refresh]);

  const load = useCallback(() => {
    api['mlflow.settings']({}).then(
      (answer) => {
        setSettings(answer);
        setUri((current) => current || (answer.trackingUri ?? ''));
        setExperiment((current) => current || answer.experiment);
      },
      (failure: unknown) => setError(errorMessage(failure)),
    );
  }, [api]);

  // A menu closes on a click elsewhere or Escape, as menus do.
  useEffect(() => {
    const onPointer = (event: PointerEvent) => {
      const menu = menuRef.current;
      if (menu?.open && event.target instanceof Node && !menu.contains(event.target)) menu.open = false;
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && menuRef.current?.open) menuRef.current.open = false;
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, []);

  const fromEnvironment = settings?.uriFrom === 'environment';
  const publish = async () => {
    setBusy('publish');
    setError(null);
    setReport(null);
    try {
      const answer = await api['mlflow.publish']({
        ...subject,
        ...(uri.trim() ? { trackingUri: uri.trim() } : {}),
        ...(experiment.trim() ? { experiment: experiment.trim() } : {}),
      });
      setReport(answer);
      refresh();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(null);
    }
  };
  const saveAuto = async (autoPublish: boolean) => {
    // The box shows the click at once; the server's answer then confirms it, or a failure puts it back.
    const before = settings;
    if (before) setSettings({ ...before, autoPublish });
    setBusy('save');
    setError(null);
    try {
      setSettings(
        await api['mlflow.configure']({
          trackingUri: uri.trim() || null,
          experiment: experiment.trim() || settings?.experiment || 'tuning-bench',
          autoPublish,
        }),
      );
    } catch (failure) {
      setSettings(before);
      setError(errorMessage(failure));
    } finally {
      setBusy(null);
    }
  };

  const published = records.filter((r) => r.state === 'published');
  const main = report?.results.find((r) => r.kind === 'comparison') ?? report?.results.find((r) => r.parentMlflowRunId === null) ?? report?.results[0];
  return (
    <div className="export-area mlflow-area">
      {published.length > 0 && published[0]!.url && (
        <a
          className="mlflow-link"
          href={published[0]!.url}
          target="_blank"
          rel="noreferrer"
          data-testid="mlflow-link"
          title={`${what} in MLflow: ${published[0]!.trackingUri}, experiment "${published[0]!.experimentName}"`}
        >
          MLflow ↗
        </a>
      )}
      <details
        className="export-menu mlflow-menu"
        ref={menuRef}
        data-testid="mlflow-menu"
        onToggle={(event) => (event.currentTarget.open ? load() : undefined)}
      >
        <summary className={`button small ${disabled ? 'disabled' : ''}`} aria-disabled={disabled} onClick={(event) => disabled && event.preventDefault()}>
          Publish to MLflow <span aria-hidden="true">▾</span>
        </summary>
        <div className="export-popover mlflow-popover" role="dialog" aria-label={`Publish ${what} to MLflow`}>
          {records.length > 0 && (
            <ul className="mlflow-records" data-testid="mlflow-records">
              {records.map((record) => (
                <li key={`${record.trackingUri} ${record.experimentName}`} className={`mlflow-record ${record.state}`}>
                  <span>
                    {record.state === 'published' ? 'Published' : record.state === 'pending' ? 'To be published when it ends' : 'Not published'} to{' '}
                    <span className="mono">{record.trackingUri}</span>, experiment “{record.experimentName}”
                    {record.publishedAt && <span className="hint"> {formatDateTime(record.publishedAt)}</span>}
                    {record.error && <span className="field-error"> {record.error}</span>}
                  </span>
                  {record.url && (
                    <a href={record.url} target="_blank" rel="noreferrer" data-testid="mlflow-record-link">
                      Open in MLflow ↗
                    </a>
                  )}
                </li>
              ))}
            </ul>
          )}
          <label className="mlflow-field">
            <span className="label">Tracking server</span>
            <input
              type="url"
              data-testid="mlflow-uri"
              placeholder="http://127.0.0.1:5000"
              value={uri}
              disabled={fromEnvironment}
              onChange={(event) => setUri(event.target.value)}
              title={fromEnvironment ? 'Set by TUNING_BENCH_MLFLOW_URI where the app started' : undefined}
            />
          </label>
          <label className="mlflow-field">
            <span className="label">Experiment</span>
            <input type="text" data-testid="mlflow-experiment" value={experiment} onChange={(event) => setExperiment(event.target.value)} />
          </label>
          <p className="hint mlflow-credentials">
            {fromEnvironment && 'The server comes from TUNING_BENCH_MLFLOW_URI, which also publishes every finished run and sweep. '}
            {CREDENTIALS_TEXT[settings?.credentials ?? 'none']}; no password is stored.
          </p>
          <div className="mlflow-actions">
            <label className="mlflow-auto" title="Every run and sweep this app records is published when it ends (a sweep's runs with the sweep)">
              <input
                type="checkbox"
                data-testid="mlflow-auto"
                checked={settings?.autoPublish ?? false}
                disabled={busy !== null || fromEnvironment || settings === null}
                onChange={(event) => void saveAuto(event.target.checked)}
              />{' '}
              Publish every finished run and sweep
            </label>
            <button
              type="button"
              className="button primary small"
              data-testid="mlflow-publish"
              disabled={busy !== null || (!uri.trim() && !fromEnvironment)}
              onClick={() => void publish()}
            >
              {busy === 'publish' ? 'Publishing…' : `Publish ${what}`}
            </button>
          </div>
          {error && (
            <p className="field-error" role="alert" data-testid="mlflow-error">
              {error}
            </p>
          )}
          {report && (
            <div className="mlflow-done" role="status" data-testid="mlflow-result">
              <span>
                {resultText(report)}
                {main?.url && (
                  <>
                    {' · '}
                    <a href={main.url} target="_blank" rel="noreferrer" data-testid="mlflow-result-link">
                      Open in MLflow ↗
                    </a>
                  </>
                )}
                {report.experimentUrl && (
                  <>
                    {' · '}
                    <a href={report.experimentUrl} target="_blank" rel="noreferrer">
                      the experiment ↗
                    </a>
                  </>
                )}
              </span>
              {[...new Set(report.results.flatMap((r) => r.warnings))].map((warning) => (
                <span key={warning} className="hint mlflow-warning">
                  {warning}
                </span>
              ))}
            </div>
          )}
        </div>
      </details>
    </div>
  );
}
