// New run's limits section: a time limit, a step limit and the work one step holds (read by runLimitFields.ts).
import { useCallback, useState } from 'react';
import { Field, MinutesInput, NumberWithUnit } from '../shared/Field.js';
import type { RunLimitFields } from './runLimitFields.js';

/** The fields, starting from a copied run's work per step (limits are the new run's own). */
export function useRunLimits(
  copied?: { perStep: string; perStepUnit: 'tokens' | 'samples' } | null,
): [RunLimitFields, (change: Partial<RunLimitFields>) => void] {
  const [fields, setFields] = useState<RunLimitFields>(() => ({
    timeLimit: '',
    stepLimit: '',
    perStep: copied?.perStep ?? '',
    perStepUnit: copied?.perStepUnit ?? 'tokens',
  }));
  const change = useCallback((part: Partial<RunLimitFields>) => setFields((previous) => ({ ...previous, ...part })), []);
  return [fields, change];
}

export interface RunLimitsProps {
  fields: RunLimitFields;
  onChange: (change: Partial<RunLimitFields>) => void;
  /** The workload's own tokens per step, shown as what an empty field means. */
  workloadTokensPerStep: string | null;
}

export function RunLimits({ fields, onChange, workloadTokensPerStep }: RunLimitsProps) {
  return (
    <>
      <div className="field-row limits">
        <Field
          className="time-limit"
          label="Time limit"
          hint="Optional. At the limit the run is stopped (SIGINT, then SIGTERM, then SIGKILL) and ends timed_out."
        >
          <MinutesInput testId="time-limit" placeholder="none" value={fields.timeLimit} onChange={(timeLimit) => onChange({ timeLimit })} />
        </Field>
        <Field
          className="step-limit"
          label="Stop after"
          hint="Optional. Once the parsed metrics reach this step the run is stopped, and ends stopped with exit class ok."
        >
          <NumberWithUnit testId="max-steps" unit="steps" placeholder="none" value={fields.stepLimit} onChange={(stepLimit) => onChange({ stepLimit })} />
        </Field>
      </div>

      <label className="field per-step">
        <span className="label">Work per step</span>
        <span className="input-with-unit">
          <input
            data-testid="per-step"
            inputMode="numeric"
            placeholder={workloadTokensPerStep ? `from the workload: ${workloadTokensPerStep}` : 'not given'}
            value={fields.perStep}
            onChange={(event) => onChange({ perStep: event.target.value })}
          />
          <select
            aria-label="Unit of work per step"
            data-testid="per-step-unit"
            value={fields.perStepUnit}
            onChange={(event) => onChange({ perStepUnit: event.target.value as 'tokens' | 'samples' })}
          >
            <option value="tokens">tokens</option>
            <option value="samples">samples</option>
          </select>
        </span>
        <span className="hint">
          Optional. How many tokens (or samples) one training step holds, so throughput is given in tokens/s (or samples/s) when the log prints only steps or
          step times.
        </span>
      </label>
    </>
  );
}
