// The New sweep view: a workload, the values its configs share, the variables varied and how (one at a time, ladder,
// grid), repeats, limits, fair conditions and GPU settings; the plan previewed in full before Start; and the batch finder.
import { useMemo, useState, type FormEvent } from 'react';
import type { SweepPreview, Workload } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage } from '../shared/format.js';
import { changesSpeed, commandInMessage, describeRunSettings } from '../shared/gpuSettings/gpuText.js';
import { useView, viewHash } from '../route.js';
import { parseSweepFields, requestKey, typedCommandOf, withTypedCommand, withWorkload, type SweepFields, type SweepRequestInput } from './sweepForm.js';
import { adHocWorkload } from '../../../electron/shared/typedCommand.js';
import { useSweepStore } from '../shared/sweepStore.js';
import { useSweepDraft } from './useSweepDraft.js';
import { BatchFinderForm } from './BatchFinderForm.js';
import { CommandToCopy } from '../shared/gpuSettings/GpuMessage.js';
import { NO_GPU_SETTINGS, parseGpuRunFields } from '../shared/gpuSettings/GpuRunSettingsFields.js';
import { useGpuStartGuard } from '../shared/gpuSettings/OtherProcessesConfirm.js';
import { SweepGpuFields } from './SweepGpuFields.js';
import { SweepPlanPreview } from './SweepPlanPreview.js';
import { SweepSource } from './SweepSource.js';
import { SweepVariables } from './SweepVariables.js';
import { SweepPlanFields } from './SweepPlanFields.js';
import { SweepMeasureFields } from './SweepMeasureFields.js';
import { KnobFields } from '../shared/runForm/KnobFields.js';
import './sweeps.css';

const BUILTIN_DEFAULT_WORKLOAD = 'synthetic';

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
        <SweepSource
          fields={fields}
          onChange={setFields}
          workloads={workloads}
          workload={workload}
          registered={registered}
          typedCommand={typedCommand}
          typedWorkload={typedWorkload}
          onChooseWorkload={(chosen) => updateDraft((d) => ({ ...d, fields: withWorkload(d.fields, chosen) }))}
        />

        <SweepVariables fields={fields} onChange={setFields} workload={workload} />

        <KnobFields mode="sweep" values={fields.knobs ?? {}} onChange={(knobs) => setFields({ knobs })} />

        <SweepPlanFields fields={fields} onChange={setFields} />

        <SweepMeasureFields fields={fields} onChange={setFields} workload={workload} />

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
