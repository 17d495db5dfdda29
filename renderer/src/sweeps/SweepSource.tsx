// New sweep's first section: what is swept (a registered workload, or a command typed with {placeholders}), and its name.
import type { TypedCommand, Workload } from '../../../electron/shared/api.js';
import { CommandInput, Field } from '../shared/Field.js';
import { SaveTypedAsWorkload } from '../shared/runForm/SaveTypedAsWorkload.js';
import { WorkloadOptions } from '../shared/runForm/WorkloadOptions.js';
import { baselineValues, initialSweepFields, type SweepSectionProps } from './sweepForm.js';

export interface SweepSourceProps extends SweepSectionProps {
  workloads: readonly Workload[];
  /** The workload the sweep runs: the registered one chosen, or the typed command's. */
  workload: Workload | null;
  /** The registered workload chosen (or the default), also while a command is typed: switching back starts from it. */
  registered: Workload | null;
  typedCommand: TypedCommand | null;
  typedWorkload: Workload | null;
  onChooseWorkload: (chosen: Workload) => void;
}

export function SweepSource({ fields, onChange: setFields, workloads, workload, registered, typedCommand, typedWorkload, onChooseWorkload }: SweepSourceProps) {
  const typed = fields.source === 'typed';
  return (
    <>
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
          <input type="radio" name="sweep-source" data-testid="sweep-source-typed" checked={typed} onChange={() => setFields({ source: 'typed' })} /> A command
        </label>
      </div>
      {typed && (
        <>
          <Field
            label="Command"
            hint={
              <>
                Run with <code>/bin/sh -c</code>. Each <code>{'{name}'}</code> is a variable to vary or share below; every value is shell-quoted by the app, one
                word whatever it holds. Nothing needs saving as a workload.
              </>
            }
          >
            <CommandInput
              testId="sweep-typed-command"
              rows={3}
              placeholder="python train.py --batch_size {batch} --amp {amp}"
              value={fields.typedScript}
              onChange={(typedScript) => setFields({ typedScript })}
            />
          </Field>
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
                if (chosen) onChooseWorkload(chosen);
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
    </>
  );
}
