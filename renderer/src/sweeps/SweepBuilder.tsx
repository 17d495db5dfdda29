// The New sweep view: a workload, the values its configs share, the variables varied and how (one at a time, ladder,
// grid), repeats, limits, fair conditions and GPU settings; the plan previewed in full before Start; and the batch finder.
import { useMemo, useState, type FormEvent } from 'react';
import type { SweepPreview, Workload } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage } from '../shared/format.js';
import { changesSpeed, commandInMessage, describeRunSettings } from '../gpu/gpuText.js';
import { useView, viewHash } from '../route.js';
import {
  initialSweepFields,
  PLANS,
  parseSweepFields,
  requestKey,
  sharedValue,
  suggestedWork,
  splitValues,
  typedCommandOf,
  withTypedCommand,
  withWorkload,
  type SweepFields,
  type SweepRequestInput,
} from './sweepForm.js';
import { adHocWorkload } from '../../../electron/shared/typedCommand.js';
import { useSweepStore } from '../shared/sweepStore.js';
import { useSweepDraft } from './useSweepDraft.js';
import { BatchFinderForm } from './BatchFinderForm.js';
import { CommandToCopy } from '../gpu/GpuMessage.js';
import { NO_GPU_SETTINGS, parseGpuRunFields } from '../gpu/GpuRunSettingsFields.js';
import { useGpuStartGuard } from '../gpu/OtherProcessesConfirm.js';
import { SweepGpuFields } from './SweepGpuFields.js';
import { SweepPlanPreview } from './SweepPlanPreview.js';
import { SaveTypedAsWorkload } from '../runs/SaveTypedAsWorkload.js';
import { WorkloadOptions } from '../runs/WorkloadOptions.js';
import { KnobFields } from '../runs/KnobFields.js';
import { Field, MinutesInput, NumberWithUnit } from '../shared/Field.js';
import './sweeps.css';

const BUILTIN_DEFAULT_WORKLOAD = 'synthetic';

function countText(values: number): string {
  if (values === 0) return '';
  return values === 1 ? 'baseline only' : `${values} values`;
}

type PreviewState = { key: string; ok: true; value: SweepPreview; repeats: number } | { key: string; ok: false; error: string };

export function SweepBuilder({ workloads }: { workloads: readonly Workload[] }) {
  const { api } = useBridge();
  const store = useSweepStore();
  const [, navigate] = useView();
  const [draft, updateDraft] = useSweepDraft();
  const [preview, setPreview] = useState<PreviewState | null>(null);
  const [previewing, setPreviewing] = useState(false);
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<string | null>(null);
  const { gpu, refreshGpu, confirmDialog, guard } = useGpuStartGuard();

  const typed = draft.fields.source === 'typed';
  const { typedScript, typedCwd } = draft.fields;
  const typedCommand = useMemo(() => typedCommandOf({ typedScript, typedCwd }), [typedScript, typedCwd]);
  // A typed command is planned and run as a workload of id 0 that is never stored; its placeholders are its variables.
  const typedWorkload = useMemo(() => (typedCommand ? adHocWorkload(typedCommand) : null), [typedCommand]);
  const registered =
    workloads.find((w) => w.id === draft.fields.workloadId) ?? workloads.find((w) => w.name === BUILTIN_DEFAULT_WORKLOAD) ?? workloads[0] ?? null;
  const workload = typed ? typedWorkload : registered;
  // The draft may predate the workload list (or name a workload since gone): it follows the one shown.
  const fields = workload ? (typed ? withTypedCommand(draft.fields, workload) : withWorkload(draft.fields, workload)) : draft.fields;
  const setFields = (change: Partial<SweepFields>) => updateDraft((d) => ({ ...d, fields: { ...fields, ...change } }));
  const gpuFields = draft.gpu ?? NO_GPU_SETTINGS;

  // The request as the form stands: GPU settings only where there is a GPU to set.
  const gpuState = gpu.status?.available ? (gpu.status.state ?? null) : null;
  const parsedGpu = gpuState ? parseGpuRunFields(gpuFields) : ({ ok: true, input: null, settings: null } as const);
  const parsedFields = parseSweepFields(fields, workload);
  let request: SweepRequestInput | null = null;
  let formError: string | null = null;
  if (!parsedFields.ok) formError = parsedFields.error;
  else if (!parsedGpu.ok) formError = parsedGpu.error;
  else request = parsedGpu.input ? { ...parsedFields.value, gpuSettings: parsedGpu.input } : parsedFields.value;
  const key = request ? requestKey(request) : null;
  const current = preview !== null && preview.key === key;
  const canStart = request !== null && current && preview.ok && !starting;

  const showPlan = async () => {
    if (!request || !key) return;
    setPreviewing(true);
    try {
      const value = await api['sweeps.plan'](request);
      setPreview({ key, ok: true, value, repeats: request.repeats ?? 3 });
    } catch (error) {
      setPreview({ key, ok: false, error: errorMessage(error) });
    } finally {
      setPreviewing(false);
    }
  };

  const start = async (event: FormEvent) => {
    event.preventDefault();
    if (!request || !canStart) return;
    setStarting(true);
    setStartError(null);
    try {
      const { settings } = parsedGpu.ok ? parsedGpu : { settings: null };
      // Only clocks and power change other processes' speed; persistence alone needs no question.
      const others = gpuState !== null && settings !== null && changesSpeed(settings) ? gpuState.processes : [];
      const what = settings ? `start the sweep with ${describeRunSettings(settings)}` : 'start the sweep';
      const started = await guard(others, what, (confirmOtherProcesses) => api['sweeps.start']({ ...request, confirmOtherProcesses }));
      if (started.done) {
        store.adopt(started.value);
        if (settings) void refreshGpu();
        navigate({ kind: 'sweep', id: started.value.id });
      }
    } catch (error) {
      setStartError(errorMessage(error));
    } finally {
      setStarting(false);
    }
  };

  const variables = workload?.variables ?? [];
  const varied = new Set(fields.vary.map((row) => row.name));
  const unvaried = variables.filter((v) => !varied.has(v.name));
  const setRow = (index: number, change: Partial<SweepFields['vary'][number]>) =>
    setFields({ vary: fields.vary.map((row, i) => (i === index ? { ...row, ...change } : row)) });
  const startCommand = startError ? commandInMessage(startError) : null;

  return (
    <section className="sweep-builder" aria-label="New sweep">
      <header className="view-header">
        <h2>New sweep</h2>
        <span className="hint">Runs each config in turn, one run at a time on the GPU, and compares them against the baseline.</span>
        <span className="spacer" />
        <a
          className="button"
          data-testid="before-after-button"
          href={viewHash({ kind: 'before-after' })}
          title="Two commits of your repository (or your uncommitted changes against HEAD), measured against each other"
        >
          Before/after a code change…
        </a>
      </header>

      <form className="card form" onSubmit={(event) => void start(event)}>
        <div className="source-switch" role="radiogroup" aria-label="What to sweep">
          <label>
            <input
              type="radio"
              name="sweep-source"
              data-testid="sweep-source-workload"
              checked={!typed}
              // The typed command's placeholders are not the workload's variables: its rows start afresh.
              onChange={() => setFields({ source: 'workload', ...(registered ? { vary: initialSweepFields(registered).vary, shared: {} } : {}) })}
            />{' '}
            A registered workload
          </label>
          <label>
            <input type="radio" name="sweep-source" data-testid="sweep-source-typed" checked={typed} onChange={() => setFields({ source: 'typed' })} /> A
            command
          </label>
        </div>
        {typed && (
          <>
            <label className="field">
              <span className="label">Command</span>
              <textarea
                className="mono"
                data-testid="sweep-typed-command"
                rows={3}
                spellCheck={false}
                placeholder="python train.py --batch_size {batch} --amp {amp}"
                value={fields.typedScript}
                onChange={(event) => setFields({ typedScript: event.target.value })}
              />
              <span className="hint">
                Run with <code>/bin/sh -c</code>. Each <code>{'{name}'}</code> is a variable to vary or share below; every value is shell-quoted by the app, one
                word whatever it holds. Nothing needs saving as a workload.
              </span>
            </label>
            <div className="field-row">
              <label className="field">
                <span className="label">Working directory</span>
                <input
                  className="mono"
                  data-testid="sweep-typed-cwd"
                  placeholder="/home/me/project"
                  value={fields.typedCwd}
                  onChange={(event) => setFields({ typedCwd: event.target.value })}
                />
              </label>
            </div>
            {typedCommand && (
              <SaveTypedAsWorkload
                command={typedCommand}
                defaults={typedWorkload ? baselineValues(fields, typedWorkload) : {}}
                onSaved={(saved) => setFields({ source: 'workload', workloadId: saved.id })}
              />
            )}
          </>
        )}
        <div className="field-row">
          {!typed && (
            <label className="field">
              <span className="label">Workload</span>
              <select
                data-testid="sweep-workload"
                value={workload?.id ?? ''}
                disabled={workloads.length === 0}
                onChange={(event) => {
                  const chosen = workloads.find((w) => w.id === Number(event.target.value));
                  if (chosen) updateDraft((d) => ({ ...d, fields: withWorkload(d.fields, chosen) }));
                }}
              >
                <WorkloadOptions workloads={workloads} />
              </select>
            </label>
          )}
          <label className="field">
            <span className="label">Name</span>
            <input
              data-testid="sweep-name"
              value={fields.name}
              placeholder={workload ? `${workload.name} ${fields.plan}` : ''}
              onChange={(event) => setFields({ name: event.target.value })}
            />
          </label>
        </div>

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

        <KnobFields mode="sweep" values={fields.knobs ?? {}} onChange={(knobs) => setFields({ knobs })} />

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

        <div className="sweep-work" data-testid="sweep-work">
          <label className="field">
            <span className="label">Work per step</span>
            <select
              data-testid="sweep-work-kind"
              value={fields.work?.kind ?? 'none'}
              onChange={(event) => {
                const kind = event.target.value as SweepFields['work']['kind'];
                const expression = fields.work?.expression || suggestedWork(workload);
                setFields({ work: { kind, expression: kind === 'none' ? (fields.work?.expression ?? '') : expression } });
              }}
            >
              <option value="none">not given (steps/s)</option>
              <option value="samples">samples per step</option>
              <option value="tokens">tokens per step</option>
            </select>
          </label>
          <label className="field">
            <span className="label">Expression</span>
            <input
              data-testid="sweep-work-expression"
              className="mono"
              placeholder={suggestedWork(workload) || '{batch}*{seq_len}'}
              value={fields.work?.expression ?? ''}
              disabled={(fields.work?.kind ?? 'none') === 'none'}
              onChange={(event) => setFields({ work: { kind: fields.work?.kind ?? 'none', expression: event.target.value } })}
            />
          </label>
          <label className="field">
            <span className="label">Warm-up steps</span>
            <input
              data-testid="sweep-warmup"
              inputMode="numeric"
              placeholder="auto"
              value={fields.warmupSteps ?? ''}
              onChange={(event) => setFields({ warmupSteps: event.target.value })}
              className="narrow"
            />
          </label>
          <span className="hint">
            What one step holds, from the variables: <code>{'{batch}'}</code> or <code>{'{batch}*{seq_len}'}</code>. Then throughput is per sample or per token,
            so a bigger batch is judged by the work it does; without it, configs that change the batch get no speedup. A script that prints its tokens per step
            wins. Warm-up steps: left out of every run's steady statistics (empty: found in each run by the automatic rule).
          </span>
        </div>

        <div className="sweep-wait">
          <label className="checkbox">
            <input
              type="checkbox"
              data-testid="sweep-wait"
              checked={fields.waitForIdle}
              onChange={(event) => setFields({ waitForIdle: event.target.checked })}
            />
            Before each run, wait for a quiet host and an idle, cool GPU
          </label>
          <label className="input-with-unit">
            <span className="unit">at most</span>
            <input
              data-testid="sweep-max-wait"
              inputMode="decimal"
              value={fields.maxWaitMinutes}
              disabled={!fields.waitForIdle}
              onChange={(event) => setFields({ maxWaitMinutes: event.target.value })}
            />
            <span className="unit">minutes</span>
          </label>
          <span className="hint">
            Other processes under half a CPU core, no other compute process on the GPU, low utilisation, and a temperature near idle: each run starts on equal
            terms.
          </span>
        </div>

        <SweepGpuFields gpu={gpu} fields={draft.gpu} onChange={(next) => updateDraft((d) => ({ ...d, gpu: next }))} />

        <div className="actions">
          <button type="button" className="button" data-testid="sweep-preview" disabled={request === null || previewing} onClick={() => void showPlan()}>
            {previewing ? 'Planning…' : 'Preview plan'}
          </button>
          <button type="submit" className="button primary" data-testid="sweep-start" disabled={!canStart}>
            {starting ? 'Starting…' : current && preview.ok ? `▶ Start sweep (${preview.value.runCount} runs)` : '▶ Start sweep'}
          </button>
          <span className="hint actions-note" data-testid="sweep-start-note">
            {formError ??
              (preview === null
                ? 'Preview the plan first: Start runs exactly what it shows.'
                : current
                  ? null
                  : 'The form changed since the preview: preview the plan again.')}
          </span>
        </div>

        {preview !== null && !preview.ok && (
          <p className="inline-error" role="alert" data-testid="sweep-plan-error">
            {preview.error}
          </p>
        )}
        {preview !== null && preview.ok && <SweepPlanPreview preview={preview.value} repeats={preview.repeats} stale={!current} />}

        {startError && (
          <p className="form-error" role="alert" data-testid="sweep-start-error">
            {startError}
          </p>
        )}
        {startCommand && <CommandToCopy command={startCommand} />}
      </form>

      {/* The finder runs a registered workload's variable; a typed command can be saved as one first. */}
      {!typed && (
        <BatchFinderForm
          workload={workload}
          fields={fields}
          onChange={(finder) => setFields({ finder })}
          onStarted={(sweep) => {
            store.adopt(sweep);
            navigate({ kind: 'sweep', id: sweep.id });
          }}
        />
      )}
      {confirmDialog}
    </section>
  );
}

/** Each variable's value in the baseline config: the first varied value, else the shared one (a saved workload's defaults). */
function baselineValues(fields: SweepFields, workload: Workload): Record<string, string> {
  const values: Record<string, string> = {};
  for (const variable of workload.variables) {
    const row = fields.vary.find((v) => v.name === variable.name);
    values[variable.name] = row ? (splitValues(row.values)[0] ?? '') : sharedValue(fields, workload, variable.name);
  }
  return values;
}
