// The GPU view: the control state (persistence, clocks, locks, power, processes, how changes get root), the manual
// changes (persistence, clock locks, power limit) with their answers in full, and the manual changes in force.
import { useCallback, useEffect, useId, useState } from 'react';
import type { GpuControlState, GpuJournalEntry, MethodInput } from '../../../electron/shared/api.js';
import { describeOperation, type GpuOperation } from '../../../electron/shared/gpuSettings.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage, formatDateTime } from '../shared/format.js';
import { useGpuStatus, type GpuStatus } from '../shared/gpuSettings/gpuStatus.js';
import {
  checkClockField,
  checkWattsField,
  clockHint,
  describeRange,
  describeSupported,
  powerHint,
  powerRange,
  watts,
  type FieldCheck,
} from '../shared/gpuSettings/gpuText.js';
import { GpuMessage, type GpuOutcome } from '../shared/gpuSettings/GpuMessage.js';
import { useOtherProcessesConfirm } from '../shared/gpuSettings/OtherProcessesConfirm.js';
import '../shared/gpuSettings/gpu.css';

type ApplyOperation = MethodInput<'gpu.apply'>['operation'];

function onOff(value: boolean | null): string {
  return value === null ? 'unknown' : value ? 'on' : 'off';
}

/** Plain digits, as nvidia-smi prints clocks and as the lock fields take them. */
function mhz(value: number | null): string {
  return value === null ? '–' : `${value} MHz`;
}

function StateFacts({ status, state }: { status: GpuStatus; state: GpuControlState }) {
  const { clocks, power } = state;
  const range = powerRange(power);
  const graphics = describeSupported(state.supportedGraphicsMHz);
  const memory = describeSupported(state.supportedMemoryMHz);
  return (
    <dl className="gpu-facts gpu-state" data-testid="gpu-state">
      <div>
        <dt>Persistence mode</dt>
        <dd data-testid="gpu-state-persistence">{onOff(state.persistenceMode)}</dd>
      </div>
      <div>
        <dt>Clocks now</dt>
        <dd>
          graphics {mhz(clocks.graphicsMHz)} · memory {mhz(clocks.memMHz)}
        </dd>
      </div>
      <div>
        <dt>Clocks max</dt>
        <dd>
          graphics {mhz(clocks.maxGraphicsMHz)} · memory {mhz(clocks.maxMemMHz)}
        </dd>
      </div>
      <div title="nvidia-smi does not report clock locks: these are the ones Tuning Bench set (a run's, or a manual one since boot)">
        <dt>GPU clock lock</dt>
        <dd data-testid="gpu-state-clock-lock">{describeRange(state.locks.clocks)}</dd>
      </div>
      <div title="nvidia-smi does not report clock locks: these are the ones Tuning Bench set (a run's, or a manual one since boot)">
        <dt>Memory clock lock</dt>
        <dd data-testid="gpu-state-memory-clock-lock">{describeRange(state.locks.memoryClocks)}</dd>
      </div>
      <div>
        <dt>Power limit</dt>
        <dd data-testid="gpu-state-power">
          {watts(power.limitW)}
          {power.requestedLimitW !== null && power.requestedLimitW !== power.limitW && ` (requested ${watts(power.requestedLimitW)})`}
          {` · default ${watts(power.defaultLimitW)}`}
          {range && ` · range ${range}`}
          {power.drawW !== null && ` · drawing ${watts(power.drawW)}`}
        </dd>
      </div>
      <div>
        <dt>Supported clocks</dt>
        <dd data-testid="gpu-state-supported">
          {graphics === null && memory === null ? 'not listed by this driver' : `graphics ${graphics ?? 'not listed'} · memory ${memory ?? 'not listed'}`}
        </dd>
      </div>
      <div>
        <dt>Processes</dt>
        <dd data-testid="gpu-state-processes">
          {state.processes.length === 0
            ? 'none'
            : state.processes
                .map((p) => `${p.name ?? 'unknown'} (pid ${p.pid}${p.usedMemoryMiB === null ? '' : `, ${p.usedMemoryMiB.toLocaleString()} MiB`})`)
                .join(', ')}
        </dd>
      </div>
      <div>
        <dt>Changes go through</dt>
        <dd data-testid="gpu-elevation">
          <strong>{status.elevation.mode}</strong> — {status.elevation.detail}
        </dd>
      </div>
      {status.heldBy && (
        <div>
          <dt>Held by</dt>
          <dd data-testid="gpu-held-by">{status.heldBy}, until it ends</dd>
        </div>
      )}
    </dl>
  );
}

interface ValueActionProps {
  label: string;
  testId: string;
  value: string;
  onChange: (text: string) => void;
  placeholder: string;
  check: FieldCheck<unknown>;
  hint: string;
  disabled: boolean;
  actionLabel: string;
  onAction: () => void;
  /** A second button (Reset, Default) beside the first. */
  extra?: { label: string; testId: string; onClick: () => void; disabled?: boolean };
}

/** A value to type, with its hint and, as it is typed, why it will not do; the button waits for a valid one. */
function ValueAction(props: ValueActionProps) {
  const id = useId();
  const invalid = props.check.state === 'invalid';
  return (
    <div className="field gpu-action">
      <label className="label" htmlFor={id}>
        {props.label}
      </label>
      <div className="input-with-buttons">
        <input
          id={id}
          className="mono"
          data-testid={`${props.testId}-input`}
          value={props.value}
          placeholder={props.placeholder}
          spellCheck={false}
          aria-invalid={invalid}
          aria-describedby={`${id}-hint`}
          onChange={(event) => props.onChange(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && props.check.state === 'ok' && !props.disabled) props.onAction();
          }}
        />
        <button type="button" className="button" data-testid={props.testId} disabled={props.disabled || props.check.state !== 'ok'} onClick={props.onAction}>
          {props.actionLabel}
        </button>
        {props.extra && (
          <button
            type="button"
            className="button"
            data-testid={props.extra.testId}
            disabled={props.disabled || props.extra.disabled === true}
            onClick={props.extra.onClick}
          >
            {props.extra.label}
          </button>
        )}
      </div>
      <span className="hint" id={`${id}-hint`}>
        {props.hint}
      </span>
      {props.check.state === 'invalid' && (
        <span className="field-error" role="alert" data-testid={`${props.testId}-error`}>
          {props.check.error}
        </span>
      )}
    </div>
  );
}

function ManualChanges({ entries }: { entries: readonly GpuJournalEntry[] }) {
  return (
    <section className="card gpu-manual" aria-labelledby="gpu-manual-title">
      <h3 id="gpu-manual-title">Manual changes in force</h3>
      <p className="hint">They stay until you reset them or the machine reboots; runs with GPU settings restore to them.</p>
      {entries.length === 0 ? (
        <p className="hint" data-testid="gpu-manual-none">
          None: the GPU runs as its driver set it.
        </p>
      ) : (
        <ul className="gpu-journal" data-testid="gpu-manual">
          {entries.map((entry) => (
            <li key={entry.id}>
              <span className="gpu-journal-what">{entry.description}</span>
              <span className="gpu-journal-when">since {formatDateTime(entry.createdAt)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Changes({ status, state }: { status: GpuStatus; state: GpuControlState }) {
  const { api } = useBridge();
  const { refresh } = useGpuStatus();
  const recheck = useCallback(async () => (await refresh())?.state?.processes ?? [], [refresh]);
  const { dialog, guard } = useOtherProcessesConfirm(recheck);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<GpuOutcome | null>(null);
  const [clockText, setClockText] = useState('');
  const [memoryText, setMemoryText] = useState('');
  const [powerText, setPowerText] = useState('');

  const clockCheck = checkClockField(clockText, 'a GPU clock lock');
  const memoryCheck = checkClockField(memoryText, 'a memory clock lock');
  const powerCheck = checkWattsField(powerText);
  const held = status.heldBy !== null;

  /** `what` is the operation as parsed here (the engine gets the text), for the confirmation's words. */
  const apply = async (operation: ApplyOperation, what: GpuOperation) => {
    setBusy(true);
    setOutcome(null);
    try {
      const processes = what.kind === 'persistence' ? [] : state.processes;
      const result = await guard(processes, describeOperation(what), (confirmOtherProcesses) => api['gpu.apply']({ operation, confirmOtherProcesses }));
      setOutcome(
        result.done
          ? { ok: true, title: `Done: ${describeOperation(what)}`, message: result.value.message, warnings: result.value.warnings }
          : { ok: true, title: null, message: 'Cancelled: nothing was changed.', warnings: [] },
      );
    } catch (failure) {
      setOutcome({ ok: false, message: errorMessage(failure) });
    } finally {
      await refresh();
      setBusy(false);
    }
  };

  return (
    <section className="card gpu-changes" aria-labelledby="gpu-changes-title">
      <h3 id="gpu-changes-title">Change</h3>
      <p className="hint">Manual changes stay after Tuning Bench exits. For settings that hold for one run only, use the GPU settings of the New run form.</p>
      {held && (
        <p className="gpu-held-note" role="status">
          {status.heldBy} holds this GPU&apos;s settings until it ends: clocks and power can change after it.
        </p>
      )}
      <div className="field gpu-action">
        <span className="label">Persistence mode</span>
        <div className="input-with-buttons">
          <div className="button-group" role="group" aria-label="Persistence mode">
            {[true, false].map((enabled) => (
              <button
                key={String(enabled)}
                type="button"
                className="button toggle"
                data-testid={`gpu-persistence-${enabled ? 'on' : 'off'}`}
                aria-pressed={state.persistenceMode === enabled}
                disabled={busy || state.persistenceMode === enabled}
                onClick={() => void apply({ kind: 'persistence', enabled }, { kind: 'persistence', enabled })}
              >
                {enabled ? 'On' : 'Off'}
              </button>
            ))}
          </div>
        </div>
        <span className="hint">Keeps the driver loaded between runs, so the first seconds of a run are not spent waking the GPU.</span>
      </div>
      <ValueAction
        label="Lock GPU clocks"
        testId="gpu-lock-clocks"
        value={clockText}
        onChange={setClockText}
        placeholder="e.g. 2100 or 1500,2100"
        check={clockCheck}
        hint={clockHint(state.supportedGraphicsMHz, state.clocks.maxGraphicsMHz)}
        disabled={busy || held}
        actionLabel="Lock"
        onAction={() => {
          if (clockCheck.state === 'ok') void apply({ kind: 'lockClocks', range: clockCheck.text }, { kind: 'lockClocks', range: clockCheck.value });
        }}
        extra={{ label: 'Reset', testId: 'gpu-reset-clocks', onClick: () => void apply({ kind: 'resetClocks' }, { kind: 'resetClocks' }) }}
      />
      <ValueAction
        label="Lock memory clocks"
        testId="gpu-lock-memory-clocks"
        value={memoryText}
        onChange={setMemoryText}
        placeholder="e.g. 10501 or 5001,10501"
        check={memoryCheck}
        hint={clockHint(state.supportedMemoryMHz, state.clocks.maxMemMHz)}
        disabled={busy || held}
        actionLabel="Lock"
        onAction={() => {
          if (memoryCheck.state === 'ok') {
            void apply({ kind: 'lockMemoryClocks', range: memoryCheck.text }, { kind: 'lockMemoryClocks', range: memoryCheck.value });
          }
        }}
        extra={{
          label: 'Reset',
          testId: 'gpu-reset-memory-clocks',
          onClick: () => void apply({ kind: 'resetMemoryClocks' }, { kind: 'resetMemoryClocks' }),
        }}
      />
      <ValueAction
        label="Power limit (W)"
        testId="gpu-power-limit"
        value={powerText}
        onChange={setPowerText}
        placeholder={state.power.defaultLimitW === null ? 'e.g. 300' : `e.g. ${state.power.defaultLimitW}`}
        check={powerCheck}
        hint={powerHint(state.power)}
        disabled={busy || held}
        actionLabel="Set"
        onAction={() => {
          if (powerCheck.state === 'ok') void apply({ kind: 'powerLimit', watts: powerCheck.text }, { kind: 'powerLimit', watts: powerCheck.value });
        }}
        extra={
          state.power.defaultLimitW === null
            ? undefined
            : {
                label: `Default (${watts(state.power.defaultLimitW)})`,
                testId: 'gpu-default-power',
                disabled: state.power.limitW === state.power.defaultLimitW,
                onClick: () => {
                  const defaultW = state.power.defaultLimitW!;
                  void apply({ kind: 'powerLimit', watts: String(defaultW) }, { kind: 'powerLimit', watts: defaultW });
                },
              }
        }
      />
      {busy && (
        <p className="hint" role="status">
          Asking nvidia-smi…
        </p>
      )}
      {outcome && <GpuMessage outcome={outcome} testId="gpu-outcome" />}
      {dialog}
    </section>
  );
}

export function GpuControl() {
  const { status, error, loading, refresh } = useGpuStatus();
  // Asked afresh whenever the view opens: clocks, power and processes change by the second.
  useEffect(() => {
    void refresh();
  }, [refresh]);

  const state = status?.state ?? null;
  return (
    <section className="gpu-control" aria-label="GPU control" data-testid="gpu-control">
      <header className="view-header">
        <h2>GPU control</h2>
        {state && (
          <span className="gpu-control-name" data-testid="gpu-control-name">
            GPU {state.index} · {state.name ?? 'unnamed'}
            {state.uuid && <span className="mono gpu-control-uuid"> {state.uuid}</span>}
          </span>
        )}
        <span className="spacer" />
        <button type="button" className="button small" data-testid="gpu-control-refresh" disabled={loading} onClick={() => void refresh()}>
          {loading ? 'Reading…' : 'Refresh'}
        </button>
      </header>
      {error && (
        <p className="inline-error gpu-control-error" role="alert">
          Could not read the GPU status: {error}
        </p>
      )}
      {status === null && !error && <p className="placeholder">Asking nvidia-smi…</p>}
      {status && (!status.available || state === null) && (
        <div className="card gpu-unavailable" role="status" data-testid="gpu-control-unavailable">
          <p className="gpu-unavailable-title">No NVIDIA GPU: {status.reason ?? 'nvidia-smi gave no state'}</p>
          <p className="hint">Runs get host telemetry only, and there is nothing here to lock.</p>
        </div>
      )}
      {status && state && (
        <>
          <section className="card" aria-label="State">
            <StateFacts status={status} state={state} />
          </section>
          <Changes status={status} state={state} />
          <ManualChanges entries={status.manual} />
        </>
      )}
    </section>
  );
}
