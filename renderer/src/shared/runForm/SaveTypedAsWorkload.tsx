// Save a typed command as a workload, when the person wants it again (the batch finder, estimates from its runs); never required.
import { useState } from 'react';
import type { TypedCommand, Workload } from '../../../../electron/shared/api.js';
import { adHocWorkload } from '../../../../electron/shared/typedCommand.js';
import { useBridge } from '../../bridge/context.js';
import { errorMessage } from '../format.js';
import './SaveTypedAsWorkload.css';

interface SaveTypedAsWorkloadProps {
  command: TypedCommand;
  /** Each placeholder's default in the saved workload: the value the form's baseline gives it. */
  defaults: Record<string, string>;
  onSaved: (workload: Workload) => void;
}

export function SaveTypedAsWorkload({ command, defaults, onSaved }: SaveTypedAsWorkloadProps) {
  const { api } = useBridge();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);

  if (!open) {
    return (
      <div className="save-typed">
        <button type="button" className="button small" data-testid="save-typed-open" onClick={() => setOpen(true)}>
          Save as workload…
        </button>
        <span className="hint"> Optional: a workload can be swept again by name, and its runs estimate the next sweep.</span>
      </div>
    );
  }

  const save = async () => {
    setSaving(true);
    setError(null);
    try {
      // The typed command as the engine would run it, under its new name, each placeholder's default the baseline's value.
      const { id: _id, builtin: _builtin, createdAt: _createdAt, ...asWorkload } = adHocWorkload(command);
      const variables = asWorkload.variables.map((variable) => ({ ...variable, default: defaults[variable.name] ?? '' }));
      const saved = await api['workloads.create']({ ...asWorkload, name, variables });
      onSaved(saved);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="save-typed" role="group" aria-label="Save the command as a workload">
      <label className="input-with-unit">
        <span className="unit">Workload name</span>
        <input data-testid="save-typed-name" value={name} placeholder="my-training" onChange={(event) => setName(event.target.value)} />
      </label>
      <button type="button" className="button small primary" data-testid="save-typed-save" disabled={saving || name.trim() === ''} onClick={() => void save()}>
        {saving ? 'Saving…' : 'Save'}
      </button>
      <button type="button" className="button small" onClick={() => setOpen(false)}>
        Cancel
      </button>
      {error && (
        <p className="inline-error" role="alert" data-testid="save-typed-error">
          {error}
        </p>
      )}
    </div>
  );
}
