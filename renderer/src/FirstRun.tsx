// The main area while the database has no runs: what the app does, the GPU it found (or why none), and the synthetic
// workload one click away, with the ways to start something of one's own.
import { useEffect, useRef, useState } from 'react';
import type { GpuControlState, Run, Workload } from '../../electron/shared/api.js';
import { useBridge } from './bridge/context.js';
import { errorMessage } from './shared/format.js';
import { useGpuStatus } from './shared/gpuSettings/gpuStatus.js';
import { powerRange, watts } from './shared/gpuSettings/gpuText.js';
import { viewHash } from './route.js';
import { estimateTerminalSize } from './shared/runFeed/terminalSize.js';
import './shared/gpuSettings/gpu.css';
import './FirstRun.css';

/** A short first run: about 4 s of steady steps at the default batch of 8 (train.js: 12 ms a step), enough for a summary. */
const FIRST_RUN_VALUES = { steps: '300' } as const;

interface FirstRunProps {
  workloads: readonly Workload[];
  onStarted: (run: Run) => void;
  onImportLog: () => void;
}

function GpuFound({ state, driver }: { state: GpuControlState; driver: string | null }) {
  const range = powerRange(state.power);
  const persistence = state.persistenceMode === null ? 'unknown' : state.persistenceMode ? 'on' : 'off';
  return (
    <div className="first-run-gpu" data-testid="first-run-gpu">
      <p className="first-run-gpu-name">
        <span className="status-dot found" aria-hidden="true" />
        <span data-testid="first-run-gpu-name">
          GPU {state.index} · {state.name ?? 'unnamed NVIDIA GPU'}
        </span>
      </p>
      <dl className="gpu-facts">
        <div>
          <dt>Driver</dt>
          <dd data-testid="first-run-gpu-driver">{driver ?? '–'}</dd>
        </div>
        <div>
          <dt>Persistence mode</dt>
          <dd>{persistence}</dd>
        </div>
        <div>
          <dt>Power limit</dt>
          <dd>
            {watts(state.power.limitW)}
            {range && <span className="hint"> (the board takes {range})</span>}
          </dd>
        </div>
      </dl>
      <p className="hint">Runs record its utilisation, VRAM, power, temperature and clocks beside the host’s CPU and memory.</p>
    </div>
  );
}

function GpuMissing({ reason }: { reason: string }) {
  return (
    <div className="first-run-gpu" role="status" data-testid="first-run-no-gpu">
      <p className="first-run-gpu-name missing">
        <span className="status-dot missing" aria-hidden="true" />
        <span>
          <strong>No NVIDIA GPU found:</strong> {reason} — runs still record host telemetry (CPU, memory)
        </span>
      </p>
    </div>
  );
}

export function FirstRun({ workloads, onStarted, onImportLog }: FirstRunProps) {
  const { api } = useBridge();
  const rootRef = useRef<HTMLElement>(null);
  const { status, error: statusError, refresh } = useGpuStatus();
  const [driver, setDriver] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<string | null>(null);

  useEffect(() => {
    void refresh();
  }, [refresh]);
  // The driver version is only in the full card; without it the view still says which GPU it found.
  useEffect(() => {
    let cancelled = false;
    api['gpu.info']({}).then(
      (answer) => {
        const version = answer.card?.driverVersion;
        if (!cancelled && typeof version === 'string') setDriver(version);
      },
      () => {},
    );
    return () => {
      cancelled = true;
    };
  }, [api]);

  const synthetic = workloads.find((workload) => workload.builtin && workload.name === 'synthetic') ?? null;

  const trySynthetic = async () => {
    if (!synthetic) return;
    setStarting(true);
    setStartError(null);
    try {
      // The run view will fill this same main area.
      const size = estimateTerminalSize(rootRef.current?.closest('main') ?? rootRef.current);
      onStarted(await api['runs.start']({ workloadId: synthetic.id, values: { ...FIRST_RUN_VALUES }, ...size }));
    } catch (failure) {
      setStartError(errorMessage(failure));
      setStarting(false);
    }
  };

  let gpu;
  if (status && status.available && status.state) gpu = <GpuFound state={status.state} driver={driver} />;
  else if (status) gpu = <GpuMissing reason={status.reason ?? 'nvidia-smi gave no state'} />;
  else if (statusError) gpu = <GpuMissing reason={statusError} />;
  else gpu = <p className="hint">Asking nvidia-smi…</p>;

  return (
    <section className="first-run" ref={rootRef} aria-labelledby="first-run-title" data-testid="first-run">
      <div className="first-run-body">
        <h2 id="first-run-title">Welcome to Tuning Bench</h2>
        <p className="first-run-lede">
          Run a training command in a real terminal while Tuning Bench samples the GPU and the host and keeps every run in one SQLite file.
          <br />
          Then change one thing (batch size, data workers, mixed precision, clocks) and see whether it really got faster.
        </p>

        <section className="card first-run-card" aria-label="This machine">
          <h3>This machine</h3>
          {gpu}
        </section>

        <section className="card first-run-card" aria-label="First run">
          <h3>Start with the synthetic workload</h3>
          <p className="hint">
            A simulated trainer that needs only Node: {FIRST_RUN_VALUES.steps} steps, a few seconds, with throughput and loss charts and a steady-state summary
            at the end.
          </p>
          <div className="actions">
            <button
              type="button"
              className="button primary first-run-try"
              data-testid="first-run-try"
              disabled={synthetic === null || starting}
              onClick={() => void trySynthetic()}
            >
              {starting ? 'Starting…' : '▶ Try the synthetic workload'}
            </button>
          </div>
          {synthetic === null && <p className="hint">Waiting for the workload list…</p>}
          {startError && (
            <p className="form-error" role="alert" data-testid="first-run-error">
              Could not start it: {startError}
            </p>
          )}
        </section>

        <nav className="first-run-links" aria-label="Or start elsewhere">
          <span className="hint">Or:</span>
          <a className="button" href={viewHash({ kind: 'new' })} data-testid="first-run-new-run">
            New run
          </a>
          <a className="button" href={viewHash({ kind: 'new-sweep' })} data-testid="first-run-new-sweep">
            New sweep
          </a>
          <button type="button" className="button" data-testid="first-run-import-log" onClick={onImportLog}>
            Import log
          </button>
          <a className="button" href={viewHash({ kind: 'gpu' })} data-testid="first-run-gpu-control">
            GPU control
          </a>
        </nav>
      </div>
    </section>
  );
}
