// The New run form's GPU settings for one run: a profile (or none, or custom values), shown as the exact values the
// engine will set, checked as they are typed; the engine journals them and puts the GPU back when the run ends.
import { useId } from 'react';
import type { GpuControlState, GpuProfile, MethodInput } from '../../../../electron/shared/api.js';
import { formatClockRange, type GpuRunSettings } from '../../../../electron/shared/gpuSettings.js';
import type { GpuStatusSnapshot } from './gpuStatus.js';
import { checkClockField, checkWattsField, clockHint, describeRunSettings, powerHint, type FieldCheck } from './gpuText.js';
import './gpu.css';

export type GpuRunSettingsInput = NonNullable<MethodInput<'runs.start'>['gpuSettings']>;

export interface GpuRunFields {
  profile: 'none' | 'custom' | GpuProfile['id'];
  persistence: boolean;
  lockClocks: string;
  lockMemoryClocks: string;
  powerLimitW: string;
}

export const NO_GPU_SETTINGS: GpuRunFields = { profile: 'none', persistence: false, lockClocks: '', lockMemoryClocks: '', powerLimitW: '' };

/** A profile's settings as the text fields show them, so the person sees exactly what will be set. */
export function fieldsFromProfile(profile: GpuProfile): GpuRunFields {
  const { settings } = profile;
  return {
    profile: profile.id,
    persistence: settings.persistence === true,
    lockClocks: settings.lockClocks ? formatClockRange(settings.lockClocks) : '',
    lockMemoryClocks: settings.lockMemoryClocks ? formatClockRange(settings.lockMemoryClocks) : '',
    powerLimitW: settings.powerLimitW === undefined ? '' : String(settings.powerLimitW),
  };
}

interface FieldChecks {
  lockClocks: FieldCheck<{ minMHz: number; maxMHz: number }>;
  lockMemoryClocks: FieldCheck<{ minMHz: number; maxMHz: number }>;
  powerLimitW: FieldCheck<number>;
}

function checkFields(fields: GpuRunFields): FieldChecks {
  return {
    lockClocks: checkClockField(fields.lockClocks, 'a GPU clock lock'),
    lockMemoryClocks: checkClockField(fields.lockMemoryClocks, 'a memory clock lock'),
    powerLimitW: checkWattsField(fields.powerLimitW),
  };
}

export type ParsedGpuRunFields =
  { ok: true; input: GpuRunSettingsInput; settings: GpuRunSettings } | { ok: true; input: null; settings: null } | { ok: false; error: string };

/**
 * What `runs.start` gets: the text forms the contract takes (formatClockRange, String(watts)), or null for none.
 * Persistence unticked leaves the mode as it is (it does not turn it off); an empty field leaves that setting alone.
 */
export function parseGpuRunFields(fields: GpuRunFields): ParsedGpuRunFields {
  if (fields.profile === 'none') return { ok: true, input: null, settings: null };
  const checks = checkFields(fields);
  for (const check of [checks.lockClocks, checks.lockMemoryClocks, checks.powerLimitW]) {
    if (check.state === 'invalid') return { ok: false, error: `GPU settings: ${check.error}` };
  }
  const input: GpuRunSettingsInput = {};
  const settings: GpuRunSettings = {};
  if (fields.persistence) {
    input.persistence = true;
    settings.persistence = true;
  }
  if (checks.lockClocks.state === 'ok') {
    input.lockClocks = checks.lockClocks.text;
    settings.lockClocks = checks.lockClocks.value;
  }
  if (checks.lockMemoryClocks.state === 'ok') {
    input.lockMemoryClocks = checks.lockMemoryClocks.text;
    settings.lockMemoryClocks = checks.lockMemoryClocks.value;
  }
  if (checks.powerLimitW.state === 'ok') {
    input.powerLimitW = checks.powerLimitW.text;
    settings.powerLimitW = checks.powerLimitW.value;
  }
  return Object.keys(input).length === 0 ? { ok: true, input: null, settings: null } : { ok: true, input, settings };
}

interface TextFieldProps {
  label: string;
  testId: string;
  value: string;
  placeholder: string;
  check: FieldCheck<unknown>;
  hint: string;
  onChange: (value: string) => void;
}

function TextField({ label, testId, value, placeholder, check, hint, onChange }: TextFieldProps) {
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
      {check.state === 'invalid' && (
        <span className="field-error" data-testid={`${testId}-error`}>
          {check.error}
        </span>
      )}
    </div>
  );
}

/** What differs between a run's GPU settings and a sweep's: the words, and the test ids of each part. */
interface EditorScope {
  ids: { select: string; basis: string; lockClocks: string; lockMemoryClocks: string; powerLimit: string; persistence: string; summary: string; held: string };
  noneHint: string;
  persistenceLabel: string;
  /** Shows what persistence is now beside its box (the run form), or not (the sweep form). */
  persistenceNow: boolean;
  nothingToSet: string;
  willSet: (described: string) => string;
  held: { className: string; text: (holder: string) => string };
  /** Names other processes on the GPU ahead of the confirm. */
  listProcesses: boolean;
}

export const RUN_SCOPE: EditorScope = {
  ids: {
    select: 'gpu-profile-select',
    basis: 'gpu-profile-basis',
    lockClocks: 'gpu-run-lock-clocks',
    lockMemoryClocks: 'gpu-run-lock-memory-clocks',
    powerLimit: 'gpu-run-power-limit',
    persistence: 'gpu-run-persistence',
    summary: 'gpu-run-summary',
    held: 'gpu-run-held',
  },
  noneHint: 'The run records the settings in force and changes nothing.',
  persistenceLabel: 'Persistence mode on for the run',
  persistenceNow: true,
  nothingToSet: 'Nothing to set: the run leaves the GPU as it is.',
  willSet: (described) => `For this run only: ${described}. Put back when it ends.`,
  held: { className: 'field-error', text: (holder) => `${holder} holds this GPU's settings until it ends: a run with GPU settings cannot start before.` },
  listProcesses: true,
};

export const SWEEP_SCOPE: EditorScope = {
  ids: {
    select: 'sweep-gpu-profile',
    basis: 'sweep-gpu-basis',
    lockClocks: 'sweep-gpu-lock-clocks',
    lockMemoryClocks: 'sweep-gpu-lock-memory-clocks',
    powerLimit: 'sweep-gpu-power-limit',
    persistence: 'sweep-gpu-persistence',
    summary: 'sweep-gpu-summary',
    held: 'sweep-gpu-held',
  },
  noneHint: 'Each run records the settings in force; nothing is changed.',
  persistenceLabel: 'Persistence mode on for the sweep',
  persistenceNow: false,
  nothingToSet: 'Nothing to set: the sweep leaves the GPU as it is.',
  willSet: (described) => `For the whole sweep: ${described}. Put back when it ends, even if it fails.`,
  held: { className: 'hint', text: (holder) => `${holder} holds this GPU's settings until it ends.` },
  listProcesses: false,
};

interface GpuSettingsEditorProps {
  status: NonNullable<GpuStatusSnapshot['status']>;
  state: GpuControlState;
  fields: GpuRunFields;
  onChange: (fields: GpuRunFields) => void;
  scope: EditorScope;
}

/** The profile select, the values it fills in, persistence and what will be set: shared by the run and sweep forms. */
export function GpuSettingsEditor({ status, state, fields, onChange, scope }: GpuSettingsEditorProps) {
  const selectId = useId();
  const { ids } = scope;
  const profile = status.profiles.find((p) => p.id === fields.profile) ?? null;
  const checks = checkFields(fields);
  const parsed = parseGpuRunFields(fields);
  const persistenceNow = state.persistenceMode === null ? 'unknown' : state.persistenceMode ? 'on' : 'off';
  // Editing a value makes the settings custom: a profile's name stays only on its own values.
  const edit = (change: Partial<GpuRunFields>) => onChange({ ...fields, ...change, profile: 'custom' });
  const choose = (id: string) => {
    const chosen = status.profiles.find((p) => p.id === id);
    if (chosen) onChange(fieldsFromProfile(chosen));
    else onChange({ ...fields, profile: id === 'none' ? 'none' : 'custom' });
  };
  return (
    <>
      <div className="field gpu-profile">
        <label className="label" htmlFor={selectId}>
          Profile
        </label>
        <select id={selectId} data-testid={ids.select} value={fields.profile} onChange={(event) => choose(event.target.value)}>
          <option value="none">None (leave the GPU as it is)</option>
          {status.profiles.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
          <option value="custom">Custom</option>
        </select>
        <span className="hint" data-testid={ids.basis}>
          {fields.profile === 'none' && scope.noneHint}
          {profile && `${profile.name}: ${profile.basis}.`}
          {fields.profile === 'custom' && 'Your own values; an empty field leaves that setting as it is.'}
        </span>
      </div>
      {fields.profile !== 'none' && (
        <>
          <div className="field-row gpu-run-fields">
            <TextField
              label="Lock GPU clocks (MHz)"
              testId={ids.lockClocks}
              value={fields.lockClocks}
              placeholder="MIN or MIN,MAX"
              check={checks.lockClocks}
              hint={clockHint(state.supportedGraphicsMHz, state.clocks.maxGraphicsMHz)}
              onChange={(lockClocks) => edit({ lockClocks })}
            />
            <TextField
              label="Lock memory clocks (MHz)"
              testId={ids.lockMemoryClocks}
              value={fields.lockMemoryClocks}
              placeholder="MIN or MIN,MAX"
              check={checks.lockMemoryClocks}
              hint={clockHint(state.supportedMemoryMHz, state.clocks.maxMemMHz)}
              onChange={(lockMemoryClocks) => edit({ lockMemoryClocks })}
            />
            <TextField
              label="Power limit (W)"
              testId={ids.powerLimit}
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
              data-testid={ids.persistence}
              checked={fields.persistence}
              onChange={(event) => edit({ persistence: event.target.checked })}
            />
            {scope.persistenceLabel}
            {scope.persistenceNow && <span className="hint"> (unticked: left as it is, now {persistenceNow})</span>}
          </label>
          {parsed.ok && (
            <p className="gpu-run-summary" data-testid={ids.summary}>
              {parsed.settings === null ? scope.nothingToSet : scope.willSet(describeRunSettings(parsed.settings))}
            </p>
          )}
          {status.heldBy && (
            <p className={scope.held.className} data-testid={ids.held}>
              {scope.held.text(status.heldBy)}
            </p>
          )}
          {scope.listProcesses && state.processes.length > 0 && (
            <p className="hint">
              Other processes use this GPU ({state.processes.map((p) => `${p.name ?? 'unknown'}, pid ${p.pid}`).join('; ')}): you will be asked before clocks or
              power change.
            </p>
          )}
        </>
      )}
    </>
  );
}

interface GpuRunSettingsFieldsProps {
  gpu: GpuStatusSnapshot;
  fields: GpuRunFields;
  onChange: (fields: GpuRunFields) => void;
}

export function GpuRunSettingsFields({ gpu, fields, onChange }: GpuRunSettingsFieldsProps) {
  const { status } = gpu;
  const state = status?.state ?? null;

  let body;
  if (status === null) {
    body = <p className="hint">{gpu.error ? `Could not read the GPU status: ${gpu.error}` : 'Reading the GPU…'}</p>;
  } else if (!status.available || state === null) {
    body = (
      <p className="hint" data-testid="gpu-run-settings-unavailable">
        No NVIDIA GPU: {status.reason ?? 'nvidia-smi gave no state'}. The run leaves GPU settings alone.
      </p>
    );
  } else {
    body = <GpuSettingsEditor status={status} state={state} fields={fields} onChange={onChange} scope={RUN_SCOPE} />;
  }

  return (
    <fieldset className="gpu-run-settings" data-testid="gpu-run-settings">
      <legend>GPU settings for this run</legend>
      {body}
    </fieldset>
  );
}
