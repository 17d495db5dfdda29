// A finished run's warm-up and left-out steps set by hand: its summary is made again from what it stored, no re-run.
import { useState, type FormEvent } from 'react';
import type { Run } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage } from '../shared/format.js';
import { parseStepChoices } from './stepChoicesText.js';

export function RunSteps({ run }: { run: Run }) {
  const { api } = useBridge();
  const [warmup, setWarmup] = useState(run.steps?.warmupSteps === null || run.steps === null ? '' : String(run.steps.warmupSteps));
  const [exclude, setExclude] = useState(run.steps?.excludeSteps.join(', ') ?? '');
  const [state, setState] = useState<{ busy: boolean; error: string | null; done: string | null }>({ busy: false, error: null, done: null });
  const parsed = parseStepChoices(warmup, exclude);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!parsed.ok) return;
    setState({ busy: true, error: null, done: null });
    api['runs.setSteps']({ id: run.id, ...parsed.value }).then(
      (updated) => setState({ busy: false, error: null, done: `Summary made again: ${updated.summary.steadySteps ?? 0} steady steps.` }),
      (error: unknown) => setState({ busy: false, error: errorMessage(error), done: null }),
    );
  };
  return (
    <form className="run-steps" data-testid="run-steps" onSubmit={submit} aria-label="Warm-up and left-out steps">
      <label className="field">
        <span className="label">Warm-up steps</span>
        <input
          data-testid="run-steps-warmup"
          inputMode="numeric"
          placeholder="auto"
          value={warmup}
          onChange={(event) => setWarmup(event.target.value)}
          size={6}
        />
      </label>
      <label className="field">
        <span className="label">Leave out steps</span>
        <input
          data-testid="run-steps-exclude"
          className="mono"
          placeholder="40, 41, 90-95"
          value={exclude}
          onChange={(event) => setExclude(event.target.value)}
          size={18}
        />
      </label>
      <button type="submit" className="button small" data-testid="run-steps-apply" disabled={!parsed.ok || state.busy}>
        {state.busy ? 'Summarising…' : 'Apply'}
      </button>
      <span className="hint" data-testid="run-steps-note">
        {!parsed.ok
          ? parsed.error
          : (state.error ??
            state.done ??
            `Set by hand where the rules get it wrong; the summary is made again from the stored output${run.steps ? ` (now set by the ${run.steps.setBy})` : ''}.`)}
      </span>
    </form>
  );
}
