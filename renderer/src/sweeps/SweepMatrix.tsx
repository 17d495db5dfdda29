// A sweep's comparison matrix: each config with its status (OOM marked), links to its runs, and its pooled figures
// (throughput, speedup over the baseline, step time, final loss, peak VRAM).
import type { Sweep } from '../../../electron/shared/api.js';
import { formatNumber } from '../shared/format.js';
import { viewHash } from '../route.js';
import { formatSpeedup, speedup } from './sweepText.js';
import { ConfigStatusBadge } from './SweepStatus.js';
import './sweeps.css';

/**
 * Colour only beyond a few percent: run-to-run spread of a steady throughput is about that much, and a colour reads
 * as a verdict, which takes the repeats' spread and a confidence interval to give.
 */
const NOISE_BAND = 0.03;

function speedupTone(ratio: number | null): string {
  if (ratio === null || Math.abs(ratio - 1) <= NOISE_BAND) return '';
  return ratio > 1 ? 'faster' : 'slower';
}

export function SweepMatrix({ sweep }: { sweep: Sweep }) {
  const baseline = sweep.configs[0];
  const finder = sweep.kind === 'batch-finder';
  const current = sweep.progress.currentRunId;
  if (sweep.configs.length === 0) {
    return <p className="hint sweep-matrix-empty">{finder ? 'No probe has run yet.' : 'This sweep has no configs.'}</p>;
  }
  return (
    <div className="table-scroll">
      <table className="sweep-table sweep-matrix" data-testid="sweep-matrix">
        <thead>
          <tr>
            <th>#</th>
            <th>{finder ? 'Probe' : 'Config'}</th>
            <th>Status</th>
            <th>Runs</th>
            <th className="num">Throughput</th>
            {!finder && <th className="num">Speedup</th>}
            <th className="num">Step time</th>
            <th className="num">Final loss</th>
            <th className="num">Peak VRAM</th>
          </tr>
        </thead>
        <tbody>
          {sweep.configs.map((config) => {
            const ratio = finder ? null : speedup(config, baseline);
            return (
              <tr key={config.index} data-testid={`sweep-config-${config.index}`} className={`config-row config-row-${config.status}`}>
                <td className="num">{config.index}</td>
                <td>
                  <span className="config-name mono">{config.name}</span>
                  {!finder && config.changes.length > 1 && <span className="config-changes hint mono">{config.changes.join(' ')}</span>}
                </td>
                <td>
                  <ConfigStatusBadge status={config.status} />
                </td>
                <td>
                  <span className="run-links">
                    {config.runIds.length === 0 && <span className="hint">–</span>}
                    {config.runIds.map((runId) => (
                      <a
                        key={runId}
                        href={viewHash({ kind: 'run', id: runId })}
                        className={`run-link ${runId === current ? 'current' : ''}`}
                        data-testid="run-link"
                        title={runId === current ? `run #${runId}, running now` : `run #${runId}`}
                      >
                        #{runId}
                      </a>
                    ))}
                  </span>
                </td>
                <td className="num" data-testid="config-throughput">
                  {formatNumber(config.throughputMedian)}
                  {config.throughputMedian !== null && config.throughputUnit && <span className="unit"> {config.throughputUnit}</span>}
                </td>
                {!finder && (
                  <td
                    className={`num speedup ${config.index === 0 ? '' : speedupTone(ratio)}`}
                    data-testid={`speedup-${config.index}`}
                    data-value={ratio ?? ''}
                  >
                    {config.index === 0 ? (config.throughputMedian === null ? '–' : 'baseline') : formatSpeedup(ratio)}
                  </td>
                )}
                <td className="num">{config.stepTimeMsMedian === null ? '–' : `${formatNumber(config.stepTimeMsMedian)} ms`}</td>
                <td className="num">{formatNumber(config.finalLossMedian, 4)}</td>
                <td className="num">{config.vramPeakMiB === null ? '–' : `${Math.round(config.vramPeakMiB).toLocaleString()} MiB`}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
