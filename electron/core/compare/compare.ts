// Runs side by side against a baseline: one row per config (repeats pooled) or per run, with a
// bootstrap verdict on speed, a quality gate on loss, and flags where settings or environments differ.
import { mean, median } from 'simple-statistics';
import type { Comparison, ComparisonRow, Run } from '../../shared/api.js';
import { bootstrapMedian, bootstrapRatio } from './bootstrap.js';

export interface CompareOptions {
  groupBy: 'config' | 'run';
  /** A run whose row is the baseline; default: the first row. */
  baselineRunId?: number | undefined;
  gate: { absolute: number; relative: number };
  now: Date;
}

interface Group {
  key: string;
  runs: Run[];
}

function configKey(run: Run): string {
  if (run.sweepId !== null && run.configIndex !== null) return `sweep ${run.sweepId} config ${run.configIndex}`;
  const config = JSON.stringify(Object.entries(run.config).sort(([a], [b]) => a.localeCompare(b)));
  return `${run.workloadName ?? run.command.join(' ')} ${config}`;
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

export function compareRuns(runs: readonly Run[], options: CompareOptions, sweepNames: ReadonlyMap<string, string> = new Map()): Comparison {
  const groups = groupRuns(runs, options.groupBy);
  if (groups.length === 0) throw new Error('nothing to compare: give runs or sweeps');
  const baselineGroup =
    (options.baselineRunId !== undefined ? groups.find((g) => g.runs.some((r) => r.id === options.baselineRunId)) : undefined) ?? groups[0]!;

  // A column for each variable whose value differs between rows.
  const variables = new Set(groups.flatMap((g) => Object.keys(g.runs[0]!.config)));
  const columns = [...variables].filter((name) => new Set(groups.map((g) => g.runs[0]!.config[name] ?? '')).size > 1);

  const blocks = (group: Group) => group.runs.filter((r) => r.exitClass === 'ok').map((r) => r.summary.throughput.blocks);
  const baseBlocks = blocks(baselineGroup);
  const baseThroughput = medianOf(baselineGroup.runs.filter((r) => r.exitClass === 'ok').map((r) => r.summary.throughput.median));
  const baseLoss = medianOf(baselineGroup.runs.map((r) => r.summary.finalLoss));

  // Loss compared where every row has one: at the smallest token count (or step) all of them reached.
  const tokensKnown = groups.every((g) => g.runs.some((r) => r.summary.tokensPerStep !== null && r.summary.lossCurve.length > 0));
  const by: 'step' | 'tokens' = tokensKnown ? 'tokens' : 'step';
  const reach = groups.map((g) => {
    const ends = g.runs.map((r) => {
      const last = r.summary.lossCurve.at(-1)?.[0];
      if (last === undefined) return null;
      return by === 'tokens' ? last * (r.summary.tokensPerStep ?? 0) : last;
    });
    return Math.max(...nums(ends), Number.NEGATIVE_INFINITY);
  });
  const matchAt = reach.every(Number.isFinite) ? Math.min(...reach) : null;
  const matched = (group: Group) => (matchAt === null ? null : medianOf(group.runs.map((r) => lossAt(r, matchAt, by))));
  const baseMatched = matched(baselineGroup);

  const rows: ComparisonRow[] = groups.map((group, index) => {
    const ok = group.runs.filter((r) => r.exitClass === 'ok');
    const isBaseline = group === baselineGroup;
    const throughput = medianOf(ok.map((r) => r.summary.throughput.median));
    const ratio = throughput !== null && baseThroughput !== null && baseThroughput > 0 ? throughput / baseThroughput : null;
    const ci = isBaseline ? null : bootstrapRatio(blocks(group), baseBlocks, index + 1);
    const verdict: ComparisonRow['speedup']['verdict'] = isBaseline
      ? 'baseline'
      : ci === null
        ? 'unknown'
        : ci.low > 1
          ? 'faster'
          : ci.high < 1
            ? 'slower'
            : 'within noise';
    const finalLoss = medianOf(group.runs.map((r) => r.summary.finalLoss));
    const nan = group.runs.some((r) => r.summary.nanDetected === true || r.exitClass === 'nan_loss');
    const rowMatched = matched(group);
    const compared = rowMatched !== null && baseMatched !== null ? { own: rowMatched, base: baseMatched } : finalLoss !== null && baseLoss !== null ? { own: finalLoss, base: baseLoss } : null;
    const delta = compared === null ? null : compared.own - compared.base;
    const allowed = compared === null ? null : Math.max(options.gate.absolute, options.gate.relative * Math.abs(compared.base));
    const gate: ComparisonRow['gate'] = nan ? 'fail' : delta === null || allowed === null ? 'n/a' : delta <= allowed ? 'pass' : 'fail';
    const gateReason = nan
      ? 'the loss became NaN or infinite'
      : delta === null
        ? 'no loss to compare'
        : `loss ${delta >= 0 ? '+' : ''}${delta.toFixed(4)} against the baseline (allowed +${allowed!.toFixed(4)})`;
    const power = meanOf(ok.map((r) => r.summary.gpu?.powerMeanW));
    const unit = ok.find((r) => r.summary.throughput.unit)?.summary.throughput.unit ?? null;
    const differences = new Set<string>();
    for (const run of group.runs) for (const d of conditionDifferences(run, baselineGroup.runs[0]!)) differences.add(d);
    for (const run of group.runs.slice(1)) for (const d of conditionDifferences(run, group.runs[0]!)) differences.add(`within repeats: ${d}`);
    const first = group.runs[0]!;
    const sweepName = first.sweepId !== null ? sweepNames.get(`${first.sweepId}:${first.configIndex}`) : undefined;
    return {
      key: group.key,
      name: sweepName ?? rowName(group, columns, options.groupBy),
      runIds: group.runs.map((r) => r.id),
      sweepId: first.sweepId,
      configIndex: first.configIndex,
      config: first.config,
      isBaseline,
      throughput: { median: throughput, ci95: bootstrapMedian(blocks(group), index + 101), unit },
      speedup: { ratio, ci95: ci, verdict },
      stepTimeMs: medianOf(ok.map((r) => r.summary.stepTimeMs.median)),
      vramPeakMiB: nums(ok.map((r) => r.summary.gpu?.vramPeakMiB)).reduce<number | null>((m, v) => (m === null || v > m ? v : m), null),
      utilMean: meanOf(ok.map((r) => r.summary.gpu?.utilMean)),
      powerMeanW: power,
      // W / (tokens/s) = J per token; per 1k tokens.
      energyPer1kTokensJ: power !== null && throughput !== null && unit === 'tokens/s' && throughput > 0 ? (power / throughput) * 1000 : null,
      finalLoss,
      evalLoss: medianOf(group.runs.map((r) => r.summary.evalLoss)),
      matchedLoss: rowMatched !== null && baseMatched !== null && matchAt !== null ? { at: matchAt, by, value: rowMatched, delta: rowMatched - baseMatched } : null,
      lossDelta: delta,
      gate,
      gateReason,
      fasterButWorse: verdict === 'faster' && gate === 'fail',
      exitClasses: [...new Set(group.runs.map((r) => r.exitClass ?? r.status))],
      differences: [...differences],
      best: false,
    };
  });

  const candidates = rows.filter((r) => r.gate !== 'fail' && r.throughput.median !== null && r.exitClasses.every((c) => c === 'ok'));
  const best = candidates.reduce<ComparisonRow | null>((b, r) => (b === null || r.throughput.median! > b.throughput.median! ? r : b), null);
  if (best) best.best = true;

  const notes: string[] = [];
  if (rows.some((r) => r.differences.length > 0)) notes.push('Some runs ran under different GPU settings or environments: see the flagged rows.');
  if (matchAt !== null) notes.push(`Losses compared at ${by === 'tokens' ? `${Math.round(matchAt)} tokens` : `step ${matchAt}`}, which every row reached.`);
  return {
    columns,
    rows,
    baselineKey: baselineGroup.key,
    groupBy: options.groupBy,
    gate: options.gate,
    generatedAt: options.now.toISOString(),
    notes,
  };
}
