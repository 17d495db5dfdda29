// The New workload form: a name, a directory, a command (argv lines or a shell script), env, variables and how to read
// its metrics (tokens per step, a regex tried live); the API's errors show inline.
import { useState, type FormEvent } from 'react';
import type { Run, Workload } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage } from '../shared/format.js';
import { parseWorkloadForm, workloadToForm, type CommandMode, type WorkloadFormFields } from './workloadForm.js';
import { RegexTester } from './RegexTester.js';
import './NewRun.css';

interface NewWorkloadProps {
  /** Stored runs, newest first, to try the metric regex on. */
  runs: readonly Run[];
  onCreated: (workload: Workload) => void;
  onCancel: () => void;
  /** A workload the user registered, to change instead of creating a new one. */
  editing?: Workload | null;
}

const EMPTY_FIELDS: WorkloadFormFields = {
  name: '',
  mode: 'argv',
  description: '',
  cwd: '',
  command: '',
  env: '',
  variables: '',
  tokensPerStep: '',
  metricRegex: '',
};

const COMMAND_PLACEHOLDERS: Record<CommandMode, string> = {
  argv: 'python\ntrain.py\n--batch_size\n{batch}',
  shell: 'source .venv/bin/activate\npython train.py --batch_size {batch} 2>&1 | tee train.log',
};

export function NewWorkload({ runs, onCreated, onCancel, editing = null }: NewWorkloadProps) {
  const { api } = useBridge();
  const [fields, setFields] = useState<WorkloadFormFields>(() => (editing ? workloadToForm(editing) : EMPTY_FIELDS));
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const field = (key: keyof WorkloadFormFields) => ({
    value: fields[key],
    onChange: (event: { target: { value: string } }) => setFields((prev) => ({ ...prev, [key]: event.target.value })),
  });

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = parseWorkloadForm(fields);
    if (!parsed.ok) {
      setError(parsed.error);
      return;
    }
    setSaving(true);
    setError(null);
    try {
      onCreated(editing ? await api['workloads.update']({ id: editing.id, workload: parsed.input }) : await api['workloads.create'](parsed.input));
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setSaving(false);
    }
  };

  return (
    <form className="card form" onSubmit={(event) => void save(event)} aria-label={editing ? 'Edit workload' : 'New workload'}>
      <h3>{editing ? `Edit ${editing.name}` : 'New workload'}</h3>
      {editing && (
        <p className="hint">
          Runs already made keep the command they ran. A changed metric regex applies to them when you parse them again (Parse again on a run).
        </p>
      )}
      <label className="field">
        <span className="label">Name</span>
        <input data-testid="workload-name" placeholder="char-lm" autoFocus {...field('name')} />
      </label>
      <label className="field">
        <span className="label">Description</span>
        <input data-testid="workload-description" placeholder="optional" {...field('description')} />
      </label>
      <label className="field">
        <span className="label">Working directory</span>
        <input data-testid="workload-cwd" className="mono" placeholder="/home/me/project" {...field('cwd')} />
        <span className="hint">
          Absolute path. <code>{'{resources}'}</code> names the app’s bundled resources.
        </span>
      </label>
      <div className="field">
        <div className="label-row">
          <label className="label" htmlFor="workload-command">
            Command
          </label>
          <select
            className="mode-select"
            data-testid="workload-mode"
            aria-label="How the command is given"
            value={fields.mode}
            onChange={(event) => setFields((prev) => ({ ...prev, mode: event.target.value as CommandMode }))}
          >
            <option value="argv">Arguments (one per line)</option>
            <option value="shell">Shell script</option>
          </select>
        </div>
        <textarea
          id="workload-command"
          data-testid="workload-command"
          className="mono"
          rows={5}
          placeholder={COMMAND_PLACEHOLDERS[fields.mode]}
          spellCheck={false}
          {...field('command')}
        />
        {fields.mode === 'argv' ? (
          <span className="hint">
            One argument per line, exactly as typed: no shell, no quoting, spaces stay inside their argument. Write <code>{'{name}'}</code> where a variable’s
            value goes.
          </span>
        ) : (
          <span className="hint">
            One script, run with <code>/bin/sh -c</code>: pipes, <code>&amp;&amp;</code>, redirections and <code>source</code> work. Values are substituted
            shell-quoted: <code>{'{name}'}</code> becomes one word whatever the value holds, so write it without quotes around it.
          </span>
        )}
      </div>
      <div className="field-row">
        <label className="field">
          <span className="label">Environment</span>
          <textarea
            data-testid="workload-env"
            className="mono"
            rows={3}
            placeholder={'CUDA_VISIBLE_DEVICES=0\nTORCH_COMPILE=1'}
            spellCheck={false}
            {...field('env')}
          />
          <span className="hint">
            <code>KEY=VALUE</code> per line, added to the app’s environment.
          </span>
        </label>
        <label className="field">
          <span className="label">Variables</span>
          <textarea data-testid="workload-variables" className="mono" rows={3} placeholder={'batch=8\nworkers=4'} spellCheck={false} {...field('variables')} />
          <span className="hint">
            <code>name=default</code> per line.
          </span>
        </label>
      </div>
      <fieldset className="metrics-fields">
        <legend>Metrics</legend>
        <label className="field tokens-per-step">
          <span className="label">Tokens per step</span>
          <input data-testid="workload-tokens-per-step" className="mono" placeholder="{batch} * {seq_len}" spellCheck={false} {...field('tokensPerStep')} />
          <span className="hint">
            Optional, e.g. <code>{'{batch} * {seq_len}'}</code>: used to derive tokens/s when the log prints only step times.
          </span>
        </label>
        <div className="field">
          <label className="label" htmlFor="workload-metric-regex">
            Metric regex
          </label>
          <input
            id="workload-metric-regex"
            data-testid="workload-metric-regex"
            className="mono"
            placeholder={'step (?<step>\\d+).*loss (?<loss>[\\d.]+)'}
            spellCheck={false}
            {...field('metricRegex')}
          />
          <span className="hint">
            Optional, beside the built-in parsers: each named group becomes a metric; a group named <code>step</code> is the step.
          </span>
          <RegexTester pattern={fields.metricRegex} runs={runs} />
        </div>
      </fieldset>
      {error && (
        <p className="form-error" role="alert" data-testid="form-error">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="button primary" data-testid="save-workload" disabled={saving}>
          {saving ? 'Saving…' : 'Save workload'}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
