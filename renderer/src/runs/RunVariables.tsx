// New run's variables: one field each, with its default, its description, and what empty means for a flag.
import { useMemo } from 'react';
import type { Workload } from '../../../electron/shared/api.js';
import { templateVariables } from '../../../electron/shared/variables.js';

export interface RunVariablesProps {
  workload: Workload;
  values: Readonly<Record<string, string>>;
  onValue: (name: string, value: string) => void;
  /** A typed command's variables are its {placeholders}. */
  typed: boolean;
}

export function RunVariables({ workload, values, onValue, typed }: RunVariablesProps) {
  const specs = useMemo(() => templateVariables(workload.command, workload.mode), [workload]);
  return (
    <>
      {workload.variables.length > 0 && (
        <fieldset className="variables">
          <legend>Variables</legend>
          {workload.variables.map((variable) => {
            const flag = specs.find((spec) => spec.name === variable.name)?.kind === 'flag';
            return (
              <label className="field variable" key={variable.name}>
                <span className="label mono">{variable.name}</span>
                <input
                  className="mono"
                  data-testid={`var-${variable.name}`}
                  value={values[variable.name] ?? ''}
                  placeholder={variable.default || (flag ? 'absent' : 'a value is needed')}
                  spellCheck={false}
                  onChange={(event) => onValue(variable.name, event.target.value)}
                />
                {variable.description && <span className="hint">{variable.description}</span>}
                {flag && (
                  <span className="hint" data-testid={`var-${variable.name}-flag`}>
                    A flag: alone as an argument, so empty leaves it out (give e.g. <code>--amp</code> to put it in).
                  </span>
                )}
              </label>
            );
          })}
        </fieldset>
      )}
      {workload.variables.length === 0 && <p className="hint">{typed ? 'No {placeholders}: the command runs as typed.' : 'This workload has no variables.'}</p>}
    </>
  );
}
