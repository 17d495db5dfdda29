// A config's step profile beside the baseline's: which phases and operators got faster or slower, per step and in share.
import type { ProfileComparison, ProfileDelta, RunProfile } from '../../shared/profile.js';

/** A change smaller than this share of the baseline step is noise at the profiler's resolution (5 %). */
export const NOTABLE_CHANGE_SHARE = 0.05;
/** Operators listed in a comparison: the union of both top lists, largest changes first. */
export const COMPARED_OPS = 20;

const PHASES = [
  ['step', 'stepMs'],
  ['data loading', 'dataLoadingMs'],
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
  // An operator missing from one top list took less than that list's last entry: counted as 0 there, said so by a null share.
  const ops = [...names]
    .map((name) => {
      const d = delta(name, mine.get(name) ?? null, theirs.get(name) ?? null, step, baselineStep);
      return { ...d, deltaMs: (d.ms ?? 0) - (d.baselineMs ?? 0) };
    })
    .sort((a, b) => Math.abs(b.deltaMs) - Math.abs(a.deltaMs))
    .slice(0, COMPARED_OPS);

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
    if (Math.abs(op.deltaMs ?? 0) < threshold) continue;
    changes.push(`${op.name}: ${(op.baselineMs ?? 0).toFixed(2)} → ${(op.ms ?? 0).toFixed(2)} ms per step`);
  }
  if (changes.length === 0) changes.push(`no phase or operator changed by ${Math.round(NOTABLE_CHANGE_SHARE * 100)} % of the baseline step or more`);
  return { runId: profile.runId, baselineRunId: baseline.runId, phases, ops, changes };
}
