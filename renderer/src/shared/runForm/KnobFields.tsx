// The Knobs section of New run and New sweep: each standard speed-up with a one-line explanation, applied without changing the script.
import { checkKnob, KNOB_OFF, KNOBS, knobValues, type KnobSpec } from '../../../../electron/shared/knobs.js';
import { splitKnobValues } from './knobFieldValues.js';
import './KnobFields.css';

interface KnobFieldsProps {
  /** NAME to what is typed or chosen: a value for a run, comma-separated values for a sweep ('' or off: not applied). */
  values: Record<string, string>;
  onChange: (values: Record<string, string>) => void;
  /** A run takes one value per knob; a sweep takes a list, the first the baseline's (several: the knob is varied). */
  mode: 'run' | 'sweep';
}

export function KnobFields({ values, onChange, mode }: KnobFieldsProps) {
  const set = (name: string, value: string) => onChange({ ...values, [name]: value });
  const on = Object.values(values).filter((value) => value !== '' && value !== KNOB_OFF).length;
  return (
    <details className="knob-fields" data-testid="knob-fields" open={on > 0}>
      <summary>
        Knobs <span className="hint">{on > 0 ? `${on} set` : 'standard speed-ups applied without changing the script (PyTorch)'}</span>
      </summary>
      <p className="hint">
        {mode === 'run'
          ? 'Each is applied when the script imports torch or makes the object, and the run records where (file:line) or why not.'
          : 'Values comma-separated, the first the baseline’s: off,bf16 tries autocast against none. One value applies to every config.'}
      </p>
      <div className="knob-rows">
        {KNOBS.map((spec) => (
          <KnobRow key={spec.name} spec={spec} value={values[spec.name] ?? ''} mode={mode} onChange={(value) => set(spec.name, value)} />
        ))}
      </div>
    </details>
  );
}

function KnobRow({ spec, value, mode, onChange }: { spec: KnobSpec; value: string; mode: 'run' | 'sweep'; onChange: (value: string) => void }) {
  const id = `knob-${spec.name}`;
  const problem = mode === 'sweep' ? sweepKnobProblem(spec.name, value) : value === '' ? null : checkProblem(spec.name, value);
  return (
    <div className="knob-row" data-testid={`knob-row-${spec.name}`}>
      <label className="knob-name mono" htmlFor={id}>
        {spec.name}
      </label>
      <span className="knob-control">
        {mode === 'sweep' ? (
          <input
            id={id}
            className="mono"
            data-testid={id}
            value={value}
            placeholder={knobValues(spec).replace(/\|/gu, ' | ')}
            spellCheck={false}
            onChange={(event) => onChange(event.target.value)}
          />
        ) : spec.type.kind === 'switch' ? (
          <input id={id} type="checkbox" data-testid={id} checked={value === 'on'} onChange={(event) => onChange(event.target.checked ? 'on' : '')} />
        ) : spec.type.kind === 'choice' ? (
          <select id={id} data-testid={id} value={value || KNOB_OFF} onChange={(event) => onChange(event.target.value === KNOB_OFF ? '' : event.target.value)}>
            <option value={KNOB_OFF}>off</option>
            {spec.type.values.map((choice) => (
              <option key={choice} value={choice}>
                {choice}
              </option>
            ))}
          </select>
        ) : (
          <input
            id={id}
            className="mono knob-count"
            data-testid={id}
            inputMode="numeric"
            value={value}
            placeholder="off"
            onChange={(event) => onChange(event.target.value.trim())}
          />
        )}
      </span>
      <span className="knob-explanation hint">
        {spec.explanation}
        {spec.cudaOnly && <span className="knob-cuda"> CUDA only.</span>}
        {problem && (
          <span className="field-error" data-testid={`${id}-error`}>
            {' '}
            {problem}
          </span>
        )}
      </span>
    </div>
  );
}

function checkProblem(name: string, value: string): string | null {
  const checked = checkKnob(name, value);
  return checked.ok ? null : checked.error;
}

function sweepKnobProblem(name: string, text: string): string | null {
  for (const value of splitKnobValues(text)) {
    const problem = checkProblem(name, value);
    if (problem) return problem;
  }
  return null;
}
