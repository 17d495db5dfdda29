// The calibration simulation of the speed verdict: A/A and A/B sweeps of two configs with run-to-run noise, step
// noise, repeats and drift, run through the sweep's own schedule and the comparison's own verdict; seeded, so every
// run of it gives the same table (test/unit/compare/calibration.test.ts asserts on it, bench/statistics.ts prints it).
import { seededRandom } from '../electron/core/compare/random.js';
import { APART_SHIFT_ALLOWANCE, compareSpeeds, DEFAULT_MIN_EFFECT, type RunSpeed, type SpeedVerdictLabel } from '../electron/core/compare/verdict.js';
import { interleavedSchedule } from '../electron/core/experiments/plan.js';

export type Drift = 'none' | 'linear' | 'rounds' | 'apart';

export interface Scenario {
  /** Standard deviation of a run's level around its config's (log scale: 0.02 is about 2 %). */
  runSd: number;
  /** Standard deviation of one step's throughput around its run's level. */
  stepSd: number;
  repeats: number;
  /**
   * `linear`: the machine slows by LINEAR_DRIFT over the sweep, run by run (heat, a job starting); `rounds`: each
   * round of the interleaved schedule shares an offset of sd ROUND_DRIFT_SD (load that comes and goes between rounds);
   * `apart`: not interleaved: the baseline's runs in one session, then the candidate's in another, each session's
   * level off by sd SESSION_SD (two sweeps run hours or days apart).
   */
  drift: Drift;
  /** The candidate's true speedup: 1 for A/A. */
  effect: number;
}

export interface Outcome {
  trials: number;
  counts: Record<SpeedVerdictLabel, number>;
}

/** Steady steps per run: a short sweep run's worth (a few hundred steps, less warm-up). */
export const STEPS_PER_RUN = 100;
/**
 * The median of n normal steps has a standard deviation of sqrt(π/2)·σ/√n (its asymptotic efficiency, 2/π):
 * a run's steady median is drawn from that at once rather than from a hundred steps, so the whole table takes
 * seconds (test/unit/compare/calibration.test.ts checks the shortcut against real medians of real steps).
 */
export const MEDIAN_SD_FACTOR = Math.sqrt(Math.PI / 2 / STEPS_PER_RUN);
/** The `linear` drift: 5 % slower from the sweep's first run to its last. */
export const LINEAR_DRIFT = 0.05;
/** The `rounds` drift: 2 % between rounds. */
export const ROUND_DRIFT_SD = 0.02;
/** The `apart` drift: 3 % between sessions. */
export const SESSION_SD = 0.03;
/** Runs start a minute apart in the simulated schedule (only their order matters to the verdict). */
const SLOT_MS = 60_000;

export const RUN_SDS = [0.01, 0.02, 0.05] as const;
export const STEP_SDS = [0.01, 0.05] as const;
export const REPEATS = [2, 3, 5, 10] as const;
export const DRIFTS: readonly Drift[] = ['none', 'linear', 'rounds', 'apart'];

export function gaussian(next: () => number): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const value = spare;
      spare = null;
      return value;
    }
    // Box–Muller; 1 - next() is in (0, 1], so the log is finite.
    const radius = Math.sqrt(-2 * Math.log(1 - next()));
    const angle = 2 * Math.PI * next();
    spare = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  };
}

/**
 * One simulated sweep of two configs (the baseline first): each run's steady median, its round and when it started.
 * Runs `apart` are two sessions, one per side, so they have no rounds to pair.
 */
export function simulateSweep(scenario: Scenario, normal: () => number): { baseline: RunSpeed[]; candidate: RunSpeed[] } {
  const apart = scenario.drift === 'apart';
  const schedule = apart
    ? [0, 1].flatMap((configIndex) => Array.from({ length: scenario.repeats }, (_, repeatIndex) => ({ configIndex, repeatIndex })))
    : interleavedSchedule(2, scenario.repeats);
  const roundOffsets = Array.from({ length: scenario.repeats }, () => (scenario.drift === 'rounds' ? ROUND_DRIFT_SD * normal() : 0));
  const sessionOffsets = [0, 1].map(() => (apart ? SESSION_SD * normal() : 0));
  const baseline: RunSpeed[] = [];
  const candidate: RunSpeed[] = [];
  schedule.forEach((place, slot) => {
    const drift =
      scenario.drift === 'linear'
        ? Math.log(1 - (LINEAR_DRIFT * slot) / Math.max(1, schedule.length - 1))
        : apart
          ? sessionOffsets[place.configIndex]!
          : roundOffsets[place.repeatIndex]!;
    const level = (place.configIndex === 1 ? Math.log(scenario.effect) : 0) + scenario.runSd * normal() + drift;
    const steadyMedian = 1000 * Math.exp(level + MEDIAN_SD_FACTOR * scenario.stepSd * normal());
    (place.configIndex === 0 ? baseline : candidate).push({ throughput: steadyMedian, round: apart ? null : place.repeatIndex, startedAtMs: slot * SLOT_MS });
  });
  return { baseline, candidate };
}

/** `trials` sweeps of a scenario, each judged by the comparison's verdict; seeded by `seed`. */
export function runScenario(scenario: Scenario, trials: number, seed: number, minEffect = DEFAULT_MIN_EFFECT, withTimes = true): Outcome {
  const normal = gaussian(seededRandom(seed));
  const counts: Record<SpeedVerdictLabel, number> = { faster: 0, slower: 0, same: 0, inconclusive: 0, 'repeat to decide': 0 };
  // Without the times, the verdict takes the runs as interleaved: what it did before it looked at them.
  const untimed = (runs: RunSpeed[]) => (withTimes ? runs : runs.map(({ startedAtMs: _, ...rest }) => rest));
  for (let trial = 0; trial < trials; trial++) {
    const { baseline, candidate } = simulateSweep(scenario, normal);
    counts[compareSpeeds(untimed(candidate), untimed(baseline), { minEffect }).verdict]++;
  }
  return { trials, counts };
}

/** A scenario's seed, from its parameters, so each cell of the table is reproducible on its own. */
export function scenarioSeed(scenario: Scenario): number {
  return (
    Math.round(scenario.runSd * 1e4) * 1_000_003 +
    Math.round(scenario.stepSd * 1e4) * 10_007 +
    scenario.repeats * 101 +
    DRIFTS.indexOf(scenario.drift) * 7 +
    Math.round(scenario.effect * 1000)
  );
}

/** False faster/slower verdicts of an A/A outcome, as a share. */
export const falseVerdictRate = (outcome: Outcome) => (outcome.counts.faster + outcome.counts.slower) / outcome.trials;

/** Sweeps per A/A cell: a false-verdict rate of 5 % is then known to about ±1 % (two standard errors). */
export const AA_TRIALS = 2000;
/** Sweeps per power cell. */
export const POWER_TRIALS = 500;
/** The effects whose power the table reports: a 5 % and a 10 % speedup. */
export const EFFECTS = [1.05, 1.1] as const;
/** The effect whose power is reported for runs apart in time: one that clears the allowance for a session's shift. */
export const APART_EFFECT = 1.2;
/** Step noise of the power cells (it barely matters: a hundred steps' median averages it away). */
export const POWER_STEP_SD = 0.02;

export interface CalibrationTable {
  aa: Array<{ scenario: Scenario; trials: number; falseRate: number; sameRate: number }>;
  power: Array<{ scenario: Scenario; trials: number; power: number; falseSame: number }>;
  /** The `apart` A/A cells judged as though their runs had interleaved (no start times): what the allowance prevents. */
  apartUntimed: Array<{ scenario: Scenario; trials: number; falseRate: number }>;
  /** How often a true APART_EFFECT is called faster when its runs ran apart. */
  apartPower: Array<{ scenario: Scenario; trials: number; power: number }>;
  /** Both tables as Markdown, as docs/statistics.md holds them. */
  markdown: string;
}

const pct = (share: number) => `${(share * 100).toFixed(1)} %`;

/** Every cell of the calibration grid and the power grid, each from its own seed. */
export function calibrationTable(): CalibrationTable {
  const aa: CalibrationTable['aa'] = [];
  for (const drift of DRIFTS) {
    for (const runSd of RUN_SDS) {
      for (const stepSd of STEP_SDS) {
        for (const repeats of REPEATS) {
          const scenario: Scenario = { runSd, stepSd, repeats, drift, effect: 1 };
          const outcome = runScenario(scenario, AA_TRIALS, scenarioSeed(scenario));
          aa.push({ scenario, trials: AA_TRIALS, falseRate: falseVerdictRate(outcome), sameRate: outcome.counts.same / outcome.trials });
        }
      }
    }
  }
  const power: CalibrationTable['power'] = [];
  for (const effect of EFFECTS) {
    for (const runSd of RUN_SDS) {
      for (const repeats of REPEATS) {
        const scenario: Scenario = { runSd, stepSd: POWER_STEP_SD, repeats, drift: 'none', effect };
        const outcome = runScenario(scenario, POWER_TRIALS, scenarioSeed(scenario));
        power.push({ scenario, trials: POWER_TRIALS, power: outcome.counts.faster / outcome.trials, falseSame: outcome.counts.same / outcome.trials });
      }
    }
  }
  const apartUntimed: CalibrationTable['apartUntimed'] = aa
    .filter((c) => c.scenario.drift === 'apart')
    .map(({ scenario }) => ({
      scenario,
      trials: AA_TRIALS,
      falseRate: falseVerdictRate(runScenario(scenario, AA_TRIALS, scenarioSeed(scenario), DEFAULT_MIN_EFFECT, false)),
    }));
  const apartPower: CalibrationTable['apartPower'] = REPEATS.map((repeats) => {
    const scenario: Scenario = { runSd: 0.02, stepSd: POWER_STEP_SD, repeats, drift: 'apart', effect: APART_EFFECT };
    return { scenario, trials: POWER_TRIALS, power: runScenario(scenario, POWER_TRIALS, scenarioSeed(scenario)).counts.faster / POWER_TRIALS };
  });
  const aaLines = [
    `| drift | run sd | step sd | ${REPEATS.map((n) => `n = ${n}`).join(' | ')} |`,
    `| --- | ---: | ---: | ${REPEATS.map(() => '---:').join(' | ')} |`,
  ];
  for (const drift of DRIFTS) {
    for (const runSd of RUN_SDS) {
      for (const stepSd of STEP_SDS) {
        const cells = REPEATS.map((n) =>
          aa.find((c) => c.scenario.drift === drift && c.scenario.runSd === runSd && c.scenario.stepSd === stepSd && c.scenario.repeats === n)!,
        );
        aaLines.push(`| ${drift} | ${runSd * 100} % | ${stepSd * 100} % | ${cells.map((c) => pct(c.falseRate)).join(' | ')} |`);
      }
    }
  }
  const total = aa.reduce((n, c) => n + c.trials, 0);
  const falses = aa.reduce((n, c) => n + c.falseRate * c.trials, 0);
  aaLines.push('', `All ${aa.length} A/A cells together: ${pct(falses / total)} false faster/slower verdicts in ${total.toLocaleString('en-US')} sweeps.`);
  const untimedRates = apartUntimed.map((c) => c.falseRate);
  aaLines.push(
    '',
    `The \`apart\` rows (each side's runs in a session of its own, each session's level off by sd ${SESSION_SD * 100} %) judged as though ` +
      `their runs had interleaved, without the ±${APART_SHIFT_ALLOWANCE * 100} % allowed for a shift between sessions: ` +
      `${pct(untimedRates.reduce((a, b) => a + b, 0) / untimedRates.length)} false faster/slower verdicts, up to ${pct(Math.max(...untimedRates))} in one cell.`,
    '',
    `Runs apart, a true +${Math.round((APART_EFFECT - 1) * 100)} % change (run sd 2 %, step sd ${POWER_STEP_SD * 100} %) is called faster in ` +
      `${apartPower.map((c) => `${pct(c.power)} at n = ${c.scenario.repeats}`).join(', ')}.`,
  );
  const powerLines = [`| effect | run sd | ${REPEATS.map((n) => `n = ${n}`).join(' | ')} |`, `| ---: | ---: | ${REPEATS.map(() => '---:').join(' | ')} |`];
  for (const effect of EFFECTS) {
    for (const runSd of RUN_SDS) {
      const cells = REPEATS.map((n) => power.find((c) => c.scenario.effect === effect && c.scenario.runSd === runSd && c.scenario.repeats === n)!);
      powerLines.push(`| +${Math.round((effect - 1) * 100)} % | ${runSd * 100} % | ${cells.map((c) => pct(c.power)).join(' | ')} |`);
    }
  }
  const markdown = [
    `False faster/slower verdicts in A/A sweeps (${AA_TRIALS.toLocaleString('en-US')} sweeps a cell; two configs, n runs each, interleaved but for the \`apart\` rows):`,
    '',
    ...aaLines,
    '',
    `Power: the share of sweeps that call a true speedup "faster" (${POWER_TRIALS} sweeps a cell, step sd ${POWER_STEP_SD * 100} %, no drift):`,
    '',
    ...powerLines,
  ].join('\n');
  return { aa, power, apartUntimed, apartPower, markdown };
}
