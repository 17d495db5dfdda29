// The New run view: pick a workload, set its variables, see exactly what will run, and start it.
import { useMemo, useRef, useState, type FormEvent } from 'react';
import type { Run, Workload } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage } from '../shared/format.js';
import { changesSpeed, commandInMessage, describeRunSettings } from '../shared/gpuSettings/gpuText.js';
import { estimateTerminalSize } from '../shared/runFeed/terminalSize.js';
import { CommandToCopy } from '../shared/gpuSettings/GpuMessage.js';
import { GpuRunSettingsFields, NO_GPU_SETTINGS, parseGpuRunFields, type GpuRunFields } from '../shared/gpuSettings/GpuRunSettingsFields.js';
import { NewWorkload } from './NewWorkload.js';
import { useGpuStartGuard } from '../shared/gpuSettings/OtherProcessesConfirm.js';
import { adHocWorkload, TYPED_COMMAND_WORKLOAD_ID } from '../../../electron/shared/typedCommand.js';
import { fieldsFromRun, readRememberedRunFields, rememberRunFields, type RunSource } from './newRunFields.js';
import { viewHash } from '../route.js';
import { KnobFields } from '../shared/runForm/KnobFields.js';
import { RunLimits, useRunLimits } from './RunLimits.js';
import { parseRunLimits } from './runLimitFields.js';
import { TypedCommandFields } from './TypedCommandFields.js';
import { WorkloadChoice } from './WorkloadChoice.js';
import { RunVariables } from './RunVariables.js';
import { CommandPreview, useCommandPreview } from './CommandPreview.js';
import { runKnobsFromFields } from '../shared/runForm/knobFieldValues.js';
import './NewRun.css';

const BUILTIN_DEFAULT_WORKLOAD = 'synthetic';

interface NewRunProps {
  workloads: readonly Workload[];
  /** Stored runs, newest first: the metric regex tester can try a pattern on one's log. */
  runs: readonly Run[];
  onStarted: (run: Run) => void;
  onWorkloadCreated: (workload: Workload) => void;
  /** Where a typed command runs unless told (the engine's starting directory): the directory field's first value. */
  defaultCwd?: string;
  /** Edit and run again: the form starts as a copy of this run (give the component a key per run). */
  from?: Run | null;
}

export function NewRun({ workloads, runs, onStarted, onWorkloadCreated, defaultCwd = '', from = null }: NewRunProps) {
  const { api } = useBridge();
  const rootRef = useRef<HTMLElement>(null);
  // A copy of a run to change, or what was run last (the form remembers it), or the defaults.
  const [initial] = useState(() => {
    const copied = from ? fieldsFromRun(from, workloads) : null;
    const remembered = readRememberedRunFields();
    return {
      copied,
      source: copied?.source ?? remembered.source ?? 'workload',
      workloadId: copied ? copied.workloadId : (remembered.workloadId ?? null),
      typedScript: copied ? copied.typedScript : (remembered.typedScript ?? ''),
      typedCwd: copied ? copied.typedCwd : remembered.typedCwd || defaultCwd,
      typedValues: copied ? (copied.source === 'typed' ? copied.values : {}) : (remembered.typedValues ?? {}),
    };
  });
  const [chosenId, setChosenId] = useState<number | null>(initial.workloadId);
  /** Edits per workload, so switching workloads and back keeps what was typed. */
  // A typed command is workload 0 (below): its values, copied from a run or remembered, are its edits.
  const [edits, setEdits] = useState<Record<number, Record<string, string>>>(() => ({
    [TYPED_COMMAND_WORKLOAD_ID]: initial.typedValues,
    ...(initial.copied?.workloadId != null ? { [initial.copied.workloadId]: initial.copied.values } : {}),
  }));
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [limits, setLimits] = useRunLimits(initial.copied);
  const [gpuFields, setGpuFields] = useState<GpuRunFields>(NO_GPU_SETTINGS);
  const [knobFields, setKnobFields] = useState<Record<string, string>>(initial.copied?.knobs ?? {});
  const [editing, setEditing] = useState<Workload | null>(null);
  /** Run a registered workload, or a command typed here (its {var} placeholders become its variables). */
  const [source, setSource] = useState<RunSource>(initial.source);
  const [typedScript, setTypedScript] = useState(initial.typedScript);
  const [typedCwd, setTypedCwd] = useState(initial.typedCwd);
  const { gpu, refreshGpu, confirmDialog, guard } = useGpuStartGuard();

  const typedCommand = useMemo(
    () => (typedScript.trim() === '' || typedCwd.trim() === '' ? null : { template: [typedScript.trim()], mode: 'shell' as const, cwd: typedCwd.trim() }),
    [typedScript, typedCwd],
  );
  // A typed command is shown and run as a workload of id 0 that is never stored.
  const typedWorkload = useMemo(() => (typedCommand ? adHocWorkload(typedCommand) : null), [typedCommand]);
  const workload =
    source === 'typed'
      ? typedWorkload
      : (workloads.find((w) => w.id === chosenId) ?? workloads.find((w) => w.name === BUILTIN_DEFAULT_WORKLOAD) ?? workloads[0] ?? null);

  const values = useMemo(() => {
    const result: Record<string, string> = {};
    if (!workload) return result;
    const edited = edits[workload.id] ?? {};
    for (const variable of workload.variables) result[variable.name] = edited[variable.name] ?? variable.default;
    return result;
  }, [workload, edits]);
  const { preview, previewKey } = useCommandPreview(workload, values, typedCommand);

  const setValue = (name: string, value: string) => {
    if (!workload) return;
    setEdits((prev) => ({ ...prev, [workload.id]: { ...prev[workload.id], [name]: value } }));
  };

  const start = async (event: FormEvent) => {
    event.preventDefault();
    if (!workload) return;
    const limited = parseRunLimits(limits);
    if (!limited.ok) {
      setStartError(limited.error);
      return;
    }
    const knobs = runKnobsFromFields(knobFields);
    if (!knobs.ok) {
      setStartError(knobs.error);
      return;
    }
    // Without a GPU there is nothing to set, whatever the fields held when it had one.
    const gpuState = gpu.status?.available ? (gpu.status.state ?? null) : null;
    const gpuSettings = gpuState ? parseGpuRunFields(gpuFields) : ({ ok: true, input: null, settings: null } as const);
    if (!gpuSettings.ok) {
      setStartError(gpuSettings.error);
      return;
    }
    setStarting(true);
    setStartError(null);
    try {
      // The run view will fill the whole main area, not just this form's height.
      const size = estimateTerminalSize(rootRef.current?.closest('main') ?? rootRef.current);
      const start = (confirmOtherProcesses: boolean) =>
        api['runs.start']({
          ...(workload.id === 0 && typedCommand ? { command: typedCommand } : { workloadId: workload.id }),
          values,
          ...limited.value,
          ...(Object.keys(knobs.knobs).length > 0 ? { knobs: knobs.knobs } : {}),
          ...(gpuSettings.input ? { gpuSettings: gpuSettings.input, confirmOtherProcesses } : {}),
          ...size,
        });
      const { settings } = gpuSettings;
      // Only clocks and power change other processes' speed; persistence alone needs no question.
      const others = gpuState !== null && settings !== null && changesSpeed(settings) ? gpuState.processes : [];
      const started = await guard(others, settings ? describeRunSettings(settings) : 'start the run', start);
      if (started.done) {
        rememberRunFields({
          source,
          workloadId: source === 'workload' ? workload.id : chosenId,
          typedScript,
          typedCwd,
          typedValues: edits[TYPED_COMMAND_WORKLOAD_ID] ?? {},
        });
        onStarted(started.value);
        // Starting with settings may have restored a dead engine's (the banner's) and now holds the GPU.
        if (gpuSettings.input) void refreshGpu();
      }
    } catch (error) {
      setStartError(errorMessage(error));
    } finally {
      setStarting(false);
    }
  };

  const created = (newWorkload: Workload) => {
    onWorkloadCreated(newWorkload);
    setChosenId(newWorkload.id);
    setCreating(false);
    setEditing(null);
  };

  const samePreview = preview !== null && preview.key === previewKey;
  /** A GPU change refused for want of root: the command to run in a terminal instead. */
  const startCommand = startError ? commandInMessage(startError) : null;
  /** Why Run cannot start yet, said beside it: never a greyed button and no reason. */
  const blocked =
    source === 'typed' && typedScript.trim() === ''
      ? 'Type the command to run.'
      : source === 'typed' && typedCwd.trim() === ''
        ? 'Give the directory the command runs in.'
        : !workload
          ? 'Choose a workload.'
          : samePreview && !preview.ok
            ? preview.error
            : null;

  return (
    <section className="new-run" ref={rootRef} aria-label="New run">
      <header className="view-header">
        <h2>New run</h2>
        <span className="spacer" />
        <button type="button" className="button" data-testid="new-workload-button" aria-expanded={creating} onClick={() => setCreating((open) => !open)}>
          + New workload
        </button>
      </header>

      {creating && <NewWorkload runs={runs} onCreated={created} onCancel={() => setCreating(false)} />}
      {editing && !creating && <NewWorkload key={editing.id} runs={runs} editing={editing} onCreated={created} onCancel={() => setEditing(null)} />}

      {initial.copied && from && (
        <p className="notice copied-run" data-testid="copied-from" role="status">
          A copy of <a href={viewHash({ kind: 'run', id: from.id })}>run #{from.id}</a>: change what you want to try, then Run. Run #{from.id} stays as it was.
          {source === 'workload' && workload && workload.variables.length === 0 && (
            <>
              {' '}
              It ran the workload <strong>{workload.name}</strong>, which has no variables: <em>Edit workload</em> changes its command (and keeps its metric
              regex), or{' '}
              <button
                type="button"
                className="link-button"
                data-testid="copy-as-typed"
                onClick={() => {
                  const typed = fieldsFromRun({ ...from, workloadId: null }, []);
                  setTypedScript(typed.typedScript);
                  setTypedCwd(typed.typedCwd);
                  setEdits((prev) => ({ ...prev, [TYPED_COMMAND_WORKLOAD_ID]: typed.values }));
                  setSource('typed');
                }}
              >
                run its command as a typed command
              </button>{' '}
              (parsed by the built-in parsers only).
            </>
          )}
        </p>
      )}
      {!creating && !editing && (
        <form className="card form" onSubmit={(event) => void start(event)}>
          <div className="source-switch" role="radiogroup" aria-label="What to run">
            <label>
              <input type="radio" name="run-source" data-testid="source-workload" checked={source === 'workload'} onChange={() => setSource('workload')} /> A
              registered workload
            </label>
            <label>
              <input type="radio" name="run-source" data-testid="source-typed" checked={source === 'typed'} onChange={() => setSource('typed')} /> A command
            </label>
          </div>
          {source === 'typed' && (
            <TypedCommandFields script={typedScript} onScript={setTypedScript} cwd={typedCwd} onCwd={setTypedCwd} defaultCwd={defaultCwd} />
          )}
          {source === 'workload' && (
            <WorkloadChoice workloads={workloads} workload={workload} onChoose={setChosenId} onEdit={setEditing} onRemoved={() => setChosenId(null)} />
          )}

          {workload && <RunVariables workload={workload} values={values} onValue={setValue} typed={source === 'typed'} />}

          <RunLimits fields={limits} onChange={setLimits} workloadTokensPerStep={workload?.tokensPerStep ?? null} />

          <KnobFields mode="run" values={knobFields} onChange={setKnobFields} />

          <GpuRunSettingsFields gpu={gpu} fields={gpuFields} onChange={setGpuFields} />

          <CommandPreview workload={workload} typed={source === 'typed'} preview={preview} previewKey={previewKey} />

          {startError && (
            <p className="form-error" role="alert" data-testid="form-error">
              {startError}
            </p>
          )}
          {startCommand && <CommandToCopy command={startCommand} />}
          <div className="actions">
            <button type="submit" className="button primary" data-testid="start-run" disabled={blocked !== null || starting}>
              {starting ? 'Starting…' : '▶ Run'}
            </button>
            {blocked !== null && (
              <span className="run-blocked" data-testid="run-blocked" role="status">
                {blocked}
              </span>
            )}
          </div>
        </form>
      )}
      {confirmDialog}
    </section>
  );
}
