// New sweep's variables: those varied, each with its values (the first the baseline's), and those every config shares.
import type { Workload } from '../../../electron/shared/api.js';
import { sharedValue, splitValues, type SweepFields, type SweepSectionProps } from './sweepForm.js';

function countText(values: number): string {
  if (values === 0) return '';
  return values === 1 ? 'baseline only' : `${values} values`;
}

export function SweepVariables({ fields, onChange: setFields, workload }: SweepSectionProps & { workload: Workload | null }) {
  const variables = workload?.variables ?? [];
  const varied = new Set(fields.vary.map((row) => row.name));
  const unvaried = variables.filter((v) => !varied.has(v.name));
  const setRow = (index: number, change: Partial<SweepFields['vary'][number]>) =>
    setFields({ vary: fields.vary.map((row, i) => (i === index ? { ...row, ...change } : row)) });
  return (
    <>
      <fieldset className="sweep-vary" data-testid="sweep-vary">
        <legend>Varied</legend>
        <p className="hint">Values comma-separated; the first is the baseline&apos;s.</p>
        {fields.vary.map((row, index) => (
          <div className="vary-row" key={index} data-testid={`vary-row-${index}`}>
            <select
              className="mono"
              aria-label="Variable"
              data-testid={`vary-name-${index}`}
              value={row.name}
              onChange={(event) => setRow(index, { name: event.target.value })}
            >
              {row.name === '' && <option value="">choose…</option>}
              {variables
                .filter((v) => v.name === row.name || !varied.has(v.name))
                .map((v) => (
                  <option key={v.name} value={v.name}>
                    {v.name}
                  </option>
                ))}
            </select>
            <input
              className="mono"
              aria-label={`Values of ${row.name || 'the variable'}`}
              data-testid={`vary-values-${index}`}
              value={row.values}
              spellCheck={false}
              placeholder={`baseline, then the values to try (default ${variables.find((v) => v.name === row.name)?.default ?? '–'})`}
              onChange={(event) => setRow(index, { values: event.target.value })}
            />
            <span className="vary-count hint" data-testid={`vary-count-${index}`}>
              {countText(splitValues(row.values).length)}
            </span>
            <button
              type="button"
              className="button icon"
              aria-label={`Stop varying ${row.name || 'this variable'}`}
              title="Stop varying it"
              onClick={() => setFields({ vary: fields.vary.filter((_, i) => i !== index) })}
            >
              ×
            </button>
          </div>
        ))}
        {unvaried.length > 0 && (
          <div>
            <button
              type="button"
              className="button small"
              data-testid="vary-add"
              onClick={() => setFields({ vary: [...fields.vary, { name: unvaried[0]!.name, values: '' }] })}
            >
              + Vary {fields.vary.length === 0 ? 'a' : 'another'} variable
            </button>
          </div>
        )}
      </fieldset>

      {unvaried.length > 0 && (
        <fieldset className="variables" data-testid="sweep-shared">
          <legend>Shared by every config</legend>
          {unvaried.map((variable) => (
            <label className="field variable" key={variable.name}>
              <span className="label mono">{variable.name}</span>
              <input
                className="mono"
                data-testid={`shared-${variable.name}`}
                value={workload ? sharedValue(fields, workload, variable.name) : ''}
                placeholder={variable.default}
                spellCheck={false}
                onChange={(event) => setFields({ shared: { ...fields.shared, [variable.name]: event.target.value } })}
              />
              {variable.description && <span className="hint">{variable.description}</span>}
            </label>
          ))}
        </fieldset>
      )}
    </>
  );
}
