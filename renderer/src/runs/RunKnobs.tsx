// The knobs a run asked for: which are in force, and for each where in the script it applied (file:line) or why not.
import type { Run } from '../../../electron/shared/api.js';
import { KNOB_OFF, knobsInForce, outcomeSite, type KnobOutcome } from '../../../electron/shared/knobs.js';
import '../shared/runForm/KnobFields.css';

export function RunKnobs({ run }: { run: Run }) {
  const { knobs } = run;
  if (!knobs) return null;
  const inForce = knobsInForce(knobs);
  const torch = knobs.torch ? `torch ${knobs.torch}, ${knobs.cuda ? 'CUDA' : 'no CUDA'}` : null;
  return (
    <details className="run-knobs" data-testid="run-knobs" open={run.status !== 'running'}>
      <summary>
        <span className="fingerprint-title">Knobs</span>{' '}
        <span data-testid="run-knobs-in-force">in force: {inForce.length > 0 ? inForce.join(' ') : 'none'}</span>
        {torch && <span className="hint"> ({torch})</span>}
      </summary>
      <ul className="run-knob-list">
        {knobs.knobs.map((knob) => (
          <li key={knob.name} data-testid={`run-knob-${knob.name}`}>
            <span className="mono">
              {knob.name}={knob.value}
            </span>{' '}
            <span className={`knob-state state-${knob.value === KNOB_OFF ? 'off' : knob.state}`}>{knob.value === KNOB_OFF ? 'off' : knob.state}</span>
            {knob.state === 'unknown' && knob.value !== KNOB_OFF && (
              <span className="hint"> no Python process reported on it{run.status === 'running' ? ' yet' : ''}</span>
            )}
            {knob.outcomes.length > 0 && (
              <ul>
                {knob.outcomes.slice(0, MAX_PLACES).map((outcome, index) => (
                  <li key={index}>
                    <Outcome outcome={outcome} shown={knob.state} />
                  </li>
                ))}
                {knob.outcomes.length > MAX_PLACES && <li className="hint">and {knob.outcomes.length - MAX_PLACES} more places</li>}
              </ul>
            )}
          </li>
        ))}
      </ul>
      {knobs.notes.map((note) => (
        <p key={note} className="hint">
          {note}
        </p>
      ))}
    </details>
  );
}

/** Places listed per knob: a loader made at many lines is said in a count past these. */
const MAX_PLACES = 5;

function Outcome({ outcome, shown }: { outcome: KnobOutcome; shown: string }) {
  const site = outcomeSite(outcome);
  return (
    <>
      {outcome.status !== shown && <span className={`knob-state state-${outcome.status}`}>{outcome.status}</span>}{' '}
      {site && <code title={outcome.file ?? undefined}>{site}</code>} <span>{outcome.status === 'applied' ? outcome.what : outcome.reason}</span>
    </>
  );
}
