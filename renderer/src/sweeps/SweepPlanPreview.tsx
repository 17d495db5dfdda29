// The plan a sweep would run, before it runs: every config with its changes, its exact command and env, the run count
// and how long it should take (or why there is no estimate).
import type { SweepPreview } from '../../../electron/shared/api.js';
import { formatDuration, formatEnvAssignments, shellQuote } from '../shared/format.js';
import './sweeps.css';

/** An argument longer than this may break inside; shorter ones wrap only between arguments (never after `--`). */
const UNBREAKABLE_ARG_CHARS = 48;

/** The argv as a shell would show it, wrapping between arguments; the text copies as one line. */
function CommandWords({ argv }: { argv: readonly string[] }) {
  return (
    <>
      {argv.map((arg, index) => {
        const quoted = shellQuote(arg);
        return (
          <span key={index}>
            {index > 0 && ' '}
            <span className={quoted.length <= UNBREAKABLE_ARG_CHARS ? 'arg' : undefined}>{quoted}</span>
          </span>
        );
      })}
    </>
  );
}

export function SweepPlanPreview({ preview, repeats, stale }: { preview: SweepPreview; repeats: number; stale: boolean }) {
  const cwds = new Set(preview.configs.map((config) => config.cwd));
  const sharedCwd = cwds.size === 1 ? [...cwds][0] : null;
  const configs = preview.configs.length;
  return (
    <div className={`sweep-plan ${stale ? 'stale' : ''}`} data-testid="sweep-plan" aria-live="polite">
      <div className="sweep-plan-summary">
        <strong data-testid="plan-run-count">
          {configs} {configs === 1 ? 'config' : 'configs'} × {repeats} {repeats === 1 ? 'repeat' : 'repeats'} = {preview.runCount}{' '}
          {preview.runCount === 1 ? 'run' : 'runs'}
        </strong>
        <span data-testid="plan-estimate">{preview.estimateSeconds === null ? 'no estimate' : `about ${formatDuration(preview.estimateSeconds * 1000)}`}</span>
        <span className="hint" data-testid="plan-estimate-basis">
          ({preview.estimateBasis})
        </span>
      </div>
      {sharedCwd !== null && (
        <p className="hint">
          Each runs in <code>{sharedCwd}</code>, repeats interleaved (A B C, A B C…) so slow drift touches every config alike.
        </p>
      )}
      <div className="table-scroll">
        <table className="sweep-table plan-table" data-testid="plan-table">
          <thead>
            <tr>
              <th>#</th>
              <th>Config</th>
              <th>Changes from the baseline</th>
              <th>Command</th>
            </tr>
          </thead>
          <tbody>
            {preview.configs.map((config) => {
              const env = formatEnvAssignments(config.env);
              return (
                <tr key={config.index} data-testid={`plan-config-${config.index}`}>
                  <td className="num">{config.index}</td>
                  <td>
                    <span className="config-name mono">{config.name}</span>
                  </td>
                  <td>
                    {config.changes.length === 0 ? (
                      <span className="hint">the baseline</span>
                    ) : (
                      <ul className="chips">
                        {config.changes.map((change) => (
                          <li key={change} className="chip">
                            {change}
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td className="command-cell">
                    <pre className="command-line" data-testid="plan-command">
                      {env && <span className="env">{env} </span>}
                      <CommandWords argv={config.command} />
                    </pre>
                    {sharedCwd === null && <span className="hint mono">in {config.cwd}</span>}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
}
