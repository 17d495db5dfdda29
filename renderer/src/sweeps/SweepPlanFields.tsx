// New sweep's plan (one at a time, ladder, grid), repeats, and where each run stops.
import { Field, MinutesInput, NumberWithUnit } from '../shared/Field.js';
import { PLANS, type SweepSectionProps } from './sweepForm.js';

export function SweepPlanFields({ fields, onChange: setFields }: SweepSectionProps) {
  return (
    <>
      <fieldset className="sweep-plans" data-testid="sweep-plans">
        <legend>Plan</legend>
        {PLANS.map((plan) => (
          <label key={plan.id} className="plan-option">
            <input
              type="radio"
              name="sweep-plan"
              value={plan.id}
              data-testid={`sweep-plan-${plan.id}`}
              checked={fields.plan === plan.id}
              onChange={() => setFields({ plan: plan.id })}
            />
            <span className="plan-name">{plan.name}</span>
            <span className="hint">{plan.explanation}</span>
          </label>
        ))}
      </fieldset>

      <div className="field-row sweep-limits">
        <Field label="Repeats">
          <NumberWithUnit testId="sweep-repeats" unit="runs of each config" value={fields.repeats} onChange={(value) => setFields({ repeats: value })} />
        </Field>
        <Field label="Stop each run after">
          <NumberWithUnit
            testId="sweep-max-steps"
            unit="steps"
            placeholder="none"
            value={fields.maxSteps}
            onChange={(value) => setFields({ maxSteps: value })}
          />
        </Field>
        <Field label="or after">
          <MinutesInput
            testId="sweep-timeout"
            placeholder="none"
            value={fields.timeLimitMinutes}
            onChange={(value) => setFields({ timeLimitMinutes: value })}
          />
        </Field>
      </div>
    </>
  );
}
