// A sweep's comparison matrix: each config with its status (OOM marked), links to its runs, and its pooled figures
// (throughput, speedup over the baseline with the comparison's verdict, step time, final loss, peak VRAM).
import { useEffect, useState } from 'react';
import type { Comparison, ComparisonRow, Sweep } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { formatNumber } from '../shared/format.js';
import { viewHash } from '../route.js';
import { formatSpeedup } from './sweepText.js';
import { ConfigStatusBadge } from './SweepStatus.js';
import './sweeps.css';

/**
 * The sweep compared as the Compare view would (its first config the baseline), asked again as runs end: the matrix
 * shows the comparison's speedups and verdicts, never a ratio of raw figures (a steps/s ratio across different batch
 * sizes would call the faster batch slower). Null until a run has ended, or when nothing can be compared.
 */
function useSweepComparison(sweep: Sweep): Comparison | null {
  const { api } = useBridge();
  const [comparison, setComparison] = useState<Comparison | null>(null);
  const minEffect = typeof sweep.request.minEffect === 'number' ? sweep.request.minEffect : undefined;
  const ran = sweep.configs.reduce((n, c) => n + c.runIds.length, 0);
  const key = `${sweep.id} ${sweep.progress.done} ${sweep.status} ${ran}`;
  useEffect(() => {
    let cancelled = false;
    api['compare.runs']({ sweepIds: [sweep.id], ...(minEffect === undefined ? {} : { minEffect }) }).then(
      (answer) => {
        if (!cancelled) setComparison(answer);
      },
      () => {
        if (!cancelled) setComparison(null);
      },
    );
    return () => {
      cancelled = true;
    };
    // `key` stands for what changes the answer: runs ended, the status.
  }, [api, key, sweep.id, minEffect]);
  return comparison;
}

function speedupTone(row: ComparisonRow | undefined): string {
  return row?.speedup.verdict === 'faster' || row?.speedup.verdict === 'slower' ? row.speedup.verdict : '';
}

/** The verdict under the speedup, as the Compare view says it. */
function verdictWord(row: ComparisonRow, minEffect: number): string {
  const { verdict } = row.speedup;
  if (verdict === 'unknown') return 'no speedup';
  if (verdict === 'same') return `same ±${Number((minEffect * 100).toPrecision(3))} %`;
  return verdict === 'baseline' ? '' : verdict;
}

export function SweepMatrix({ sweep }: { sweep: Sweep }) {
  const comparison = useSweepComparison(sweep);
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
            const row = finder ? undefined : comparison?.rows.find((r) => r.sweepId === sweep.id && r.configIndex === config.index);
            const ratio = row?.speedup.ratio ?? null;
            const throughput = row ? row.throughput.median : config.throughputMedian;
            const unit = row ? row.throughput.unit : config.throughputUnit;
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
                  {formatNumber(throughput)}
                  {throughput !== null && unit && <span className="unit"> {unit}</span>}
                </td>
                {!finder && (
                  <td
                    className={`num speedup ${config.index === 0 ? '' : speedupTone(row)}`}
                    data-testid={`speedup-${config.index}`}
                    data-value={ratio ?? ''}
                    data-verdict={row?.speedup.verdict ?? ''}
                    title={row?.speedup.reason ?? undefined}
                  >
                    {config.index === 0 ? (throughput === null ? '–' : 'baseline') : formatSpeedup(config.index === 0 ? null : ratio)}
                    {row && config.index !== 0 && verdictWord(row, comparison!.minEffect) && (
                      <span className="verdict-word" data-testid={`verdict-${config.index}`}>
                        {verdictWord(row, comparison!.minEffect)}
                        {row.best ? ' ★' : ''}
                        {row.fairness.length > 0 ? ' ⚠' : ''}
                      </span>
                    )}
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
