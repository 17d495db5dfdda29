// Why a sweep's configs failed, each in its own words (the run's reason), with what to do when a side missed a path
// your tree has (data git does not track, not linked): shown on the sweep, before/after and comparison pages.
import type { Sweep } from '../../../../electron/shared/api.js';
import { viewHash } from '../../route.js';
import './SweepFailures.css';

export function SweepFailures({ sweep }: { sweep: Sweep }) {
  const failed = sweep.configs.filter((config) => config.failure !== null);
  if (failed.length === 0) return null;
  return (
    <div className="sweep-failures" role="alert" data-testid="sweep-failures">
      <h3>{failed.length === sweep.configs.length ? 'Every config failed' : `${failed.length} of ${sweep.configs.length} configs failed`}</h3>
      <ul>
        {failed.map((config) => (
          <li key={config.index} data-testid={`sweep-failure-${config.index}`}>
            <span className="config-name mono">{config.name}</span>:{' '}
            <a href={viewHash({ kind: 'run', id: config.failure!.runId })}>run #{config.failure!.runId}</a>{' '}
            {config.failure!.exitClass ? `(${config.failure!.exitClass}) ` : ''}
            <code className="failure-reason" data-testid="sweep-failure-reason">
              {config.failure!.reason}
            </code>
            {config.failure!.hint && (
              <p className="hint failure-hint" data-testid="sweep-failure-hint">
                {config.failure!.hint}
              </p>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
