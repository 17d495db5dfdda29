// How New sweep's runs are measured: the work in one step (so throughput is per sample or token), warm-up steps, and
// the wait for a quiet host and an idle, cool GPU before each run.
import { WorkKindOptions } from '../shared/runForm/WorkKindOptions.js';
import type { Workload } from '../../../electron/shared/api.js';
import { suggestedWork, type SweepFields, type SweepSectionProps } from './sweepForm.js';

export function SweepMeasureFields({ fields, onChange: setFields, workload }: SweepSectionProps & { workload: Workload | null }) {
  return (
    <>
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
            <WorkKindOptions />
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
          <input type="checkbox" data-testid="sweep-wait" checked={fields.waitForIdle} onChange={(event) => setFields({ waitForIdle: event.target.checked })} />
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
    </>
  );
}
