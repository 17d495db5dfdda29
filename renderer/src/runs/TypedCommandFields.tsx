// New run's typed command: the script for /bin/sh -c and the directory it runs in.
import { CommandInput, Field } from '../shared/Field.js';

export interface TypedCommandFieldsProps {
  script: string;
  onScript: (script: string) => void;
  cwd: string;
  onCwd: (cwd: string) => void;
  /** Where Tuning Bench was started: offered when the directory is something else. */
  defaultCwd: string;
}

export function TypedCommandFields({ script, onScript, cwd, onCwd, defaultCwd }: TypedCommandFieldsProps) {
  return (
    <>
      <Field
        label="Command"
        hint={
          <>
            Run with <code>/bin/sh -c</code>. Each <code>{'{name}'}</code> becomes a variable below; its value is shell-quoted, one word whatever it holds.
            Nothing is saved as a workload.
          </>
        }
      >
        <CommandInput testId="typed-command" rows={3} placeholder="python train.py --batch_size {batch} --amp {amp}" value={script} onChange={onScript} />
      </Field>
      <label className="field">
        <span className="label">Working directory</span>
        <input className="mono" data-testid="typed-cwd" placeholder="/home/me/project" value={cwd} onChange={(event) => onCwd(event.target.value)} />
        {defaultCwd !== '' && cwd.trim() !== defaultCwd && (
          <span className="hint">
            <button type="button" className="link-button" data-testid="typed-cwd-default" onClick={() => onCwd(defaultCwd)}>
              Use {defaultCwd}
            </button>{' '}
            (where Tuning Bench was started)
          </span>
        )}
      </label>
    </>
  );
}
