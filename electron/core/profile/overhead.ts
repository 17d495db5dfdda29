// What profiling cost a step, and the phases as they would be without it: the profiled steps against the run's
// unprofiled steady median; the added time spread over the host operators each phase recorded (the profiler's cost is
// per recorded operator, so operator-heavy phases such as backward are inflated most).
import type { ProfileOverhead, RunProfile } from '../../shared/profile.js';
import type { PhaseKind, StepRecord } from './profileFile.js';

/**
 * An overhead within this share of the unprofiled step is not told apart from noise: ten profiled steps and the median
 * of the rest differ by a few per cent with no profiler at all (clocks boost and sag: the README's GPU control
 * section), so 3 % is said to be none, and the shares are as measured.
 */
export const NOISE_SHARE = 0.03;

const PHASE_KEYS: Record<Exclude<PhaseKind, 'other'>, keyof RunProfile['phases']> = {
  data: 'dataLoadingMs',
  input: 'inputMs',
  forward: 'forwardMs',
  backward: 'backwardMs',
  optimizer: 'optimizerMs',
};
const PHASE_NAMES: Record<PhaseKind, string> = {
  data: 'data loading',
  input: 'input',
  forward: 'forward',
  backward: 'backward',
  optimizer: 'optimizer',
  other: 'other',
};

const pct = (value: number) => `${value.toFixed(1)} %`;
const ms = (value: number) => `${value.toFixed(1)} ms`;

/** The overhead of a profile whose kept steps are `kept`, against `unprofiled` ms per step (null: no unprofiled steps). */
export function profilerOverhead(
  phases: RunProfile['phases'],
  kept: readonly StepRecord[],
  unprofiled: { stepMs: number; source: string } | null,
): ProfileOverhead | null {
  const profiled = phases.stepMs;
  if (profiled === null || unprofiled === null || unprofiled.stepMs <= 0 || kept.length === 0) return null;
  const added = profiled - unprofiled.stepMs;
  const share = added / unprofiled.stepMs;
  const base = {
    profiledStepMs: profiled,
    unprofiledStepMs: unprofiled.stepMs,
    source: unprofiled.source,
    addedMs: added,
    pct: 100 * share,
  };
  const against = `${ms(profiled)} per profiled step against ${ms(unprofiled.stepMs)} unprofiled (${unprofiled.source}'s steady median)`;
  if (Math.abs(share) <= NOISE_SHARE) {
    return { ...base, perOpUs: null, estimatedPhases: null, statement: `no measurable profiler overhead: ${against}; the shares are as measured` };
  }
  if (added < 0) {
    return {
      ...base,
      perOpUs: null,
      estimatedPhases: null,
      statement: `the profiled steps were faster than the unprofiled ones (${against}): the run's speed drifted, so the overhead is unknown; the shares are as measured`,
    };
  }
  const counted = kept.filter((s) => s.opCounts !== null);
  if (counted.length === 0) {
    return {
      ...base,
      perOpUs: null,
      estimatedPhases: null,
      statement: `the profiler made each step ${pct(100 * share)} slower (${against}); the shares are as measured`,
    };
  }
  const kinds = Object.keys(PHASE_NAMES) as PhaseKind[];
  const opsPerStep = Object.fromEntries(kinds.map((kind) => [kind, counted.reduce((sum, s) => sum + (s.opCounts![kind] ?? 0), 0) / counted.length])) as Record<
    PhaseKind,
    number
  >;
  const totalOps = kinds.reduce((sum, kind) => sum + opsPerStep[kind], 0);
  if (totalOps === 0) {
    return {
      ...base,
      perOpUs: null,
      estimatedPhases: null,
      statement: `the profiler made each step ${pct(100 * share)} slower (${against}); the shares are as measured`,
    };
  }
  const perOpMs = added / totalOps;
  const measured = (kind: PhaseKind) => (kind === 'other' ? (phases.otherMs ?? 0) : (phases[PHASE_KEYS[kind]] ?? 0));
  const without = Object.fromEntries(kinds.map((kind) => [kind, Math.max(0, measured(kind) - perOpMs * opsPerStep[kind])])) as Record<PhaseKind, number>;
  const sum = kinds.reduce((total, kind) => total + without[kind], 0);
  // Scaled so the phases add up to the unprofiled step.
  const scale = sum > 0 ? unprofiled.stepMs / sum : 1;
  const estimated = {
    stepMs: unprofiled.stepMs,
    dataLoadingMs: without.data * scale,
    inputMs: without.input * scale,
    forwardMs: without.forward * scale,
    backwardMs: without.backward * scale,
    optimizerMs: without.optimizer * scale,
    otherMs: without.other * scale,
  };
  const inflation = kinds
    .filter((kind) => measured(kind) > 0 && opsPerStep[kind] > 0)
    .map((kind) => ({ kind, added: perOpMs * opsPerStep[kind], of: measured(kind) }))
    .sort((a, b) => b.added - a.added);
  const most = inflation[0];
  const changed = kinds
    .filter((kind) => measured(kind) > 0 || estimated[kind === 'other' ? 'otherMs' : PHASE_KEYS[kind]]! > 0)
    .map((kind) => {
      const key = kind === 'other' ? 'otherMs' : PHASE_KEYS[kind];
      return `${PHASE_NAMES[kind]} ${pct((100 * (estimated[key] ?? 0)) / unprofiled.stepMs)} (${pct((100 * measured(kind)) / profiled)} as measured)`;
    });
  const statement =
    `the profiler made each step ${pct(100 * share)} slower: ${against}. Estimated by the operators each phase recorded ` +
    `(the profiler's cost is per recorded operator: about ${(perOpMs * 1000).toFixed(1)} µs each here, ${Math.round(totalOps)} per step)` +
    (most ? `, ${PHASE_NAMES[most.kind]} carries most of it (+${ms(most.added)} of its ${ms(most.of)})` : '') +
    `; shares without it: ${changed.join(', ')}`;
  return { ...base, perOpUs: perOpMs * 1000, estimatedPhases: estimated, statement };
}
