// Runs side by side against a baseline: one row per config (repeats pooled) or per run, with a speed verdict that
// rests on the variance between runs (verdict.ts), measured per unit of work wherever rows differ in it, a quality
// gate on loss at equal work, and flags where settings, environments or the machine's fairness differ.
import type { Comparison, ComparisonRow, QualityGate, Run } from '../../shared/api.js';
import { IMPORTED_COMMAND } from '../../shared/api/runs.js';
import { DEFAULT_MIN_EFFECT } from '../../shared/api/compare.js';
import { compareSpeeds, CONFIDENCE, ranApart } from './verdict.js';
import { studentTQuantile } from './studentT.js';
import { commandText, rowDistinctions, rowKey } from './rowKey.js';
import { applyMachineRule, machineNote, mayBeBest } from './machines.js';
import { describeEnvironment } from './environment.js';

export interface CompareOptions {
  groupBy: 'config' | 'run';
  /** A run whose row is the baseline; default: the first row. */
  baselineRunId?: number | undefined;
  gate: QualityGate;
  /** δ of the `same` verdict (default 2 %). */
  minEffect?: number | undefined;
  now: Date;
  /** The commands compared as templates, for the header (the service knows the sweeps' and workloads'). */
  commands?: readonly string[] | undefined;
  /** Speedups between rows from different machines too (flagged); without it those rows get none. */
  acrossMachines?: boolean | undefined;
  /** See compareRequest.measureBy. */
  measureBy?: 'auto' | 'workOverTime' | undefined;
}

interface Group {
  key: string;
  runs: Run[];
}

type Unit = 'tokens/s' | 'samples/s' | 'steps/s';
const UNITS: readonly Unit[] = ['tokens/s', 'samples/s', 'steps/s'];
const WORK_NAME: Record<Unit, string> = { 'tokens/s': 'tokens', 'samples/s': 'samples', 'steps/s': 'steps' };

/**
 * Variables that change how much work one step holds: batch sizes (global, micro), sequence or block length,
 * gradient accumulation. Rows that differ in one of these cannot be compared in steps/s.
 */
const WORK_VARIABLE =
  /(?:^|_)(?:batch|bs|mbs|gbs|micro|seq|sequence|block|ctx|context|len|length|accum|accumulation|grad_acc|gradient_accumulation)(?:_|$|size|len|steps)/iu;

export function isWorkVariable(name: string): boolean {
  return WORK_VARIABLE.test(name);
}

/** Rows in the order their first run appears; runs already ordered by the caller. */
function groupRuns(runs: readonly Run[], by: 'config' | 'run'): Group[] {
  const groups = new Map<string, Group>();
  for (const run of runs) {
    const key = by === 'run' ? `run ${run.id}` : rowKey(run);
    const group = groups.get(key) ?? { key, runs: [] };
    group.runs.push(run);
    groups.set(key, group);
  }
  return [...groups.values()];
}

const nums = (values: ReadonlyArray<number | null | undefined>) => values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
function medianOf(values: ReadonlyArray<number | null | undefined>): number | null {
  const v = nums(values).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const mid = v.length >> 1;
  return v.length % 2 === 1 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}
const meanOf = (values: ReadonlyArray<number | null | undefined>) => {
  const v = nums(values);
  return v.length === 0 ? null : v.reduce((a, b) => a + b, 0) / v.length;
};

/** One run's steady throughput in each unit it can be given in: its own, and others through its work per step. */
/** Whole-ms timing of its short steps cannot place its median step within δ/2, and its work over time is known. */
function timedTooCoarsely(run: Run, minEffect: number): boolean {
  return (run.summary.throughput.resolution ?? 0) > minEffect / 2 && run.summary.throughput.overall !== null;
}

/** A comparison holding this run measures every run by work over time (steps that come unevenly, or timing too coarse). */
export function measuredByWorkOverTime(run: Run, minEffect: number): boolean {
  return run.summary.throughput.uneven || timedTooCoarsely(run, minEffect);
}

/**
 * A run's throughput in each unit it converts to. `byOverall`: its steady steps' work over their time rather than its
 * median step, for every run of a comparison that holds a run whose steps come unevenly (no two runs measured two ways).
 */
function ratesOf(run: Run, byOverall = false): Record<Unit, number | null> {
  const { unit } = run.summary.throughput;
  const median = byOverall ? (run.summary.throughput.overall ?? run.summary.throughput.median) : run.summary.throughput.median;
  const tokens = positive(run.summary.tokensPerStep);
  const samples = positive(run.summary.samplesPerStep);
  const rates: Record<Unit, number | null> = { 'tokens/s': null, 'samples/s': null, 'steps/s': null };
  if (median === null || median <= 0) return rates;
  if (unit === 'steps/s') rates['steps/s'] = median;
  else if (unit === 'tokens/s') rates['steps/s'] = tokens === null ? null : median / tokens;
  else if (unit === 'samples/s') rates['steps/s'] = samples === null ? null : median / samples;
  const steps = rates['steps/s'];
  rates['tokens/s'] = unit === 'tokens/s' ? median : steps !== null && tokens !== null ? steps * tokens : null;
  rates['samples/s'] = unit === 'samples/s' ? median : steps !== null && samples !== null ? steps * samples : null;
  return rates;
}

function positive(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null;
}

/** Work variables whose values differ between these runs: `batch (16, 64)`. */
function differingWork(runs: readonly Run[]): Array<{ name: string; values: string[] }> {
  const names = new Set(runs.flatMap((r) => Object.keys(r.config)));
  const out: Array<{ name: string; values: string[] }> = [];
  for (const name of names) {
    if (!isWorkVariable(name)) continue;
    const values = [...new Set(runs.map((r) => r.config[name] ?? '-'))];
    if (values.length > 1) out.push({ name, values });
  }
  return out;
}

/**
 * The unit a set of runs can all be compared in: per token, else per sample, else per step, but per step only
 * when every run measured steps (a run that knows its work per step beside one that does not says nothing about
 * whether their steps are alike) and no variable that changes a step's work differs.
 */
function commonUnit(runs: readonly Run[]): { unit: Unit | null; workDiffers: Array<{ name: string; values: string[] }> } {
  const rates = runs.map((run) => ratesOf(run));
  const workDiffers = differingWork(runs);
  // No run measured a throughput: no unit is shared (every unit would be, of none).
  if (runs.length === 0) return { unit: null, workDiffers };
  for (const unit of UNITS) {
    if (!rates.every((r) => r[unit] !== null)) continue;
    if (unit === 'steps/s' && (workDiffers.length > 0 || runs.some((r) => r.summary.throughput.unit !== 'steps/s'))) return { unit: null, workDiffers };
    return { unit, workDiffers };
  }
  return { unit: null, workDiffers };
}

/** Loss at `at` units of work (a step, a token, a sample) by linear interpolation of a curve of [step, loss]. */
function lossAt(curve: ReadonlyArray<readonly [number, number]>, perStep: number, at: number): number | null {
  const points = curve.map(([step, loss]) => [step * perStep, loss] as const);
  if (points.length === 0 || at > points.at(-1)![0]) return null;
  let previous = points[0]!;
  if (at <= previous[0]) return previous[1];
  for (const point of points) {
    if (point[0] >= at) {
      const span = point[0] - previous[0];
      return span === 0 ? point[1] : previous[1] + ((point[1] - previous[1]) * (at - previous[0])) / span;
    }
    previous = point;
  }
  return null;
}

/** Where two runs' recorded conditions differ: GPU settings, then the environment fingerprint. */
export function conditionDifferences(run: Run, baseline: Run): string[] {
  const out: string[] = [];
  const show = (value: unknown) => {
    if (value === null || value === undefined) return 'none';
    const range = value as { minMHz?: unknown; maxMHz?: unknown };
    if (typeof range.minMHz === 'number') return range.minMHz === range.maxMHz ? `${range.minMHz} MHz` : `${range.minMHz}-${String(range.maxMHz)} MHz`;
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  };
  const settingKeys: Array<[string, string]> = [
    ['persistenceMode', 'persistence'],
    ['powerLimitW', 'power limit'],
    ['clockLock', 'clock lock'],
    ['memoryClockLock', 'memory clock lock'],
  ];
  const a = run.gpuSettings ?? {};
  const b = baseline.gpuSettings ?? {};
  for (const [key, label] of settingKeys) {
    if (show(a[key]) !== show(b[key])) out.push(`GPU ${label}: ${show(a[key])} vs ${show(b[key])}`);
  }
  const fingerprintKeys: Array<[string, string]> = [
    ['gpuName', 'GPU'],
    ['gpuUuid', 'GPU'],
    ['driverVersion', 'driver'],
    ['cudaVersion', 'CUDA'],
    ['vbiosVersion', 'VBIOS'],
    ['pcieGen', 'PCIe gen'],
    ['pcieWidth', 'PCIe width'],
    ['cpuModel', 'CPU'],
    ['cpuGovernor', 'CPU governor'],
    ['kernel', 'kernel'],
    ['pythonVersion', 'Python'],
    ['torchVersion', 'PyTorch'],
  ];
  const fa = run.fingerprint ?? {};
  const fb = baseline.fingerprint ?? {};
  const seen = new Set<string>();
  for (const [key, label] of fingerprintKeys) {
    if (!(key in fa) || !(key in fb) || show(fa[key]) === show(fb[key]) || seen.has(label)) continue;
    seen.add(label);
    out.push(`${label}: ${show(fa[key])} vs ${show(fb[key])}`);
  }
  const codeA = describeCode(run.git);
  const codeB = describeCode(baseline.git);
  if (codeA !== codeB) out.push(`code: ${codeA} vs ${codeB}`);
  return out;
}

/** A run's code in a few characters: the commit, and the hash of its uncommitted changes when there were any. */
export function describeCode(git: Run['git']): string {
  if (!git) return 'not in git';
  const commit = git.commit?.slice(0, 10) ?? 'no commit';
  return git.dirty ? `${commit} + uncommitted ${git.diffSha256?.slice(0, 8) ?? ''}`.trim() : commit;
}

/** Runs whose steps count for speed: finished cleanly, or stopped, timed out or interrupted (partial, from the steps they had). */
const PARTIAL_STATUSES: ReadonlySet<string> = new Set(['stopped', 'timed_out', 'interrupted']);
const isPartial = (run: Run) => PARTIAL_STATUSES.has(run.status);
const countsForSpeed = (run: Run) => (run.exitClass === 'ok' || isPartial(run)) && run.summary.throughput.median !== null;

/** What the quality gate compared: the metric, where, this row's value, the baseline's, and the signed delta. */
interface Compared {
  metric: string;
  at: string | null;
  value: number;
  base: number;
  delta: number;
  /** Each run's value on either side (the medians above are of these): their spread is the noise the gate allows for. */
  runValues?: readonly number[];
  baseRunValues?: readonly number[];
}

/** The measure of work two groups' losses are matched on: tokens, samples, or steps where a step's work is the same. */
function workMeasure(group: Group, base: Group): { by: 'tokens' | 'samples' | 'step'; perStep: (run: Run) => number | null } | { by: null; why: string } {
  const all = [...group.runs, ...base.runs];
  if (all.every((r) => positive(r.summary.tokensPerStep) !== null)) return { by: 'tokens', perStep: (r) => positive(r.summary.tokensPerStep) };
  if (all.every((r) => positive(r.summary.samplesPerStep) !== null)) return { by: 'samples', perStep: (r) => positive(r.summary.samplesPerStep) };
  const work = differingWork(all);
  if (work.length > 0) {
    return { by: null, why: `${describeWorkDifference(work)} and the work of a step is not known: losses cannot be compared at equal work (${WORK_HINT})` };
  }
  return { by: 'step', perStep: () => 1 };
}

const WORK_HINT = "give the work per step: --samples-per-step '{batch}' or --tokens-per-step '{batch}*{seq_len}'";

function describeWorkDifference(work: ReadonlyArray<{ name: string; values: string[] }>): string {
  return work.map((w) => `${w.name} differs (${w.values.join(' vs ')})`).join(', ');
}

function atText(by: 'tokens' | 'samples' | 'step', at: number): string {
  return by === 'step' ? `step ${formatCount(at)}` : `${formatCount(at)} ${by}`;
}

function formatCount(value: number): string {
  return value.toLocaleString('en-US', { maximumSignificantDigits: Number.isInteger(value) && Math.abs(value) < 1e7 ? 21 : 4 });
}

/** The largest work both groups reached on a curve: each group's furthest run, then the smaller of the two. */
function reach(group: Group, curve: (r: Run) => ReadonlyArray<readonly [number, number]>, perStep: (r: Run) => number | null): number | null {
  const ends = group.runs.map((r) => {
    const last = curve(r).at(-1)?.[0];
    const scale = perStep(r);
    return last === undefined || scale === null ? null : last * scale;
  });
  const usable = nums(ends);
  return usable.length === 0 ? null : Math.max(...usable);
}

/** Train loss of a row and the baseline at the largest work both reached: each pair on its own, so other rows change nothing. */
function matchedTrainLoss(
  group: Group,
  base: Group,
): { at: number; by: 'tokens' | 'samples' | 'step'; own: number; base: number; ownRuns: number[]; baseRuns: number[] } | { why: string } | null {
  const measure = workMeasure(group, base);
  if (measure.by === null) return { why: measure.why };
  const curve = (r: Run) => r.summary.lossCurve;
  const a = reach(group, curve, measure.perStep);
  const b = reach(base, curve, measure.perStep);
  if (a === null || b === null) return null;
  const at = Math.min(a, b);
  const lossesOf = (g: Group) =>
    nums(
      g.runs.map((r) => {
        const scale = measure.perStep(r);
        return scale === null ? null : lossAt(r.summary.lossCurve, scale, at);
      }),
    );
  const ownRuns = lossesOf(group);
  const baseRuns = lossesOf(base);
  const own = medianOf(ownRuns);
  const baseLoss = medianOf(baseRuns);
  return own === null || baseLoss === null ? null : { at, by: measure.by, own, base: baseLoss, ownRuns, baseRuns };
}

/**
 * Each group's train loss at the largest work every group reached (each group's furthest run, then the smallest of
 * those): one column a reader can compare down where runs stopped at unequal work (a tune's runs of fast steps stop
 * after a stretch of time, so a faster config has gone further and its final loss is lower for that alone). A group
 * without a loss curve neither limits the work nor gets a loss. Where fewer than two groups have a curve, or the work
 * of a step differs and is not known, `at` is null and the losses are the groups' final ones (each the median of its
 * runs', as a comparison row's).
 */
export function lossesAtCommonWork(groups: ReadonlyArray<readonly Run[]>): { at: string | null; losses: Array<number | null> } {
  const finalLosses = { at: null, losses: groups.map((runs) => medianOf(runs.map((r) => r.summary.finalLoss))) };
  const curve = (r: Run) => r.summary.lossCurve;
  const withCurves = groups.filter((runs) => runs.some((r) => curve(r).length > 0));
  if (withCurves.length < 2) return finalLosses;
  const measure = workMeasure({ key: 'all', runs: withCurves.flat() }, { key: 'none', runs: [] });
  if (measure.by === null) return finalLosses;
  const reaches = nums(withCurves.map((runs) => reach({ key: '', runs: [...runs] }, curve, measure.perStep)));
  if (reaches.length < 2) return finalLosses;
  const at = Math.min(...reaches);
  const losses = groups.map((runs) =>
    medianOf(
      runs.map((r) => {
        const scale = measure.perStep(r);
        return scale === null ? null : lossAt(curve(r), scale, at);
      }),
    ),
  );
  return { at: atText(measure.by, at), losses };
}

/** Evals count as "at comparable work" within this share of each other's work (an eval every N steps rarely lands exactly). */
const COMPARABLE_WORK = 0.05;

/**
 * Eval loss of a row and the baseline at the largest work at which both evaluated (within COMPARABLE_WORK of each
 * other); each run's eval nearest that work. Runs whose summaries predate the eval curve give their final eval loss,
 * which is comparable only where a step's work is the same on both sides and both ran as many steps.
 */
function matchedEvalLoss(group: Group, base: Group): { compared: Compared } | { why: string } | null {
  const measure = workMeasure(group, base);
  if (measure.by === null) return { why: measure.why };
  const pointsOf = (g: Group) =>
    g.runs.flatMap((r) => {
      const scale = measure.perStep(r);
      if (scale === null) return [];
      const curve =
        r.summary.evalCurve.length > 0
          ? r.summary.evalCurve
          : r.summary.evalLoss !== null && r.summary.steps !== null
            ? [[r.summary.steps, r.summary.evalLoss] as [number, number]]
            : [];
      return curve.map(([step, loss]) => ({ run: r.id, work: step * scale, loss }));
    });
  // An eval at no work (nanoGPT's at step 0, before the first update) is of the untrained model: it cannot tell how
  // training went, so it never decides the gate; train loss at equal work does where no later eval matches.
  const trained = (points: ReturnType<typeof pointsOf>) => points.filter((p) => p.work > 0);
  const ownAll = pointsOf(group);
  const otherAll = pointsOf(base);
  if (ownAll.length === 0 || otherAll.length === 0) return null;
  const own = trained(ownAll);
  const other = trained(otherAll);
  if (own.length === 0 || other.length === 0) return { why: 'the only evals both made were before training (step 0), which cannot tell how training went' };
  const close = (x: number, y: number) => Math.abs(x - y) <= COMPARABLE_WORK * Math.max(x, y);
  const shared = own.map((p) => p.work).filter((w) => other.some((q) => close(q.work, w)));
  if (shared.length === 0) {
    const last = (points: typeof own) => Math.max(...points.map((p) => p.work));
    return { why: `no eval at comparable work (the last at ${atText(measure.by, last(own))} here, ${atText(measure.by, last(other))} for the baseline)` };
  }
  const at = Math.max(...shared);
  const near = (points: typeof own) => {
    const byRun = new Map<number, { work: number; loss: number }>();
    for (const p of points) {
      if (!close(p.work, at)) continue;
      const best = byRun.get(p.run);
      if (!best || Math.abs(p.work - at) < Math.abs(best.work - at)) byRun.set(p.run, p);
    }
    return [...byRun.values()].map((p) => p.loss);
  };
  const runValues = near(own);
  const baseRunValues = near(other);
  const value = medianOf(runValues);
  const baseValue = medianOf(baseRunValues);
  if (value === null || baseValue === null) return null;
  return { compared: { metric: 'eval_loss', at: atText(measure.by, at), value, base: baseValue, delta: value - baseValue, runValues, baseRunValues } };
}

function comparedValue(group: Group, base: Group, gate: QualityGate): { compared: Compared | null; note: string | null } {
  const pick = (g: Group, name: string) => nums(g.runs.map((r) => (name === 'loss' ? r.summary.finalLoss : r.summary.finalMetrics[name])));
  const named = (metric: string): Compared | null => {
    const runValues = pick(group, metric);
    const baseRunValues = pick(base, metric);
    const value = medianOf(runValues);
    const baseValue = medianOf(baseRunValues);
    return value === null || baseValue === null ? null : { metric, at: 'final', value, base: baseValue, delta: value - baseValue, runValues, baseRunValues };
  };
  const train = matchedTrainLoss(group, base);
  const trainCompared = (): Compared | null =>
    train === null || 'why' in train
      ? null
      : {
          metric: 'loss',
          at: atText(train.by, train.at),
          value: train.own,
          base: train.base,
          delta: train.own - train.base,
          runValues: train.ownRuns,
          baseRunValues: train.baseRuns,
        };
  const unfair = (result: { why: string } | { compared: Compared } | unknown): string | null =>
    typeof result === 'object' && result !== null && 'why' in result ? (result as { why: string }).why : null;
  if (gate.metric === 'auto' || gate.metric === 'eval_loss') {
    const evalResult = matchedEvalLoss(group, base);
    if (evalResult !== null && 'compared' in evalResult) return { compared: evalResult.compared, note: null };
    if (gate.metric === 'eval_loss') return { compared: null, note: unfair(evalResult) };
    const fallback = trainCompared();
    const why = unfair(evalResult);
    if (fallback) return { compared: fallback, note: why === null ? null : `train loss compared: ${why}` };
    return { compared: null, note: unfair(train) ?? why };
  }
  if (gate.metric === 'loss') {
    const fallback = trainCompared();
    return fallback ? { compared: fallback, note: null } : { compared: null, note: unfair(train) };
  }
  // Another metric (accuracy...) is compared where it ended: said so when the work per step differs.
  const result = named(gate.metric);
  const measure = workMeasure(group, base);
  return { compared: result, note: result !== null && measure.by === null ? `${gate.metric} compared where each ended: ${measure.why}` : null };
}

/** The gate in words: what is compared and how much worse passes. */
export function describeGate(gate: QualityGate): string {
  if (!gate.enabled) return 'no quality gate';
  const metric =
    gate.metric === 'auto' ? 'eval loss at equal work (train loss at equal work where there is no eval to match)' : gate.metric.replace(/_/gu, ' ');
  const sign = gate.direction === 'lower' ? '+' : '−';
  const limits = [
    gate.absolute !== null ? `${sign}${gate.absolute}` : '',
    gate.relative !== null ? `${sign}${Number((gate.relative * 100).toPrecision(3))} %` : '',
  ].filter(Boolean);
  const within = limits.length === 0 ? 'no worse than the baseline' : `within ${limits.join(' and ')} of the baseline`;
  return `${metric} ${within} (${gate.direction} is better)`;
}

/** The gate's one-sided level: a row fails only where its loss is worse beyond the allowance at this confidence. */
const GATE_CONFIDENCE = 0.95;

/**
 * How much worse than the allowance a row's loss may look by chance: a one-sided GATE_CONFIDENCE bound on the
 * difference of the sides' means from their runs' spread (Welch; a side of one run takes the other's spread), or
 * null where no side has two runs to show a spread. Runs that repeat exactly (a seeded script) have none: 0.
 */
function chanceMargin(compared: Compared): { margin: number; mean: number } | null {
  const own = compared.runValues ?? [];
  const other = compared.baseRunValues ?? [];
  if (own.length === 0 || other.length === 0 || (own.length < 2 && other.length < 2)) return null;
  const meanOf = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
  const varianceOf = (values: readonly number[]) => {
    const m = meanOf(values);
    return values.reduce((sum, v) => sum + (v - m) ** 2, 0) / (values.length - 1);
  };
  const mean = meanOf(own) - meanOf(other);
  let se: number;
  let df: number;
  if (own.length >= 2 && other.length >= 2) {
    const a = varianceOf(own) / own.length;
    const b = varianceOf(other) / other.length;
    se = Math.sqrt(a + b);
    df = a + b === 0 ? own.length + other.length - 2 : (a + b) ** 2 / (a ** 2 / (own.length - 1) + b ** 2 / (other.length - 1));
  } else {
    const spread = own.length >= 2 ? own : other;
    se = Math.sqrt(varianceOf(spread) * (1 / own.length + 1 / other.length));
    df = spread.length - 1;
  }
  return { margin: se === 0 ? 0 : studentTQuantile(GATE_CONFIDENCE, df) * se, mean };
}

export function judgeQuality(compared: Compared | null, note: string | null, nan: boolean, gate: QualityGate): { gate: ComparisonRow['gate']; reason: string } {
  if (!gate.enabled) return { gate: 'n/a', reason: 'gate off' };
  if (nan) return { gate: 'fail', reason: 'the loss became NaN or infinite' };
  if (compared === null) return { gate: 'n/a', reason: note ?? `no ${gate.metric === 'auto' ? 'loss' : gate.metric} on both sides to compare` };
  const sign = (value: number) => (gate.direction === 'lower' ? value : -value);
  const limits = [gate.absolute, gate.relative === null ? null : gate.relative * Math.abs(compared.base)].filter((v): v is number => v !== null);
  const allowed = limits.length === 0 ? 0 : Math.min(...limits);
  const tolerance = Number.EPSILON * Math.abs(compared.base);
  // Runs that differ from run to run (an unseeded script) fail only where the loss is worse beyond what chance explains.
  const chance = chanceMargin(compared);
  const fails = chance === null || chance.margin === 0 ? sign(compared.delta) > allowed + tolerance : sign(chance.mean) - chance.margin > allowed + tolerance;
  const where = compared.at === null ? '' : ` at ${compared.at}`;
  const spread = chance === null || chance.margin === 0 ? '' : ` and the runs' own spread, ±${chance.margin.toPrecision(3)} at ${GATE_CONFIDENCE * 100} %`;
  const text = `${compared.metric.replace(/_/gu, ' ')}${where} ${formatSigned(compared.delta)} against the baseline (${compared.value.toPrecision(4)} vs ${compared.base.toPrecision(4)}; allowed ${gate.direction === 'lower' ? '+' : '−'}${allowed.toPrecision(3)}${spread})`;
  // A pass where chance alone moves the loss by more than the allowance says little: said so, with what would say more.
  const blurred =
    !fails && chance !== null && chance.margin > allowed
      ? `; the ${compared.metric.replace(/_/gu, ' ')} differs from run to run by more than the allowance, so a change that small cannot be told from chance here (seed the script, or add repeats)`
      : '';
  const reason = note === null ? `${text}${blurred}` : `${text}${blurred}; ${note}`;
  return { gate: fails ? 'fail' : 'pass', reason };
}

function formatSigned(value: number): string {
  const text = Number(value.toPrecision(3)).toString();
  return value >= 0 ? `+${text}` : text;
}

/**
 * What two runs share when one is an identical copy of the other (the same seed ran twice): their stretch medians and
 * loss curves, equal to the last digit. Null for a run with no stretches, which is no one's copy.
 */
function measuredIdentity(run: Run): string | null {
  return run.summary.throughput.blocks.length === 0 ? null : JSON.stringify([run.summary.throughput.blocks, run.summary.lossCurve, run.summary.finalLoss]);
}

/** The first of `earlier` that `run` is an identical copy of, or null. */
function copyOf(run: Run, earlier: readonly Run[]): number | null {
  const identity = measuredIdentity(run);
  return identity === null ? null : (earlier.find((other) => measuredIdentity(other) === identity)?.id ?? null);
}

/** Repeats that are all identical copies of one another. */
function identicalCopies(group: Group): boolean {
  if (group.runs.length < 2) return false;
  const first = measuredIdentity(group.runs[0]!);
  return first !== null && group.runs.every((r) => measuredIdentity(r) === first);
}

/**
 * A row's throughput: the geometric mean of its runs' values, with the 95 % t-interval of it from two runs on, never
 * narrower than `resolution` (relative: how far the step timing's grain alone may move every run; see verdict.ts).
 */
export function rowThroughput(values: readonly number[], resolution = 0): { median: number | null; ci95: { low: number; high: number } | null } {
  if (values.length === 0) return { median: null, ci95: null };
  const logs = values.map(Math.log);
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  if (values.length < 2) return { median: Math.exp(mean), ci95: null };
  const sd = Math.sqrt(logs.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (logs.length - 1));
  const half = Math.max(studentTQuantile(1 - (1 - CONFIDENCE) / 2, logs.length - 1) * (sd / Math.sqrt(logs.length)), Math.log1p(resolution));
  return { median: Math.exp(mean), ci95: { low: Math.exp(mean - half), high: Math.exp(mean + half) } };
}

/** `batch=16 workers=4`: the values of the compared columns that differ from the baseline's. */
function changesFrom(config: Record<string, string>, baseline: Record<string, string>, columns: readonly string[]): string {
  const changed = columns.filter((c) => (config[c] ?? '-') !== (baseline[c] ?? '-'));
  return changed.map((c) => `${c}=${config[c] ?? '-'}`).join(' ');
}

/**
 * A row's name, by what it changes: a sweep's own names (`+batch=16`) while the sweep's own baseline is the
 * baseline; otherwise the values that differ from the chosen baseline's, so a row once named "baseline" is not
 * called that after another row became the baseline. Under `--by run` the run id leads.
 */
function rowName(group: Group, baseline: Group, columns: readonly string[], by: 'config' | 'run', sweepNames: ReadonlyMap<string, string>): string {
  const first = group.runs[0]!;
  const base = baseline.runs[0]!;
  const sweepsOwnBaseline = base.sweepId !== null && base.configIndex === 0 && first.sweepId === base.sweepId;
  const sweepName = first.sweepId !== null ? sweepNames.get(`${first.sweepId}:${first.configIndex}`) : undefined;
  let label: string;
  if (sweepName !== undefined && sweepsOwnBaseline) label = sweepName;
  else if (group === baseline)
    label =
      sweepName !== undefined && first.configIndex === 0
        ? sweepName
        : columns.map((c) => `${c}=${first.config[c] ?? '-'}`).join(' ') || first.workloadName || commandText(first.command);
  else label = changesFrom(first.config, base.config, columns) || sweepName || first.workloadName || commandText(first.command);
  return by === 'run' ? `run ${first.id}: ${label}` : label;
}

/** The fairness flags of a row's runs, each kind once with the runs it hit. */
function rowFairness(runs: readonly Run[]): ComparisonRow['fairness'] {
  const byKind = new Map<string, { runIds: number[]; message: string }>();
  for (const run of runs) {
    for (const issue of run.summary.fairness?.issues ?? []) {
      const entry = byKind.get(issue.kind) ?? { runIds: [], message: issue.message };
      entry.runIds.push(run.id);
      byKind.set(issue.kind, entry);
    }
  }
  return [...byKind].map(([kind, entry]) => ({ kind, runIds: entry.runIds, message: entry.message }));
}

function sameForAll(values: ReadonlyArray<number | null>): number | null {
  const first = values[0] ?? null;
  return values.every((v) => v === first) ? first : null;
}

/** When a run started, for telling runs that interleaved from runs apart in time; null for an imported log (its import time says nothing). */
function startOf(run: Run): number | null {
  const at = Date.parse(run.startedAt);
  return run.command[0] === IMPORTED_COMMAND || Number.isNaN(at) ? null : at;
}

/** The machine, from the baseline's first run's fingerprint. */
function machineOf(run: Run | undefined): Comparison['machine'] {
  const fingerprint = run?.fingerprint ?? {};
  const text = (key: string) => (typeof fingerprint[key] === 'string' ? (fingerprint[key] as string) : null);
  return { gpu: text('gpuName'), driver: text('driverVersion'), cpu: text('cpuModel'), torch: text('torchVersion') };
}

export function compareRuns(runs: readonly Run[], options: CompareOptions, sweepNames: ReadonlyMap<string, string> = new Map()): Comparison {
  const groups = groupRuns(runs, options.groupBy);
  if (groups.length === 0) throw new Error('nothing to compare: give runs or sweeps');
  const minEffect = options.minEffect ?? DEFAULT_MIN_EFFECT;
  const baselineGroup =
    (options.baselineRunId !== undefined ? groups.find((g) => g.runs.some((r) => r.id === options.baselineRunId)) : undefined) ?? groups[0]!;

  // A column for each variable whose value differs between rows.
  const variables = new Set(groups.flatMap((g) => g.runs.flatMap((r) => Object.keys(r.config))));
  const columns = [...variables].filter((name) => new Set(groups.map((g) => g.runs[0]!.config[name] ?? '')).size > 1);

  const speedRuns = (group: Group) => group.runs.filter(countsForSpeed);
  const baseRuns = speedRuns(baselineGroup);
  // The unit every row is shown in when one fits them all; otherwise each row is compared in the unit it shares with the baseline.
  const everyRun = groups.flatMap(speedRuns);
  const shared = commonUnit(everyRun).unit;
  const unevenRuns = everyRun.filter((r) => r.summary.throughput.uneven);
  // Whole-ms timing of short steps cannot place the median step closer than the change worth telling; the sum of the
  // steady steps' times is known to the grain at its two ends only.
  const coarseRuns = everyRun.filter((r) => timedTooCoarsely(r, minEffect));
  const byOverall = unevenRuns.length > 0 || coarseRuns.length > 0 || options.measureBy === 'workOverTime';
  const resolutionOf = (run: Run) =>
    byOverall ? (run.summary.throughput.overallResolution ?? run.summary.throughput.resolution) : run.summary.throughput.resolution;

  const acrossMachines = options.acrossMachines ?? false;
  const rows: ComparisonRow[] = groups.map((group) => {
    const isBaseline = group === baselineGroup;
    const counted = speedRuns(group);
    const pair = isBaseline ? { unit: shared ?? commonUnit(counted).unit, workDiffers: [] } : commonUnit([...baseRuns, ...counted]);
    const unit = isBaseline ? pair.unit : (shared ?? pair.unit);
    const rateIn = (run: Run) => (unit === null ? null : ratesOf(run, byOverall)[unit]);
    const values = nums(counted.map(rateIn));
    const throughput = rowThroughput(values, Math.max(0, ...counted.map((r) => resolutionOf(r) ?? 0)));
    const n = counted.length;
    // Rounds pair up only within one interleaved sweep: both sides' runs from it, each with its repeat.
    const oneSweep =
      counted.length > 0 && [...counted, ...baseRuns].every((r) => r.sweepId !== null && r.sweepId === counted[0]!.sweepId && r.repeatIndex !== null);
    const evidence = (list: readonly Run[]) =>
      list.flatMap((r) => {
        const rate = rateIn(r);
        return rate === null ? [] : [{ throughput: rate, round: oneSweep ? r.repeatIndex : null, resolution: resolutionOf(r), startedAtMs: startOf(r) }];
      });
    let speedup: ComparisonRow['speedup'] = {
      ratio: null,
      ci95: null,
      verdict: isBaseline ? 'baseline' : 'unknown',
      reason: null,
      method: null,
      moreRepeats: null,
      repeatsCannotDecide: false,
    };
    if (isBaseline) {
      if (throughput.median !== null) speedup = { ...speedup, ratio: 1 };
    } else if (counted.length > 0 && baseRuns.length > 0 && unit === null) {
      const why =
        pair.workDiffers.length > 0
          ? `${describeWorkDifference(pair.workDiffers)} and the work of a step is not known: no speedup, since steps/s across different work says nothing (${WORK_HINT})`
          : `units differ (${[...new Set(counted.map((r) => r.summary.throughput.unit))].join(', ')} here, ${[...new Set(baseRuns.map((r) => r.summary.throughput.unit))].join(', ')} for the baseline) and the work per step is not known to convert them: no speedup`;
      speedup = { ...speedup, reason: why };
    } else if (counted.length > 0 && baseRuns.length > 0) {
      const verdict = compareSpeeds(evidence(counted), evidence(baseRuns), { minEffect });
      const converted =
        new Set([...counted, ...baseRuns].map((r) => r.summary.throughput.unit)).size > 1 ||
        [...counted, ...baseRuns].some((r) => r.summary.throughput.unit !== unit);
      const reason = converted ? `${verdict.reason}; per ${WORK_NAME[unit!].replace(/s$/u, '')}, through the work per step` : verdict.reason;
      speedup = {
        ratio: verdict.ratio,
        ci95: verdict.ci95,
        verdict: verdict.verdict,
        reason,
        method: verdict.method,
        moreRepeats: verdict.moreRepeats,
        repeatsCannotDecide: verdict.repeatsCannotDecide ?? false,
      };
    }
    const finalLoss = medianOf(group.runs.map((r) => r.summary.finalLoss));
    const nan = group.runs.some((r) => r.summary.nanDetected === true || r.exitClass === 'nan_loss');
    const gated = isBaseline ? { compared: null, note: null } : comparedValue(group, baselineGroup, options.gate);
    const compared = gated.compared;
    const judged = isBaseline ? { gate: 'n/a' as const, reason: 'the baseline' } : judgeQuality(compared, gated.note, nan, options.gate);
    const matched = isBaseline ? null : matchedTrainLoss(group, baselineGroup);
    const power = meanOf(counted.map((r) => r.summary.gpu?.powerMeanW));
    const differences = new Set<string>();
    for (const run of group.runs) for (const d of conditionDifferences(run, baselineGroup.runs[0]!)) differences.add(d);
    for (const run of group.runs.slice(1)) for (const d of conditionDifferences(run, group.runs[0]!)) differences.add(`within repeats: ${d}`);
    const notes: string[] = [];
    if (identicalCopies(group)) notes.push(`repeats identical (same seed?): no run-to-run variance seen`);
    const partialRuns = group.runs.filter(isPartial);
    if (partialRuns.length > 0)
      notes.push(`partial: ${partialRuns.map((r) => `run ${r.id} ${r.status.replace('_', ' ')}`).join(', ')}; numbers from the steps it had`);
    const fairness = rowFairness(group.runs);
    const first = group.runs[0]!;
    const row: ComparisonRow = {
      key: group.key,
      name: rowName(group, baselineGroup, columns, options.groupBy, sweepNames),
      runIds: group.runs.map((r) => r.id),
      sweepId: first.sweepId,
      configIndex: first.configIndex,
      config: first.config,
      isBaseline,
      throughput: { median: throughput.median, ci95: throughput.ci95, unit: unit ?? counted[0]?.summary.throughput.unit ?? null },
      speedup,
      // Only where the verdict rested on an interval: one run a side has a plainer reason to stay undecided.
      ranApart: speedup.ci95 === null ? null : ranApart(evidence(counted), evidence(baseRuns)),
      runs: group.runs.map((r, i) => ({
        id: r.id,
        identicalTo: copyOf(r, group.runs.slice(0, i)),
        throughput: countsForSpeed(r) ? rateIn(r) : null,
        resolution: resolutionOf(r),
        steadySteps: r.summary.steadySteps,
        warmupSteps: r.summary.warmup?.steps ?? null,
        leftOutSteps: r.summary.outlierSteps,
        unfair: (r.summary.fairness?.issues ?? []).map((i) => i.kind),
      })),
      workPerStep: {
        tokens: sameForAll(group.runs.map((r) => positive(r.summary.tokensPerStep))),
        samples: sameForAll(group.runs.map((r) => positive(r.summary.samplesPerStep))),
      },
      fairness,
      n,
      partial: partialRuns.length > 0,
      notes,
      // The row says what was compared; each run's value stays with the gate that weighed their spread.
      compared: compared === null ? null : { metric: compared.metric, at: compared.at, value: compared.value, base: compared.base, delta: compared.delta },
      stepTimeMs: medianOf(counted.map((r) => r.summary.stepTimeMs.median)),
      vramPeakMiB: nums(counted.map((r) => r.summary.gpu?.vramPeakMiB)).reduce<number | null>((m, v) => (m === null || v > m ? v : m), null),
      utilMean: meanOf(counted.map((r) => r.summary.gpu?.utilMean)),
      powerMeanW: power,
      // W / (tokens/s) = J per token; per 1k tokens.
      energyPer1kTokensJ:
        power !== null && throughput.median !== null && unit === 'tokens/s' && throughput.median > 0 ? (power / throughput.median) * 1000 : null,
      finalLoss,
      evalLoss: medianOf(group.runs.map((r) => r.summary.evalLoss)),
      matchedLoss: matched === null || 'why' in matched ? null : { at: matched.at, by: matched.by, value: matched.own, delta: matched.own - matched.base },
      lossDelta: compared === null ? null : compared.delta,
      gate: judged.gate,
      gateReason: judged.reason,
      fasterButWorse: speedup.verdict === 'faster' && judged.gate === 'fail',
      exitClasses: [...new Set(group.runs.map((r) => r.exitClass ?? r.status))],
      differences: [...differences],
      best: false,
      machine: null,
    };
    return applyMachineRule(row, group.runs, baselineGroup.runs, acrossMachines);
  });

  // Rows of the same name that are not the same code, place or command say which.
  rowDistinctions(
    groups.map((g) => g.runs[0]!),
    rows.map((r) => r.name),
  ).forEach((suffix, i) => (rows[i]!.name += suffix));

  // Best: the fastest row that is faster than the baseline (by its verdict) and does not fail the gate, with every
  // run ok; when none is, the baseline stays best. (A gate with nothing to compare on either side does not fail.)
  const passes = (r: ComparisonRow) => r.gate !== 'fail';
  const candidates = rows.filter(
    (r) => r.speedup.verdict === 'faster' && passes(r) && r.exitClasses.every((c) => c === 'ok') && r.speedup.ratio !== null && mayBeBest(r, acrossMachines),
  );
  const best = candidates.reduce<ComparisonRow | null>((b, r) => (b === null || r.speedup.ratio! > b.speedup.ratio! ? r : b), null);
  const baselineRow = rows.find((r) => r.isBaseline)!;
  if (best) best.best = true;
  else if (baselineRow.throughput.median !== null) baselineRow.best = true;

  const notes: string[] = [];
  if (rows.some((r) => r.differences.length > 0)) notes.push('Some runs ran under different GPU settings or environments: see the flagged rows.');
  if (rows.some((r) => r.fairness.length > 0))
    notes.push('Rows flagged ⚠ have runs on a machine that was not fair (others busy, throttling): re-run them on a quiet one.');
  const machines = machineNote(rows, acrossMachines);
  if (machines !== null) notes.push(machines);
  if (unevenRuns.length === 0 && coarseRuns.length > 0 && options.measureBy !== 'workOverTime') {
    notes.push(
      `The step timing of run${coarseRuns.length === 1 ? '' : 's'} ${coarseRuns.map((r) => r.id).join(', ')} is too coarse to place a median step within ±${Number((minEffect * 50).toPrecision(2))} % (whole milliseconds of short steps): every run here is measured by its steady steps' work over their time, whose sum is known to the millisecond at its two ends.`,
    );
  }
  if (unevenRuns.length > 0) {
    notes.push(
      `Steps come unevenly in run${unevenRuns.length === 1 ? '' : 's'} ${unevenRuns.map((r) => r.id).join(', ')} (bursts): every run here is measured by its steady steps' work over their time, not its median step, so all are measured one way.`,
    );
  }
  notes.push(
    'Losses compared pair by pair: each row against the baseline at the largest work (tokens, samples, or steps where a step holds the same work) both reached.',
  );
  return {
    columns,
    rows,
    baselineKey: baselineGroup.key,
    groupBy: options.groupBy,
    gate: options.gate,
    gateText: describeGate(options.gate),
    minEffect,
    machine: machineOf(baselineGroup.runs[0]),
    environment: describeEnvironment(runs),
    commands: [...(options.commands ?? [])],
    generatedAt: options.now.toISOString(),
    notes,
  };
}
