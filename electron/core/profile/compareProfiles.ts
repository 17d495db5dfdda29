// A config's step profile beside the baseline's: which phases and operators got faster or slower, per step and in share.
import type { ProfileComparison, ProfileDelta, RunProfile } from '../../shared/profile.js';

/** A change smaller than this share of the baseline step is noise at the profiler's resolution (5 %). */
export const NOTABLE_CHANGE_SHARE = 0.05;
const PHASES = [
  ['step', 'stepMs'],
  ['data loading', 'dataLoadingMs'],
  ['input', 'inputMs'],
  ['forward', 'forwardMs'],
  ['backward', 'backwardMs'],
  ['optimizer', 'optimizerMs'],
  ['other', 'otherMs'],
] as const;

function delta(name: string, value: number | null, baseline: number | null, step: number | null, baselineStep: number | null): ProfileDelta {
  return {
    name,
    ms: value,
    baselineMs: baseline,
    deltaMs: value !== null && baseline !== null ? value - baseline : null,
    share: value !== null && step ? (100 * value) / step : null,
    baselineShare: baseline !== null && baselineStep ? (100 * baseline) / baselineStep : null,
  };
}

export function compareProfiles(profile: RunProfile, baseline: RunProfile): ProfileComparison {
  const step = profile.phases.stepMs;
  const baselineStep = baseline.phases.stepMs;
  const phases = PHASES.map(([name, key]) => delta(name, profile.phases[key], baseline.phases[key], step, baselineStep));

  const names = new Set([...profile.ops.map((op) => op.name), ...baseline.ops.map((op) => op.name)]);
  const byName = (list: RunProfile['ops']) => new Map(list.map((op) => [op.name, op.selfMs]));
  const mine = byName(profile.ops);
  const theirs = byName(baseline.ops);
  // Every operator of either side. A profile that lists every operator ran none it does not list: 0 there. An older
  // profile kept only its top 25: an operator missing from it is unknown (null), not 0.
  const missing = (complete: boolean) => (complete ? 0 : null);
  const ops = [...names]
    .map((name) => {
      const d = delta(name, mine.get(name) ?? missing(profile.opsComplete), theirs.get(name) ?? missing(baseline.opsComplete), step, baselineStep);
      return { ...d, deltaMs: d.ms !== null && d.baselineMs !== null ? d.ms - d.baselineMs : null };
    })
    .sort((a, b) => Math.abs(b.deltaMs ?? 0) - Math.abs(a.deltaMs ?? 0));

  const changes: string[] = [];
  const threshold = (baselineStep ?? 0) * NOTABLE_CHANGE_SHARE;
  for (const phase of phases) {
    if (phase.deltaMs === null || Math.abs(phase.deltaMs) < threshold || phase.ms === null || phase.baselineMs === null) continue;
    const direction = phase.deltaMs < 0 ? 'faster' : 'slower';
    changes.push(
      `${phase.name}: ${phase.baselineMs.toFixed(1)} → ${phase.ms.toFixed(1)} ms per step (${phase.deltaMs > 0 ? '+' : ''}${phase.deltaMs.toFixed(1)} ms, ${direction}` +
        `${phase.share !== null && phase.baselineShare !== null ? `; ${Math.round(phase.baselineShare)} % → ${Math.round(phase.share)} % of the step` : ''})`,
    );
  }
  for (const op of ops) {
    if (op.deltaMs === null || Math.abs(op.deltaMs) < threshold) continue;
    changes.push(`${op.name}: ${op.baselineMs!.toFixed(2)} → ${op.ms!.toFixed(2)} ms per step`);
  }
  if (changes.length === 0) changes.push(`no phase or operator changed by ${Math.round(NOTABLE_CHANGE_SHARE * 100)} % of the baseline step or more`);
  return { runId: profile.runId, baselineRunId: baseline.runId, phases, ops, changes };
}
