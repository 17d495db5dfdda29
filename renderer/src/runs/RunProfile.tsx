// The run view's Profile tab: where a steady step's time goes (phases per step, top operators), what to try,
// the Chrome trace to open, and a button that profiles the run's command again.
import { useEffect, useState } from 'react';
import type { RunProfile as Profile } from '../../../electron/shared/profile.js';
import { useBridge } from '../bridge/context.js';
import { downloadText } from '../shared/downloadText.js';
import { errorMessage } from '../shared/format.js';
import './RunCharts.css';
import './RunProfile.css';

const PHASES = [
  ['dataLoadingMs', 'data loading', 'data'],
  ['inputMs', "input (script's batch code)", 'input'],
  ['forwardMs', 'forward', 'forward'],
  ['backwardMs', 'backward', 'backward'],
  ['optimizerMs', 'optimizer', 'optimizer'],
  ['otherMs', 'other', 'other'],
] as const;

/** Rows of the operator table: the bottleneck table plans paste; the trace has every operator. */
const TABLE_OPS = 15;

type PhaseValues = Record<(typeof PHASES)[number][0] | 'stepMs', number | null>;

function PhaseBar({
  phases,
  widthOf,
  label,
  testId,
  leftOut,
}: {
  phases: PhaseValues;
  widthOf: number;
  label: string;
  testId?: string;
  leftOut?: string | null;
}) {
  const step = phases.stepMs ?? 0;
  return (
    <div className={`phase-row${leftOut ? ' left-out' : ''}`} data-testid={testId} title={leftOut ? `left out of the means: ${leftOut}` : undefined}>
      <span className="phase-label">{label}</span>
      <div className="phase-bar" style={{ width: `${widthOf > 0 ? Math.min(100, (100 * step) / widthOf) : 0}%` }} role="img" aria-label={barText(phases)}>
        {PHASES.map(([key, name, css]) => {
          const value = phases[key] ?? 0;
          if (step <= 0 || value <= 0) return null;
          return <span key={key} className={`phase phase-${css}`} style={{ width: `${(100 * value) / step}%` }} title={`${name}: ${value.toFixed(2)} ms`} />;
        })}
      </div>
      <span className="phase-total">{step.toFixed(1)} ms</span>
    </div>
  );
}

function barText(phases: PhaseValues): string {
  const step = phases.stepMs ?? 0;
  return PHASES.map(([key, name]) => `${name} ${step > 0 ? Math.round((100 * (phases[key] ?? 0)) / step) : 0} %`).join(', ');
}

export function RunProfile({ runId, running }: { runId: number; running: boolean }) {
  const bridge = useBridge();
  const { api } = bridge;
  const [profile, setProfile] = useState<Profile | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  /** The re-run making a new profile, while it runs. */
  const [pending, setPending] = useState<number | null>(null);

  /** Bumped when a profile may have been stored, to read it again. */
  const [reloads, setReloads] = useState(0);

  // Mounted with key={runId}: another run's view starts from a fresh state.
  useEffect(() => {
    let current = true;
    api['profiles.get']({ runId }).then(
      (loaded) => {
        if (!current) return;
        setProfile(loaded);
        setError(null);
      },
      (failure: unknown) => current && setError(errorMessage(failure)),
    );
    return () => {
      current = false;
    };
  }, [api, runId, reloads]);
  // A profile is stored as its run ends: this run's own (started with --profile) or the re-run's.
  useEffect(
    () =>
      bridge.on('runs.onDidChange', (changed) => {
        if (changed.status === 'running') return;
        if (changed.id === pending) setPending(null);
        if (changed.id === runId || changed.id === pending) setReloads((n) => n + 1);
      }),
    [bridge, pending, runId],
  );

  const profileAgain = async () => {
    setError(null);
    try {
      const started = await api['runs.profile']({ id: runId });
      setPending(started.id);
    } catch (failure) {
      setError(errorMessage(failure));
    }
  };
  const openTrace = async () => {
    if (!profile) return;
    try {
      const { content, filename, mimeType } = await api['profiles.trace']({ runId: profile.runId });
      downloadText(content, filename, mimeType);
    } catch (failure) {
      setError(errorMessage(failure));
    }
  };

  // Bars to the scale of the kept steps: a left-out evaluation can be twenty times longer, and is drawn cut at full width.
  const longest = profile ? Math.max(0, ...profile.steps.filter((s) => s.leftOut === null).map((s) => s.stepMs ?? 0)) : 0;
  const leftOut = profile ? profile.steps.filter((s) => s.leftOut !== null).length : 0;
  return (
    <div className="run-profile" data-testid="run-profile">
      <div className="profile-actions">
        <button
          type="button"
          className="button small"
          data-testid="profile-button"
          disabled={running || pending !== null}
          title={running ? 'Profile it when it ends: two runs at once would skew both' : 'Runs the same command again with a window of steady steps profiled'}
          onClick={() => void profileAgain()}
        >
          {pending !== null ? `Profiling in run #${pending}…` : profile ? 'Profile again' : 'Profile'}
        </button>
        {profile?.tracePath && (
          <button type="button" className="button small" data-testid="open-trace" onClick={() => void openTrace()}>
            Open trace
          </button>
        )}
        {profile?.tracePath && <span className="hint">a Chrome trace: open it in ui.perfetto.dev or chrome://tracing</span>}
      </div>
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
      {profile === undefined && !error && <p className="hint">Loading the profile…</p>}
      {profile === null && (
        <p className="hint" data-testid="profile-none">
          No profile yet. Profile runs the same command again and profiles 10 steady steps after 10 warm-up steps (PyTorch: torch.profiler, with no change to
          the script).
        </p>
      )}
      {profile && (
        <>
          <p className="profile-source" data-testid="profile-source">
            {profile.tool ?? 'No tool could profile it'}
            {profile.device ? ` on ${profile.device}` : ''}
            {profile.window
              ? `, steps ${profile.window.fromStep}-${profile.window.toStep}${profile.numbering.by === 'script' ? ' as the script numbers them' : ''} after ${profile.warmupSteps} warm-up steps`
              : ''}
            {profile.status === 'ok' ? `; means over ${profile.keptSteps} steps${leftOut > 0 ? `, ${leftOut} left out` : ''}` : ''}
            {profile.sourceRunId !== null ? ` (re-run #${profile.runId} of this command)` : ''}
          </p>
          {profile.overhead && (
            <p className="profile-facts" data-testid="profile-overhead">
              Overhead: {profile.overhead.statement}.
            </p>
          )}
          {profile.input && profile.status === 'ok' && (
            <p className="profile-facts" data-testid="profile-input">
              Input is {profile.input.definition}.{profile.input.note ? ` ${profile.input.note}.` : ''}
            </p>
          )}
          {profile.syncs && (
            <p className="profile-facts" data-testid="profile-syncs">
              The host waited for the GPU {profile.syncs.perStep?.toFixed(1) ?? '?'} times per step
              {profile.syncs.sites.length > 0
                ? `: ${profile.syncs.sites.map((site) => `${site.site} ${site.what} ${site.callsPerStep.toFixed(1)}`).join(', ')}`
                : ''}
              .
            </p>
          )}
          {profile.diagnosis.length > 0 && (
            <ul className="profile-diagnosis" data-testid="profile-diagnosis">
              {profile.diagnosis.map((reading) => (
                <li key={reading}>{reading}</li>
              ))}
            </ul>
          )}
          {profile.notes.length > 0 && (
            <ul className="profile-notes">
              {profile.notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          )}
          {profile.status === 'ok' && (
            <div className="profile-body">
              <div className="profile-phases">
                <div className="phase-legend">
                  {PHASES.map(([key, name, css]) => (
                    <span key={key}>
                      <span className={`swatch phase-${css}`} /> {name}
                    </span>
                  ))}
                </div>
                <PhaseBar phases={profile.phases} widthOf={longest} label="mean" testId="phase-bar-mean" />
                {profile.steps.map((step) => (
                  <PhaseBar
                    key={step.step}
                    phases={step}
                    widthOf={longest}
                    label={`step ${step.scriptStep ?? step.step}`}
                    leftOut={step.leftOut}
                    testId={`phase-bar-step-${step.scriptStep ?? step.step}`}
                  />
                ))}
              </div>
              <table className="sweep-table profile-ops" data-testid="profile-ops">
                <thead>
                  <tr>
                    <th>Operator</th>
                    <th className="num">self ms / step</th>
                    <th className="num">% of step</th>
                    <th className="num">calls / step</th>
                  </tr>
                </thead>
                <tbody>
                  {profile.ops.slice(0, TABLE_OPS).map((op) => (
                    <tr key={op.name}>
                      <td className="op-name" title={op.name}>
                        {op.name}
                      </td>
                      <td className="num">{op.selfMs.toFixed(3)}</td>
                      <td className="num">{op.pct.toFixed(1)}</td>
                      <td className="num">{op.calls.toFixed(1)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </div>
  );
}
