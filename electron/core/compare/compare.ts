// Runs side by side against a baseline: one row per config (repeats pooled) or per run, with a
// bootstrap verdict on speed, a quality gate on loss, and flags where settings or environments differ.
import { mean, median } from 'simple-statistics';
import type { Comparison, ComparisonRow, QualityGate, Run } from '../../shared/api.js';
import { bootstrapMedian, bootstrapRatio } from './bootstrap.js';
import { applyMachineRule, machineKey, machineNote, mayBeBest } from './machines.js';

export interface CompareOptions {
  groupBy: 'config' | 'run';
  /** A run whose row is the baseline; default: the first row. */
  baselineRunId?: number | undefined;
  gate: QualityGate;
  now: Date;
  /** Speedups between rows from different machines too (flagged); without it those rows get none. */
  acrossMachines?: boolean | undefined;
}

interface Group {
  key: string;
  runs: Run[];
}

function configKey(run: Run): string {
  if (run.sweepId !== null && run.configIndex !== null) return `sweep ${run.sweepId} config ${run.configIndex}`;
  const config = JSON.stringify(Object.entries(run.config).sort(([a], [b]) => a.localeCompare(b)));
  // Runs from two machines are never pooled into one row, however alike their configs.
  const machine = machineKey(run);
  return `${run.workloadName ?? run.command.join(' ')} ${config}${machine === '' ? '' : ` on ${machine}`}`;
}

/** Rows in the order their first run appears; runs already ordered by the caller. */
function groupRuns(runs: readonly Run[], by: 'config' | 'run'): Group[] {
  const groups = new Map<string, Group>();
  for (const run of runs) {
    const key = by === 'run' ? `run ${run.id}` : configKey(run);
    const group = groups.get(key) ?? { key, runs: [] };
    group.runs.push(run);
    groups.set(key, group);
  }
  return [...groups.values()];
}

const nums = (values: ReadonlyArray<number | null | undefined>) => values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
const medianOf = (values: ReadonlyArray<number | null | undefined>) => {
  const v = nums(values);
  return v.length === 0 ? null : median(v);
};
const meanOf = (values: ReadonlyArray<number | null | undefined>) => {
  const v = nums(values);
  return v.length === 0 ? null : mean(v);
};

/** Loss at `at` (a step, or tokens when `tokensPerStep` is given) by linear interpolation of the stored curve. */
function lossAt(run: Run, at: number, by: 'step' | 'tokens'): number | null {
  const perStep = by === 'tokens' ? run.summary.tokensPerStep : 1;
  if (perStep === null || perStep <= 0) return null;
  const curve = run.summary.lossCurve.map(([step, loss]) => [step * perStep, loss] as const);
  if (curve.length === 0 || at > curve.at(-1)![0]) return null;
  let previous = curve[0]!;
  if (at <= previous[0]) return previous[1];
  for (const point of curve) {
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

function rowName(group: Group, columns: readonly string[], by: 'config' | 'run'): string {
  const first = group.runs[0]!;
  if (by === 'run') return `run ${first.id}`;
  const values = columns.map((c) => `${c}=${first.config[c] ?? '-'}`).join(' ');
  return values || first.workloadName || `run ${first.id}`;
}

/** Runs whose steps count for speed: finished cleanly, or stopped, timed out or interrupted (partial, from the steps they had). */
const PARTIAL_STATUSES: ReadonlySet<string> = new Set(['stopped', 'timed_out', 'interrupted']);
const isPartial = (run: Run) => PARTIAL_STATUSES.has(run.status);
const countsForSpeed = (run: Run) => (run.exitClass === 'ok' || isPartial(run)) && run.summary.throughput.median !== null;

/** A run's throughput (median and stretch medians) in `unit`, converted through its tokens per step when it must be; null when it cannot be. */
function throughputIn(run: Run, unit: string): { median: number; blocks: number[] } | null {
  const own = run.summary.throughput;
  if (own.median === null) return null;
  const factor = conversion(own.unit, unit, run.summary.tokensPerStep);
  return factor === null ? null : { median: own.median * factor, blocks: own.blocks.map((b) => b * factor) };
}

function conversion(from: string | null, to: string, tokensPerStep: number | null): number | null {
  if (from === to) return 1;
  if (tokensPerStep === null || tokensPerStep <= 0) return null;
  if (from === 'steps/s' && to === 'tokens/s') return tokensPerStep;
  if (from === 'tokens/s' && to === 'steps/s') return 1 / tokensPerStep;
  return null;
}

/** The value one run gives for the gate's metric; `at` is the matched point for the train loss. */
interface Compared {
  metric: string;
  at: string | null;
  value: number;
  base: number;
  delta: number;
}

function reach(group: Group, by: 'step' | 'tokens'): number | null {
  const ends = group.runs.map((r) => {
    const last = r.summary.lossCurve.at(-1)?.[0];
    if (last === undefined) return null;
    return by === 'tokens' ? last * (r.summary.tokensPerStep ?? 0) : last;
  });
  const usable = nums(ends);
  return usable.length === 0 ? null : Math.max(...usable);
}

/** Train loss of a row and the baseline at the largest token count (or step) both reached: each pair on its own, so other rows change nothing. */
function matchedPair(group: Group, base: Group): { at: number; by: 'step' | 'tokens'; own: number; base: number } | null {
  const tokensKnown = [group, base].every((g) => g.runs.some((r) => r.summary.tokensPerStep !== null && r.summary.lossCurve.length > 0));
  const by: 'step' | 'tokens' = tokensKnown ? 'tokens' : 'step';
  const a = reach(group, by);
  const b = reach(base, by);
  if (a === null || b === null) return null;
  const at = Math.min(a, b);
  const own = medianOf(group.runs.map((r) => lossAt(r, at, by)));
  const baseLoss = medianOf(base.runs.map((r) => lossAt(r, at, by)));
  return own === null || baseLoss === null ? null : { at, by, own, base: baseLoss };
}

const atText = (m: { at: number; by: 'step' | 'tokens' }) => (m.by === 'tokens' ? `${Number(m.at.toPrecision(4))} tokens` : `step ${m.at}`);

function comparedValue(group: Group, base: Group, gate: CompareOptions['gate']): Compared | null {
  const pick = (g: Group, name: string) =>
    medianOf(g.runs.map((r) => (name === 'eval_loss' ? (r.summary.evalLoss ?? r.summary.finalMetrics[name]) : name === 'loss' ? r.summary.finalLoss : r.summary.finalMetrics[name])));
  const named = (metric: string): Compared | null => {
    const value = pick(group, metric);
    const baseValue = pick(base, metric);
    return value === null || baseValue === null ? null : { metric, at: 'final', value, base: baseValue, delta: value - baseValue };
  };
  const matchedLoss = (): Compared | null => {
    const m = matchedPair(group, base);
    return m === null ? null : { metric: 'loss', at: atText(m), value: m.own, base: m.base, delta: m.own - m.base };
  };
  if (gate.metric === 'auto') return named('eval_loss') ?? matchedLoss() ?? named('loss');
  if (gate.metric === 'loss') return matchedLoss() ?? named('loss');
  return named(gate.metric);
}

/** The gate in words: what is compared and how much worse passes. */
export function describeGate(gate: CompareOptions['gate']): string {
  if (!gate.enabled) return 'no quality gate';
  const metric = gate.metric === 'auto' ? 'final eval loss (train loss at the matched point where a side has none)' : gate.metric.replace(/_/gu, ' ');
  const sign = gate.direction === 'lower' ? '+' : '−';
  const limits = [gate.absolute !== null ? `${sign}${gate.absolute}` : '', gate.relative !== null ? `${sign}${Number((gate.relative * 100).toPrecision(3))} %` : ''].filter(Boolean);
  const within = limits.length === 0 ? 'no worse than the baseline' : `within ${limits.join(' and ')} of the baseline`;
  return `${metric} ${within} (${gate.direction} is better)`;
}

function judge(compared: Compared | null, nan: boolean, gate: CompareOptions['gate']): { gate: ComparisonRow['gate']; reason: string } {
  if (!gate.enabled) return { gate: 'n/a', reason: 'gate off' };
  if (nan) return { gate: 'fail', reason: 'the loss became NaN or infinite' };
  if (compared === null) return { gate: 'n/a', reason: `no ${gate.metric === 'auto' ? 'loss' : gate.metric} on both sides to compare` };
  const worse = gate.direction === 'lower' ? compared.delta : -compared.delta;
  const limits = [gate.absolute, gate.relative === null ? null : gate.relative * Math.abs(compared.base)].filter((v): v is number => v !== null);
  const allowed = limits.length === 0 ? 0 : Math.min(...limits);
  const where = compared.at === null ? '' : ` at ${compared.at}`;
  const text = `${compared.metric.replace(/_/gu, ' ')}${where} ${formatSigned(compared.delta)} against the baseline (${compared.value.toPrecision(4)} vs ${compared.base.toPrecision(4)}; allowed ${gate.direction === 'lower' ? '+' : '−'}${allowed.toPrecision(3)})`;
  return { gate: worse <= allowed + Number.EPSILON * Math.abs(compared.base) ? 'pass' : 'fail', reason: text };
}

function formatSigned(value: number): string {
  const text = Number(value.toPrecision(3)).toString();
  return value >= 0 ? `+${text}` : text;
}

/** Repeats whose stretch medians and loss curves are equal to the last digit: the same seed ran twice. */
function identicalCopies(group: Group): boolean {
  if (group.runs.length < 2) return false;
  const fingerprint = (r: Run) => JSON.stringify([r.summary.throughput.blocks, r.summary.lossCurve, r.summary.finalLoss]);
  const first = fingerprint(group.runs[0]!);
  return group.runs[0]!.summary.throughput.blocks.length > 0 && group.runs.every((r) => fingerprint(r) === first);
}

export function compareRuns(runs: readonly Run[], options: CompareOptions, sweepNames: ReadonlyMap<string, string> = new Map()): Comparison {
  const groups = groupRuns(runs, options.groupBy);
  if (groups.length === 0) throw new Error('nothing to compare: give runs or sweeps');
  const baselineGroup =
    (options.baselineRunId !== undefined ? groups.find((g) => g.runs.some((r) => r.id === options.baselineRunId)) : undefined) ?? groups[0]!;

  // A column for each variable whose value differs between rows.
  const variables = new Set(groups.flatMap((g) => Object.keys(g.runs[0]!.config)));
  const columns = [...variables].filter((name) => new Set(groups.map((g) => g.runs[0]!.config[name] ?? '')).size > 1);

  const speedRuns = (group: Group) => group.runs.filter(countsForSpeed);
  const baseRuns = speedRuns(baselineGroup);
  const unitsOf = (list: readonly Run[]) => new Set(list.map((r) => r.summary.throughput.unit));
  const tokensKnown = (list: readonly Run[]) => list.every((r) => r.summary.tokensPerStep !== null && r.summary.tokensPerStep > 0);
  /**
   * The unit a row and the baseline are compared in: their own when all share it; tokens/s when the
   * units differ and every run on both sides knows its tokens per step; otherwise none (no speedup).
   */
  const commonUnit = (list: readonly Run[]): string | null => {
    const units = unitsOf([...list, ...baseRuns]);
    if (units.size === 1) return [...units][0] ?? null;
    return tokensKnown([...list, ...baseRuns]) && [...units].every((u) => u === 'tokens/s' || u === 'steps/s') ? 'tokens/s' : null;
  };
  const ratesIn = (list: readonly Run[], unit: string) => list.flatMap((r) => {
    const rate = throughputIn(r, unit);
    return rate ? [rate] : [];
  });

  const acrossMachines = options.acrossMachines ?? false;
  const rows: ComparisonRow[] = groups.map((group, index) => {
    const isBaseline = group === baselineGroup;
    const counted = speedRuns(group);
    const unit = isBaseline ? (counted.length > 0 && unitsOf(counted).size === 1 ? (counted[0]!.summary.throughput.unit ?? null) : commonUnit(counted)) : commonUnit(counted);
    const rates = unit === null ? [] : ratesIn(counted, unit);
    const baseRates = unit === null ? [] : ratesIn(baseRuns, unit);
    const throughput = medianOf(rates.map((r) => r.median));
    const baseThroughput = medianOf(baseRates.map((r) => r.median));
    const n = counted.length;
    let reason: string | null = null;
    let ratio: number | null = null;
    let ci: ComparisonRow['speedup']['ci95'] = null;
    let verdict: ComparisonRow['speedup']['verdict'] = isBaseline ? 'baseline' : 'unknown';
    if (unit === null && counted.length > 0) {
      const units = [...unitsOf(counted)].join(', ');
      const baseUnits = [...unitsOf(baseRuns)].join(', ');
      reason = `units differ (${units} here, ${baseUnits || 'none'} for the baseline) and the tokens per step are not known to convert them: no speedup`;
    } else if (isBaseline && throughput !== null) {
      ratio = 1;
    } else if (throughput !== null && baseThroughput !== null && baseThroughput > 0) {
      ratio = throughput / baseThroughput;
      ci = bootstrapRatio(rates.map((r) => r.blocks), baseRates.map((r) => r.blocks), index + 1);
      if (unitsOf([...counted, ...baseRuns]).size > 1) reason = `converted to ${unit ?? ''} through the tokens per step`;
      if (n < 2 || baseRates.length < 2) {
        verdict = 'repeat to decide';
        reason = n < 2 && baseRates.length < 2 ? '1 run each: repeat to decide' : `${Math.min(n, baseRates.length)} run on one side: repeat to decide`;
      } else if (ci !== null) verdict = ci.low > 1 ? 'faster' : ci.high < 1 ? 'slower' : 'within noise';
    }
    const finalLoss = medianOf(group.runs.map((r) => r.summary.finalLoss));
    const nan = group.runs.some((r) => r.summary.nanDetected === true || r.exitClass === 'nan_loss');
    const compared = isBaseline ? null : comparedValue(group, baselineGroup, options.gate);
    const judged = isBaseline ? { gate: 'n/a' as const, reason: 'the baseline' } : judge(compared, nan, options.gate);
    const matched = isBaseline ? null : matchedPair(group, baselineGroup);
    const power = meanOf(counted.map((r) => r.summary.gpu?.powerMeanW));
    const differences = new Set<string>();
    for (const run of group.runs) for (const d of conditionDifferences(run, baselineGroup.runs[0]!)) differences.add(d);
    for (const run of group.runs.slice(1)) for (const d of conditionDifferences(run, group.runs[0]!)) differences.add(`within repeats: ${d}`);
    const notes: string[] = [];
    if (identicalCopies(group)) notes.push(`repeats identical (same seed?): no run-to-run variance seen`);
    const partialRuns = group.runs.filter(isPartial);
    if (partialRuns.length > 0) notes.push(`partial: ${partialRuns.map((r) => `run ${r.id} ${r.status.replace('_', ' ')}`).join(', ')}; numbers from the steps it had`);
    const first = group.runs[0]!;
    const sweepName = first.sweepId !== null ? sweepNames.get(`${first.sweepId}:${first.configIndex}`) : undefined;
    const row: ComparisonRow = {
      key: group.key,
      name: sweepName ?? rowName(group, columns, options.groupBy),
      runIds: group.runs.map((r) => r.id),
      sweepId: first.sweepId,
      configIndex: first.configIndex,
      config: first.config,
      isBaseline,
      throughput: { median: throughput, ci95: bootstrapMedian(rates.map((r) => r.blocks), index + 101), unit: unit ?? (counted[0]?.summary.throughput.unit ?? null) },
      speedup: { ratio, ci95: ci, verdict, reason },
      n,
      partial: partialRuns.length > 0,
      notes,
      compared,
      stepTimeMs: medianOf(counted.map((r) => r.summary.stepTimeMs.median)),
      vramPeakMiB: nums(counted.map((r) => r.summary.gpu?.vramPeakMiB)).reduce<number | null>((m, v) => (m === null || v > m ? v : m), null),
      utilMean: meanOf(counted.map((r) => r.summary.gpu?.utilMean)),
      powerMeanW: power,
      // W / (tokens/s) = J per token; per 1k tokens.
      energyPer1kTokensJ: power !== null && throughput !== null && unit === 'tokens/s' && throughput > 0 ? (power / throughput) * 1000 : null,
      finalLoss,
      evalLoss: medianOf(group.runs.map((r) => r.summary.evalLoss)),
      matchedLoss: matched === null ? null : { at: matched.at, by: matched.by, value: matched.own, delta: matched.own - matched.base },
      lossDelta: compared === null ? null : compared.delta,
      gate: judged.gate,
      gateReason: judged.reason,
      fasterButWorse: verdict === 'faster' && judged.gate === 'fail',
      exitClasses: [...new Set(group.runs.map((r) => r.exitClass ?? r.status))],
      differences: [...differences],
      best: false,
      machine: null,
    };
    return applyMachineRule(row, group.runs, baselineGroup.runs, acrossMachines);
  });

  const candidates = rows.filter((r) => r.gate !== 'fail' && r.throughput.median !== null && r.exitClasses.every((c) => c === 'ok') && mayBeBest(r, acrossMachines));
  const best = candidates.reduce<ComparisonRow | null>((b, r) => (b === null || r.throughput.median! > b.throughput.median! ? r : b), null);
  if (best) best.best = true;

  const notes: string[] = [];
  if (rows.some((r) => r.differences.length > 0)) notes.push('Some runs ran under different GPU settings or environments: see the flagged rows.');
  const machines = machineNote(rows, acrossMachines);
  if (machines !== null) notes.push(machines);
  notes.push('Losses compared pair by pair: each row against the baseline at the largest token count (or step) both reached.');
  return {
    columns,
    rows,
    baselineKey: baselineGroup.key,
    groupBy: options.groupBy,
    gate: options.gate,
    gateText: describeGate(options.gate),
    generatedAt: options.now.toISOString(),
    notes,
  };
}
