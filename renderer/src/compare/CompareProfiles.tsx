// The compare view's profiles: each config's step profile beside the baseline's (which phases and operators got
// faster or slower, per step and in share), with a Profile button where a config has none yet.
import { useEffect, useState } from 'react';
import type { ComparisonRow } from '../../../electron/shared/api.js';
import type { ProfileComparison } from '../../../electron/shared/profile.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage } from '../shared/format.js';
import './compare.css';

type RowProfile = { state: 'none' } | { state: 'baseline' } | { state: 'compared'; comparison: ProfileComparison } | { state: 'failed'; error: string };

const signed = (value: number | null) => (value === null ? 'n/a' : `${value > 0 ? '+' : ''}${value.toFixed(2)}`);
const fixed = (value: number | null) => (value === null ? 'n/a' : value.toFixed(2));
const share = (value: number | null) => (value === null ? '' : ` (${Math.round(value)} %)`);

export function CompareProfiles({ rows }: { rows: readonly ComparisonRow[] }) {
  const bridge = useBridge();
  const { api } = bridge;
  const baseline = rows.find((row) => row.isBaseline) ?? null;
  const baselineRunId = baseline?.runIds[0] ?? null;
  const [results, setResults] = useState<Map<string, RowProfile> | null>(null);
  const [hasBaselineProfile, setHasBaselineProfile] = useState(false);
  const [pending, setPending] = useState<Set<number>>(new Set());
  const [reloads, setReloads] = useState(0);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (baselineRunId === null) return;
    let current = true;
    const load = async () => {
      const baselineProfile = await api['profiles.get']({ runId: baselineRunId });
      const next = new Map<string, RowProfile>();
      for (const row of rows) {
        const runId = row.runIds[0];
        if (row.isBaseline || runId === undefined) {
          next.set(row.key, { state: 'baseline' });
          continue;
        }
        const own = await api['profiles.get']({ runId });
        if (!own || !baselineProfile) {
          next.set(row.key, { state: 'none' });
          continue;
        }
        try {
          next.set(row.key, { state: 'compared', comparison: await api['profiles.compare']({ runId, baselineRunId }) });
        } catch (failure) {
          next.set(row.key, { state: 'failed', error: errorMessage(failure) });
        }
      }
      return { next, baselineHas: baselineProfile !== null };
    };
    load().then(
      ({ next, baselineHas }) => {
        if (!current) return;
        setResults(next);
        setHasBaselineProfile(baselineHas);
      },
      (failure: unknown) => current && setError(errorMessage(failure)),
    );
    return () => {
      current = false;
    };
  }, [api, rows, baselineRunId, reloads]);

  // A profile is stored when its re-run ends.
  useEffect(
    () =>
      bridge.on('runs.onDidChange', (run) => {
        if (run.status === 'running' || !pending.has(run.id)) return;
        setPending((before) => new Set([...before].filter((id) => id !== run.id)));
        setReloads((n) => n + 1);
      }),
    [bridge, pending],
  );

  const profile = async (runId: number) => {
    try {
      const started = await api['runs.profile']({ id: runId });
      setPending((before) => new Set([...before, started.id]));
    } catch (failure) {
      setError(errorMessage(failure));
    }
  };
  const button = (runId: number, label: string) => (
    <button type="button" className="button small" data-testid={`compare-profile-${runId}`} disabled={pending.size > 0} onClick={() => void profile(runId)}>
      {pending.size > 0 ? 'Profiling…' : label}
    </button>
  );

  if (baselineRunId === null) return null;
  return (
    <section className="compare-profiles" data-testid="compare-profiles" aria-label="Profiles against the baseline">
      <h3>Where a step&rsquo;s time goes, against the baseline</h3>
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
      {results && !hasBaselineProfile && (
        <p className="hint">
          The baseline (#{baselineRunId}) has no profile yet. {button(baselineRunId, 'Profile the baseline')}
        </p>
      )}
      {results &&
        rows
          .filter((row) => !row.isBaseline)
          .map((row) => {
            const result = results.get(row.key);
            const runId = row.runIds[0]!;
            return (
              <div key={row.key} className="compare-profile" data-testid={`compare-profile-row-${runId}`}>
                <h4>
                  {row.name} <span className="hint">#{runId}</span>
                </h4>
                {result?.state === 'none' && <p className="hint">No profile of this config yet. {button(runId, 'Profile')}</p>}
                {result?.state === 'failed' && <p className="inline-error">{result.error}</p>}
                {result?.state === 'compared' && (
                  <>
                    <ul className="profile-diagnosis">
                      {result.comparison.changes.map((change) => (
                        <li key={change}>{change}</li>
                      ))}
                    </ul>
                    <table className="sweep-table">
                      <thead>
                        <tr>
                          <th>Phase, ms per step</th>
                          <th className="num">baseline</th>
                          <th className="num">this config</th>
                          <th className="num">change</th>
                        </tr>
                      </thead>
                      <tbody>
                        {result.comparison.phases.map((phase) => (
                          <tr key={phase.name}>
                            <td>{phase.name}</td>
                            <td className="num">
                              {fixed(phase.baselineMs)}
                              {phase.name === 'step' ? '' : share(phase.baselineShare)}
                            </td>
                            <td className="num">
                              {fixed(phase.ms)}
                              {phase.name === 'step' ? '' : share(phase.share)}
                            </td>
                            <td className="num">{signed(phase.deltaMs)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </>
                )}
              </div>
            );
          })}
    </section>
  );
}
