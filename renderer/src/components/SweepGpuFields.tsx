// The New sweep form's GPU settings, held for the whole sweep and restored at its end: a profile, none, or custom
// values. Hidden where there is no NVIDIA GPU to set.
import { useId } from 'react';
import type { GpuStatusSnapshot } from '../gpuStatus.js';
import { checkClockField, checkWattsField, clockHint, describeRunSettings, powerHint, type FieldCheck } from '../gpuText.js';
import { fieldsFromProfile, NO_GPU_SETTINGS, parseGpuRunFields, type GpuRunFields } from './GpuRunSettingsFields.js';

interface FieldProps {
  label: string;
  testId: string;
  value: string;
  placeholder: string;
  check: FieldCheck<unknown>;
  hint: string;
  onChange: (value: string) => void;
}

function GpuTextField({ label, testId, value, placeholder, check, hint, onChange }: FieldProps) {
  const id = useId();
  return (
    <div className="field">
      <label className="label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        className="mono"
        data-testid={testId}
        value={value}
        placeholder={placeholder}
        spellCheck={false}
        aria-invalid={check.state === 'invalid'}
        onChange={(event) => onChange(event.target.value)}
      />
      <span className="hint">{hint}</span>
      {check.state === 'invalid' && <span className="field-error">{check.error}</span>}
    </div>
  );
}

interface SweepGpuFieldsProps {
  gpu: GpuStatusSnapshot;
  fields: GpuRunFields | null;
  onChange: (fields: GpuRunFields) => void;
}

export function SweepGpuFields({ gpu, fields: given, onChange }: SweepGpuFieldsProps) {
  const selectId = useId();
  const { status } = gpu;
  const state = status?.state ?? null;
  if (!status?.available || state === null) return null;

  const fields = given ?? NO_GPU_SETTINGS;
  const profile = status.profiles.find((p) => p.id === fields.profile) ?? null;
  const checks = {
    lockClocks: checkClockField(fields.lockClocks, 'a GPU clock lock'),
    lockMemoryClocks: checkClockField(fields.lockMemoryClocks, 'a memory clock lock'),
    powerLimitW: checkWattsField(fields.powerLimitW),
  };
  const parsed = parseGpuRunFields(fields);
  // Editing a value makes the settings custom: a profile's name stays only on its own values.
  const edit = (change: Partial<GpuRunFields>) => onChange({ ...fields, ...change, profile: 'custom' });
  const choose = (id: string) => {
    const chosen = status.profiles.find((p) => p.id === id);
    if (chosen) onChange(fieldsFromProfile(chosen));
    else onChange({ ...fields, profile: id === 'none' ? 'none' : 'custom' });
  };

  return (
    <fieldset className="gpu-run-settings sweep-gpu" data-testid="sweep-gpu-settings">
      <legend>GPU settings for the sweep</legend>
      <div className="field gpu-profile">
        <label className="label" htmlFor={selectId}>
          Profile
        </label>
        <select id={selectId} data-testid="sweep-gpu-profile" value={fields.profile} onChange={(event) => choose(event.target.value)}>
          <option value="none">None (leave the GPU as it is)</option>
          {status.profiles.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
          <option value="custom">Custom</option>
        </select>
        <span className="hint" data-testid="sweep-gpu-basis">
          {fields.profile === 'none' && 'Each run records the settings in force; nothing is changed.'}
          {profile && `${profile.name}: ${profile.basis}.`}
          {fields.profile === 'custom' && 'Your own values; an empty field leaves that setting as it is.'}
        </span>
      </div>
      {fields.profile !== 'none' && (
        <>
          <div className="field-row gpu-run-fields">
            <GpuTextField
              label="Lock GPU clocks (MHz)"
              testId="sweep-gpu-lock-clocks"
              value={fields.lockClocks}
              placeholder="MIN or MIN,MAX"
              check={checks.lockClocks}
              hint={clockHint(state.supportedGraphicsMHz, state.clocks.maxGraphicsMHz)}
              onChange={(lockClocks) => edit({ lockClocks })}
            />
            <GpuTextField
              label="Lock memory clocks (MHz)"
              testId="sweep-gpu-lock-memory-clocks"
              value={fields.lockMemoryClocks}
              placeholder="MIN or MIN,MAX"
              check={checks.lockMemoryClocks}
              hint={clockHint(state.supportedMemoryMHz, state.clocks.maxMemMHz)}
              onChange={(lockMemoryClocks) => edit({ lockMemoryClocks })}
            />
            <GpuTextField
              label="Power limit (W)"
              testId="sweep-gpu-power-limit"
              value={fields.powerLimitW}
              placeholder="as it is"
              check={checks.powerLimitW}
              hint={powerHint(state.power)}
              onChange={(powerLimitW) => edit({ powerLimitW })}
            />
          </div>
          <label className="checkbox">
            <input
              type="checkbox"
              data-testid="sweep-gpu-persistence"
              checked={fields.persistence}
              onChange={(event) => edit({ persistence: event.target.checked })}
            />
            Persistence mode on for the sweep
          </label>
          {parsed.ok && (
            <p className="gpu-run-summary" data-testid="sweep-gpu-summary">
              {parsed.settings === null
                ? 'Nothing to set: the sweep leaves the GPU as it is.'
                : `For the whole sweep: ${describeRunSettings(parsed.settings)}. Put back when it ends, even if it fails.`}
            </p>
          )}
          {status.heldBy && (
            <p className="hint" data-testid="sweep-gpu-held">
              {status.heldBy} holds this GPU&apos;s settings until it ends.
            </p>
          )}
        </>
      )}
    </fieldset>
  );
}
