// The New sweep view's batch-size finder: short runs that double the batch until CUDA runs out of memory, then bisect
// to the largest that fits; its last answer for this workload can go straight into the form.
import { useState } from 'react';
import type { Sweep, Workload } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage } from '../shared/format.js';
import { finderStartDefault, parseFinderFields, withFoundValue, type SweepFields } from './sweepForm.js';
import { useSweeps } from '../shared/sweepStore.js';
import { updateSweepDraft } from './useSweepDraft.js';
import './sweeps.css';

interface BatchFinderFormProps {
  workload: Workload | null;
  fields: SweepFields;
  onChange: (finder: SweepFields['finder']) => void;
  onStarted: (sweep: Sweep) => void;
}

export function BatchFinderForm({ workload, fields, onChange, onStarted }: BatchFinderFormProps) {
  const { api } = useBridge();
  const { sweeps } = useSweeps();
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { finder } = fields;
  const variables = workload?.variables ?? [];
  const last = sweeps.find((s) => s.kind === 'batch-finder' && s.workloadId === workload?.id && s.result !== null) ?? null;
  const lastFit = last?.result?.largestFit ?? null;

  const find = async () => {
    const parsed = parseFinderFields(fields, workload);
    if (!parsed.ok) {
      setError(parsed.error);
      return;
    }
    setStarting(true);
    setError(null);
    try {
      onStarted(await api['sweeps.findBatch'](parsed.value));
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setStarting(false);
    }
  };

  return (
    <section className="card form batch-finder" aria-label="Find the largest batch" data-testid="batch-finder">
      <div>
        <h3>Find the largest batch</h3>
        <p className="hint">
          Short runs at the baseline&apos;s other values: the batch doubles until CUDA runs out of memory, then bisects to the largest that fits.
        </p>
      </div>
      <div className="field-row">
        <label className="field">
          <span className="label">Variable</span>
          <select
            className="mono"
            data-testid="finder-variable"
            value={finder.variable}
            disabled={variables.length === 0}
            onChange={(event) => onChange({ ...finder, variable: event.target.value, start: '' })}
          >
            {finder.variable === '' && <option value="">choose…</option>}
            {variables.map((v) => (
              <option key={v.name} value={v.name}>
                {v.name}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span className="label">Start at</span>
          <input
            data-testid="finder-start"
            inputMode="numeric"
            value={finder.start}
            placeholder={workload ? finderStartDefault(fields, workload) : '1'}
            onChange={(event) => onChange({ ...finder, start: event.target.value })}
          />
        </label>
        <label className="field">
          <span className="label">Steps per probe</span>
          <input data-testid="finder-steps" inputMode="numeric" value={finder.steps} onChange={(event) => onChange({ ...finder, steps: event.target.value })} />
        </label>
      </div>
      {error && (
        <p className="form-error" role="alert" data-testid="finder-error">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="button" className="button" data-testid="finder-start-button" disabled={!workload || starting} onClick={() => void find()}>
          {starting ? 'Starting…' : `Find largest ${finder.variable || 'batch'}`}
        </button>
        {last?.result && (
          <span className="finder-last" data-testid="finder-last">
            <span className="hint">Last answer (finder #{last.id}):</span> {last.result.message}
            {lastFit !== null && workload && (
              <button
                type="button"
                className="button small"
                data-testid="finder-last-use"
                onClick={() => updateSweepDraft((d) => ({ ...d, fields: withFoundValue(d.fields, workload, last.result!.variable, lastFit) }))}
              >
                Use {lastFit}
              </button>
            )}
          </span>
        )}
      </div>
    </section>
  );
}
