// One sweep, live: its status and progress (the run under way, its wait, a failed run, the ETA), Pause/Resume/Skip/Cancel,
// the comparison matrix, and for the batch finder its answer with a button that puts it into the New sweep form.
import type { Sweep, Workload } from '../../../electron/shared/api.js';
import { DEFAULT_MAX_WAIT_SECONDS } from '../../../electron/shared/api.js';
import { describeMinutes } from '../shared/duration.js';
import type { ClockRange, GpuRunSettings } from '../../../electron/shared/gpuSettings.js';
import { formatDateTime, formatDuration } from '../shared/format.js';
import { describeRunSettings } from '../shared/gpuSettings/gpuText.js';
import { useView } from '../route.js';
import { withFoundValue } from './sweepForm.js';
import { useSweep } from '../shared/sweepStore.js';
import { isActive, planLabel } from './sweepText.js';
import { useNow } from '../shared/useNow.js';
import { updateSweepDraft } from './useSweepDraft.js';
import { CompareSweepButton } from '../shared/comparisons/CompareSweepButton.js';
import { SweepMatrix } from './SweepMatrix.js';
import { SweepRevisionDiffs } from '../shared/comparisons/RevisionDiff.js';
import { SweepStatusBadge } from './SweepStatus.js';
import { SweepProgress } from './SweepProgress.js';
import { SweepFailures } from '../shared/comparisons/SweepFailures.js';
import { SweepControls } from './SweepControls.js';
import './sweeps.css';
import { PublishToMlflow } from '../shared/publishing/PublishToMlflow.js';

export function SweepView({ id, workloads }: { id: number; workloads: readonly Workload[] }) {
  const { sweep, error } = useSweep(id);
  if (sweep) return <SweepDetails key={sweep.id} sweep={sweep} workloads={workloads} />;
  return (
    <div className="placeholder" role={error ? 'alert' : undefined}>
      {error ? `Sweep #${id} could not be opened: ${error}` : `Loading sweep #${id}…`}
    </div>
  );
}

function FinderResult({ sweep, workloads }: { sweep: Sweep; workloads: readonly Workload[] }) {
  const [, navigate] = useView();
  const { result } = sweep;
  if (!result) return null;
  const workload = workloads.find((w) => w.id === sweep.workloadId) ?? null;
  const fit = result.largestFit;
  return (
    <div className={`finder-result ${fit === null ? 'none' : ''}`} data-testid="finder-result">
      <span data-testid="finder-message">{result.message}</span>
      {fit !== null && workload && (
        <button
          type="button"
          className="button primary small"
          data-testid="use-batch"
          title={`Put ${result.variable}=${fit} into the New sweep form`}
          onClick={() => {
            updateSweepDraft((d) => ({ ...d, fields: withFoundValue(d.fields, workload, result.variable, fit) }));
            navigate({ kind: 'new-sweep' });
          }}
        >
          Use {fit}
        </button>
      )}
    </div>
  );
}

function clockRange(value: unknown): ClockRange | undefined {
  const range = value as Partial<ClockRange> | null | undefined;
  return typeof range?.minMHz === 'number' && typeof range.maxMHz === 'number' ? { minMHz: range.minMHz, maxMHz: range.maxMHz } : undefined;
}

/** The request is stored as the engine parsed it (clock ranges as objects, watts as numbers); an odd field is left out. */
function storedGpuSettings(stored: Record<string, unknown>): GpuRunSettings {
  return {
    persistence: typeof stored.persistence === 'boolean' ? stored.persistence : undefined,
    lockClocks: clockRange(stored.lockClocks),
    lockMemoryClocks: clockRange(stored.lockMemoryClocks),
    powerLimitW: typeof stored.powerLimitW === 'number' ? stored.powerLimitW : undefined,
  };
}

/** The request as asked, in a line or two: what every config shares, the limits, the waits, the GPU settings. */
function RequestFacts({ sweep }: { sweep: Sweep }) {
  const request = sweep.request as {
    values?: Record<string, string>;
    maxSteps?: number;
    timeoutSeconds?: number;
    waitForIdle?: boolean;
    maxWaitSeconds?: number;
    gpuSettings?: Record<string, unknown>;
    variable?: string;
    start?: number;
  };
  const shared = Object.entries(request.values ?? {});
  const limits = [
    request.maxSteps !== undefined && `${request.maxSteps} steps`,
    request.timeoutSeconds !== undefined && describeMinutes(request.timeoutSeconds),
  ].filter(Boolean);
  const finder = sweep.kind === 'batch-finder';
  const gpu = request.gpuSettings ? describeRunSettings(storedGpuSettings(request.gpuSettings)) : '';
  return (
    <details className="sweep-request" data-testid="sweep-request">
      <summary>{finder ? 'What the probes share' : 'What every config shares'}</summary>
      {shared.length > 0 && (
        <ul className="chips">
          {shared.map(([key, value]) => (
            <li key={key} className="chip">
              <span className="chip-key">{key}</span>={value}
            </li>
          ))}
        </ul>
      )}
      <dl className="facts">
        {finder && (
          <div>
            <dt>Search</dt>
            <dd>
              {request.variable} from {request.start}, doubling, then bisecting
            </dd>
          </div>
        )}
        <div>
          <dt>Each run stops after</dt>
          <dd>{limits.length > 0 ? limits.join(' or ') : 'it ends by itself'}</dd>
        </div>
        {!finder && (
          <div>
            <dt>Before each run</dt>
            <dd>
              {request.waitForIdle === false
                ? 'no wait'
                : `wait up to ${describeMinutes(request.maxWaitSeconds ?? DEFAULT_MAX_WAIT_SECONDS)} for an idle, cool GPU`}
            </dd>
          </div>
        )}
        {!finder && (
          <div>
            <dt>GPU settings</dt>
            <dd data-testid="sweep-request-gpu">{gpu !== '' ? `${gpu}, put back at the end` : 'none: the GPU as it was'}</dd>
          </div>
        )}
      </dl>
    </details>
  );
}

function SweepDetails({ sweep, workloads }: { sweep: Sweep; workloads: readonly Workload[] }) {
  const live = isActive(sweep);
  const now = useNow(live);
  const started = Date.parse(sweep.createdAt);
  const ended = sweep.endedAt ? Date.parse(sweep.endedAt) : now;
  const finder = sweep.kind === 'batch-finder';

  return (
    <section className="sweep-view" aria-label={`Sweep ${sweep.id}`}>
      <header className="run-header sweep-header">
        <div className="run-title">
          <h2>
            <span className="run-id">#{sweep.id}</span> {sweep.name}
          </h2>
          <SweepStatusBadge status={sweep.status} endedNote={sweep.endedNote} />
          <span className="spacer" />
          <SweepControls sweep={sweep} />
          {!finder && <PublishToMlflow subject={{ sweepIds: [sweep.id] }} publications={{ sweepId: sweep.id }} what="this sweep" />}
          {!finder && sweep.configs.some((config) => config.runIds.length > 0) && <CompareSweepButton sweepId={sweep.id} />}
        </div>
        <dl className="facts">
          <div>
            <dt>Workload</dt>
            <dd>{sweep.workloadName}</dd>
          </div>
          <div>
            <dt>Plan</dt>
            <dd data-testid="sweep-plan-label">{planLabel(sweep)}</dd>
          </div>
          {!finder && (
            <div>
              <dt>Repeats</dt>
              <dd>{sweep.repeats}</dd>
            </div>
          )}
          <div>
            <dt>Created</dt>
            <dd>{formatDateTime(sweep.createdAt)}</dd>
          </div>
          <div>
            <dt>Ended</dt>
            <dd>{formatDateTime(sweep.endedAt)}</dd>
          </div>
          <div>
            <dt>Duration</dt>
            <dd>{live || sweep.endedAt ? formatDuration(Math.max(0, ended - started)) : '–'}</dd>
          </div>
        </dl>
        <div className="sweep-progress-block">
          <SweepProgress sweep={sweep} />
        </div>
        {sweep.status === 'interrupted' && (
          <p className="sweep-interrupted" data-testid="sweep-interrupted">
            The engine stopped while this sweep ran (the app quit or crashed). Resume runs what is left; the runs that finished are kept.
          </p>
        )}
        {sweep.endedNote && (
          <p className="sweep-interrupted" data-testid="sweep-ended-note">
            {sweep.endedNote}
          </p>
        )}
        {sweep.error && (
          <p className="inline-error" role="alert" data-testid="sweep-error">
            {sweep.error}
          </p>
        )}
        <SweepFailures sweep={sweep} />
        {finder && <FinderResult sweep={sweep} workloads={workloads} />}
        <SweepRevisionDiffs sweep={sweep} />
      </header>
      <div className="sweep-body">
        <SweepMatrix sweep={sweep} />
        <RequestFacts sweep={sweep} />
      </div>
    </section>
  );
}
