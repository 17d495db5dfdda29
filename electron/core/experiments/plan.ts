// Sweep plans: which configs a sweep runs (one at a time, ladder, grid), in what order, and for how long.
import type { Run, SweepConfig, WorkloadVariable } from '../../shared/api.js';
import { median as medianOf } from 'simple-statistics';

export type SweepPlanKind = 'one-at-a-time' | 'ladder' | 'grid';

export interface VariedVariable {
  name: string;
  values: string[];
}

/** A grid of 16 variables of 64 values is astronomically large; past this a plan is a mistake. */
export const MAX_CONFIGS = 256;

export class PlanError extends Error {
  override name = 'PlanError';
}

function key(values: Record<string, string>): string {
  return JSON.stringify(Object.entries(values).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The configs of a plan, baseline first. The first value of each varied variable is the baseline's.
 * - one at a time: each other value alone against the baseline;
 * - ladder: each step adds one change to the step before (baseline, +batch, +workers, +AMP...);
 * - grid: every combination.
 * Configs that repeat one already planned (a value listed twice) are dropped.
 */
export function planConfigs(vary: readonly VariedVariable[], plan: SweepPlanKind, shared: Record<string, string>): SweepConfig[] {
  const names = vary.map((v) => v.name);
  const duplicate = names.find((name, i) => names.indexOf(name) !== i);
  if (duplicate) throw new PlanError(`${duplicate} is varied twice; give all its values in one --vary ${duplicate}=V1,V2`);
  const baseline: Record<string, string> = { ...shared };
  for (const variable of vary) baseline[variable.name] = variable.values[0]!;

  const configs: Array<Omit<SweepConfig, 'index'>> = [{ name: 'baseline', values: baseline, changes: [] }];
  if (plan === 'one-at-a-time') {
    for (const variable of vary) {
      for (const value of variable.values.slice(1)) {
        configs.push({ name: `${variable.name}=${value}`, values: { ...baseline, [variable.name]: value }, changes: [`${variable.name}=${value}`] });
      }
    }
  } else if (plan === 'ladder') {
    let values = baseline;
    let changes: string[] = [];
    for (const variable of vary) {
      for (const value of variable.values.slice(1)) {
        values = { ...values, [variable.name]: value };
        changes = [...changes.filter((c) => !c.startsWith(`${variable.name}=`)), `${variable.name}=${value}`];
        configs.push({ name: `+${variable.name}=${value}`, values, changes });
      }
    }
  } else {
    const count = vary.reduce((n, v) => n * v.values.length, 1);
    if (count > MAX_CONFIGS) throw new PlanError(`this grid has ${count} configs; at most ${MAX_CONFIGS}: vary fewer values, or use a ladder`);
    let combos: Array<Record<string, string>> = [{}];
    for (const variable of vary) combos = combos.flatMap((combo) => variable.values.map((value) => ({ ...combo, [variable.name]: value })));
    for (const combo of combos.slice(1)) {
      const changes = Object.entries(combo)
        .filter(([name, value]) => baseline[name] !== value)
        .map(([name, value]) => `${name}=${value}`);
      configs.push({ name: changes.join(' '), values: { ...baseline, ...combo }, changes });
    }
  }

  const seen = new Set<string>();
  const unique = configs.filter((config) => {
    const k = key(config.values);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  if (unique.length > MAX_CONFIGS) throw new PlanError(`this plan has ${unique.length} configs; at most ${MAX_CONFIGS}`);
  return unique.map((config, index) => ({ index, ...config }));
}

export interface SchedulePosition {
  configIndex: number;
  repeatIndex: number;
}

/**
 * Repeats interleaved, each round in the other direction (A B C, C B A, A B C ...): slow drift (heat, other load)
 * then falls on every config alike. In one direction only, a machine that slows run by run would make every later
 * config look slower; reversed, a steady drift cancels over each two rounds.
 */
export function interleavedSchedule(configCount: number, repeats: number): SchedulePosition[] {
  const schedule: SchedulePosition[] = [];
  for (let repeatIndex = 0; repeatIndex < repeats; repeatIndex += 1) {
    for (let k = 0; k < configCount; k += 1) schedule.push({ configIndex: repeatIndex % 2 === 0 ? k : configCount - 1 - k, repeatIndex });
  }
  return schedule;
}

/** A position's place in interleavedSchedule, from 1: the run number a person reads ("run 3 of 8"). */
export function schedulePlace(position: SchedulePosition, configCount: number): number {
  const inRound = position.repeatIndex % 2 === 0 ? position.configIndex : configCount - 1 - position.configIndex;
  return position.repeatIndex * configCount + inRound + 1;
}

export function runSeconds(run: Run): number | null {
  if (run.endedAt === null) return null;
  return (Date.parse(run.endedAt) - Date.parse(run.startedAt)) / 1000;
}

/** The median, or null for no values (simple-statistics throws on none). */
export function median(values: number[]): number | null {
  return values.length === 0 ? null : medianOf(values);
}

/**
 * Seconds the plan should take, from earlier runs of the workload: a config's own earlier runs where
 * there are some, else the workload's typical run. Null with nothing to go by.
 */
export function estimateSeconds(
  configs: readonly SweepConfig[],
  repeats: number,
  history: readonly Run[],
  /** Values every config shares (steps, say): earlier runs with other values there say little. */
  shared: Record<string, string> = {},
  /** The sweep's step limit: earlier runs of another length are scaled to it. */
  maxSteps: number | null = null,
): { seconds: number | null; basis: string } {
  const finished = history.filter((run) => run.exitClass === 'ok' && runSeconds(run) !== null);
  if (finished.length === 0) return { seconds: null, basis: 'no earlier finished run of this workload to estimate from' };
  // A run's time for the steps this config will run: its own time scaled by steps when both are known.
  const targetSteps = (values: Record<string, string>) => {
    const stated = Number(values.steps);
    const fromValues = Number.isFinite(stated) && stated > 0 ? stated : null;
    return maxSteps !== null && fromValues !== null ? Math.min(maxSteps, fromValues) : (maxSteps ?? fromValues);
  };
  let scaled = 0;
  const secondsFor = (run: Run, target: number | null) => {
    const seconds = runSeconds(run)!;
    if (target === null || run.summary.steps === null || run.summary.steps <= 0 || run.summary.steps === target) return seconds;
    scaled += 1;
    return (seconds * target) / run.summary.steps;
  };
  const alike = finished.filter((run) => Object.entries(shared).every(([name, value]) => !Object.hasOwn(run.config, name) || run.config[name] === value));
  let fromOwn = 0;
  let total = 0;
  let typicalShown: number | null = null;
  for (const config of configs) {
    const target = targetSteps(config.values);
    // The config's own earlier runs, of any length when lengths are scaled.
    const sameConfig = (run: Run) =>
      target === null ? key(run.config) === key(config.values) : key(withoutSteps(run.config)) === key(withoutSteps(config.values));
    const own = finished.filter(sameConfig).map((run) => secondsFor(run, target));
    const typical = median((alike.length > 0 ? alike : finished).map((run) => secondsFor(run, target)))!;
    typicalShown ??= typical;
    if (own.length > 0) fromOwn += 1;
    total += (median(own) ?? typical) * repeats;
  }
  const scaling = scaled > 0 ? '; earlier runs of another length scaled by their steps' : '';
  return {
    seconds: total,
    basis: `${fromOwn} of ${configs.length} configs from their own earlier runs, the rest from the workload's median run (${(typicalShown ?? 0).toFixed(1)} s)${scaling}`,
  };
}

function withoutSteps(values: Record<string, string>): Record<string, string> {
  const { steps: _steps, ...rest } = values;
  return rest;
}

/**
 * A repeat's values: the config's, with the workload's seed variable moved on by the repeat index
 * (seed 7 gives 7, 8, 9), so repeats of a deterministic workload are not copies of one run. Left as
 * it is when the user pins the seed, varies it in the sweep, or the workload declares none; a seed
 * that is not a whole number gets `-<repeat>` appended.
 */
export function repeatValues(
  variables: readonly WorkloadVariable[],
  values: Readonly<Record<string, string>>,
  repeatIndex: number,
  options: { pinned: boolean; varied: readonly string[] },
): Record<string, string> {
  const seed = variables.find((v) => v.seed);
  if (!seed || options.pinned || repeatIndex === 0 || options.varied.includes(seed.name)) return { ...values };
  const current = values[seed.name] ?? seed.default;
  const next = /^-?\d+$/u.test(current) ? String(Number(current) + repeatIndex) : `${current}-${repeatIndex}`;
  return { ...values, [seed.name]: next };
}
