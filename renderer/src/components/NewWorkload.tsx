// The New workload form: a name, a directory, an argv template, env and variables; the API's errors show inline.
import { useState, type FormEvent } from 'react';
import type { Workload } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage } from '../format.js';
import { parseWorkloadForm, type WorkloadFormFields } from '../workloadForm.js';

interface NewWorkloadProps {
  onCreated: (workload: Workload) => void;
  onCancel: () => void;
}

const EMPTY_FIELDS: WorkloadFormFields = { name: '', description: '', cwd: '', command: '', env: '', variables: '' };

export function NewWorkload({ onCreated, onCancel }: NewWorkloadProps) {
  const { api } = useBridge();
  const [fields, setFields] = useState<WorkloadFormFields>(EMPTY_FIELDS);
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
      onCreated(await api['workloads.create'](parsed.input));
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setSaving(false);
    }
  };

  return (
    <form className="card form" onSubmit={(event) => void save(event)} aria-label="New workload">
      <h3>New workload</h3>
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
      <label className="field">
        <span className="label">Command</span>
        <textarea
          data-testid="workload-command"
          className="mono"
          rows={5}
          placeholder={'python\ntrain.py\n--batch_size\n{batch}'}
          spellCheck={false}
          {...field('command')}
        />
        <span className="hint">
          One argument per line, exactly as typed: no shell, no quoting, spaces stay inside their argument. Write{' '}
          <code>{'{name}'}</code> where a variable’s value goes.
        </span>
      </label>
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
          <textarea
            data-testid="workload-variables"
            className="mono"
            rows={3}
            placeholder={'batch=8\nworkers=4'}
            spellCheck={false}
            {...field('variables')}
          />
          <span className="hint">
            <code>name=default</code> per line.
          </span>
        </label>
      </div>
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
