// Human-readable text for the CLI: one run, a list of runs, byte counts and durations.
import { shellQuote as quoteWord } from '../core/runner/template.js';
import type { Run } from '../shared/api.js';
import { knobLines, knobsInForce } from '../shared/knobs.js';
import { describeMetricsFound, hasAllMetrics, hasMetrics, metricsFound } from '../shared/metricsFound.js';

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${Math.round(seconds % 60)}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

/** An argv as a line a POSIX shell would run the same way. */
export function shellQuote(argv: readonly string[]): string {
  return argv.map(quoteWord).join(' ');
}

function runDuration(run: Run): string {
  if (!run.endedAt) return 'running';
  return formatDuration(Date.parse(run.endedAt) - Date.parse(run.startedAt));
}

export function formatRunDetails(run: Run): string {
  const lines = [
    `run ${run.id}${run.workloadName ? ` (${run.workloadName})` : ''}: ${run.status}`,
    `  command   ${shellQuote(run.command)}`,
    `  cwd       ${run.cwd}`,
  ];
  const config = Object.entries(run.config);
  if (config.length > 0) lines.push(`  config    ${config.map(([k, v]) => `${k}=${v}`).join(' ')}`);
  if (run.knobs) {
    const torch = run.knobs.torch ? ` (torch ${run.knobs.torch}, ${run.knobs.cuda ? 'CUDA' : 'no CUDA'})` : '';
    lines.push(`  knobs     in force: ${knobsInForce(run.knobs).join(' ') || 'none'}${torch}`);
    for (const line of knobLines(run.knobs)) lines.push(`            ${line}`);
  }
  lines.push(
    `  started   ${run.startedAt}`,
    `  duration  ${runDuration(run)}`,
    `  exit      ${run.exitCode ?? '-'}${run.signal ? ` (${run.signal})` : ''}  class ${run.exitClass ?? '-'}`,
  );
  if (run.exitReason) lines.push(`  reason    ${run.exitReason}`);
  lines.push(`  output    ${formatBytes(run.outputBytes)} (${run.outputBytes} bytes)`);
  if (run.outputDroppedBytes > 0) {
    lines.push(`  dropped   ${formatBytes(run.outputDroppedBytes)} of output read for metrics but not stored: the disk was full`);
  }
  const { summary } = run;
  if (summary.throughput.median !== null) {
    const iqr = summary.throughput.iqr !== null ? `, IQR ${summary.throughput.iqr.toFixed(1)}` : '';
    lines.push(`  speed     ${summary.throughput.median.toFixed(1)} ${summary.throughput.unit ?? ''} (steady median${iqr})`);
  }
  if (summary.stepTimeMs.median !== null) lines.push(`  step      ${summary.stepTimeMs.median.toFixed(2)} ms (median)`);
  if (summary.warmup) {
    const how =
      summary.warmup.reason !== ''
        ? summary.warmup.reason
        : summary.warmup.rule === 'auto'
          ? summary.warmup.stable
            ? 'detected'
            : 'not stable; first fifth skipped'
          : `by ${summary.warmup.rule}`;
    const setBy = summary.warmup.setBy === null ? '' : ` [set by hand for the ${summary.warmup.setBy}]`;
    lines.push(`  warm-up   ${summary.warmup.steps} step${summary.warmup.steps === 1 ? '' : 's'}, ${summary.warmup.seconds.toFixed(2)} s (${how})${setBy}`);
  }
  for (const stretch of summary.slowStretches.slice(0, 5)) {
    lines.push(
      `  slow      steps ${stretch.fromStep}-${stretch.toStep}: ${Math.round(stretch.slowerBy * 100)} % slower than the steady median, kept (load or an event, not warm-up)`,
    );
  }
  if (summary.host?.otherCpuCoresMean != null) {
    lines.push(
      `  host      other processes used ${summary.host.otherCpuCoresMean.toFixed(2)} CPU cores on average${summary.host.cores ? ` (of ${summary.host.cores})` : ''}`,
    );
  }
  if (summary.fairness) {
    lines.push(
      summary.fairness.ok
        ? '  fair      yes: quiet host and GPU'
        : `  fair      NO: ${summary.fairness.issues.map((i) => `${i.kind} (${i.message})`).join('; ')}`,
    );
  }
  if (summary.steps !== null) {
    const leftOut = [
      summary.outlierSteps > 0 ? `${summary.outlierSteps} left out: ${leftOutWhy(summary)}` : '',
      summary.profiledSteps > 0 ? `${summary.profiledSteps} profiled steps left out` : '',
    ].filter(Boolean);
    lines.push(`  steps     ${summary.steps}${leftOut.length > 0 ? ` (${leftOut.join('; ')})` : ''}`);
  }
  if (summary.outliers && summary.outliers.flaggedKept > 0) {
    lines.push(`  unusual   ${summary.outliers.flaggedKept} steps far from the median, kept (too many to be accidents)`);
  }
  if (summary.finalLoss !== null) {
    const fell = summary.lossFell === null ? '' : summary.lossFell ? ', falling' : ', NOT falling';
    lines.push(`  loss      final ${lossText(summary.finalLoss)}, best ${summary.bestLoss === null ? '-' : lossText(summary.bestLoss)}${fell}`);
  }
  if (summary.evalLoss !== null) lines.push(`  eval loss ${lossText(summary.evalLoss)}`);
  for (const note of summary.notes) lines.push(`  note      ${note}`);
  if (summary.nanDetected) lines.push('  NaN/Inf   seen in the loss');
  const gpuSettings = describeGpuSettings(run.gpuSettings);
  if (gpuSettings) lines.push(`  gpu       ${gpuSettings}`);
  const found = metricsFound(summary);
  if (hasMetrics(found)) {
    lines.push(`  metrics   from ${summary.metricsSource === 'channel' ? 'the structured channel' : 'the terminal output'}: ${describeMetricsFound(found)}`);
  } else if (run.status !== 'running' && run.outputBytes > 0) {
    lines.push(`  metrics   ${describeMetricsFound(found)} in its output`);
  }
  // Whatever was found, what is missing can be taught: the lines that hold numbers, a regex, the run parsed again.
  if (!hasAllMetrics(found) && run.status !== 'running' && run.outputBytes > 0) {
    lines.push(
      `            see which lines hold numbers with \`tuning-bench log ${run.id}\`, give a workload a regex`,
      `            (\`tuning-bench workloads add|edit NAME --regex 'loss (?<loss>[\\d.]+)'\`), then \`tuning-bench reparse ${run.id} --workload NAME\``,
    );
  }
  if (run.git) {
    const where = `${run.git.branch ?? 'detached'} @ ${run.git.commit?.slice(0, 12) ?? 'no commit'}`;
    lines.push(
      `  code      ${where}${run.git.dirty ? ` + uncommitted changes (sha256 ${run.git.diffSha256?.slice(0, 12)}, ${run.git.diffBytes} bytes)` : ''} in ${run.git.root}`,
    );
  }
  if (run.unitsPerStep) {
    const given = [
      run.unitsPerStep.tokens !== null ? `${run.unitsPerStep.tokens} tokens` : '',
      run.unitsPerStep.samples !== null ? `${run.unitsPerStep.samples} samples` : '',
    ]
      .filter(Boolean)
      .join(', ');
    lines.push(`  per step  ${given} (given with the run or its sweep)`);
  }
  return lines.join('\n');
}

/** Why steps were left out, with the step time they would have given: a reader sees what leaving them out changed. */
function leftOutWhy(summary: Run['summary']): string {
  const reasons = summary.outliers
    ? [
        summary.outliers.marked > 0 ? `${summary.outliers.marked} eval/checkpoint` : '',
        summary.outliers.byUser > 0 ? `${summary.outliers.byUser} by you` : '',
        summary.outliers.byRule > 0 ? `${summary.outliers.byRule} far from the median` : '',
      ].filter(Boolean)
    : ['slow'];
  const withThem = summary.stepTimeMs.medianWithOutliers;
  return `${reasons.join(', ')}${withThem === null ? '' : `; step median with them ${withThem.toPrecision(4)} ms`}`;
}

/** What a run was, for the runs table: its workload and the values it set, or the command as it ran. */
function runWhat(run: Run): string {
  if (run.workloadName === null) return shellQuote(run.command);
  const config = Object.entries(run.config).map(([name, value]) => `${name}=${value}`);
  return [run.workloadName, ...config].join(' ');
}

/**
 * Text shortened to `width` characters by leaving out its middle, marked with `…`: a command's end holds
 * the flags that tell runs apart (`--batch_size 16`), and cutting it there would show another config.
 */
export function elideMiddle(text: string, width: number): string {
  if (text.length <= width) return text;
  if (width <= 1) return '…'.slice(0, width);
  const head = Math.ceil((width - 1) / 3);
  const tail = width - 1 - head;
  return `${text.slice(0, head)}…${text.slice(text.length - tail)}`;
}

/** Narrowest room the last column is shortened to on a narrow terminal: enough for `python … --batch_size 16`. */
const MIN_WHAT_CHARS = 24;

/**
 * The runs as a table, newest first. What each run was comes last and whole, so no value is ever cut;
 * on a terminal of `width` columns (null when output goes to a file or pipe) a line that would wrap has
 * its middle left out, marked with `…`, never its end.
 */
export function formatRunTable(runs: readonly Run[], width: number | null = null): string {
  if (runs.length === 0) return 'no runs yet: start one with `tuning-bench run --workload synthetic`';
  const header = ['ID', 'STATUS', 'CLASS', 'STARTED', 'DURATION', 'OUTPUT', 'WORKLOAD OR COMMAND'];
  const rows = runs.map((run) => [
    String(run.id),
    run.status,
    run.exitClass ?? '-',
    run.startedAt.replace('T', ' ').slice(0, 19),
    runDuration(run),
    formatBytes(run.outputBytes),
    runWhat(run),
  ]);
  const last = header.length - 1;
  const widths = header.map((h, i) => (i === last ? 0 : Math.max(h.length, ...rows.map((row) => row[i]!.length))));
  const before = widths.slice(0, last).reduce((sum, w) => sum + w + 2, 0);
  const room = width === null ? Number.POSITIVE_INFINITY : Math.max(MIN_WHAT_CHARS, width - before);
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, i) => (i === last ? elideMiddle(cell, room) : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** "persistence on, power limit 350 W, clocks locked at 2400 MHz (set for this run, restored after)". */
export function describeGpuSettings(settings: Run['gpuSettings']): string | null {
  if (!settings) return null;
  const range = (value: unknown) => {
    const r = value as { minMHz?: number; maxMHz?: number } | null;
    if (typeof r?.minMHz !== 'number') return null;
    return r.minMHz === r.maxMHz ? `${r.minMHz} MHz` : `${r.minMHz}-${r.maxMHz} MHz`;
  };
  const parts = [
    settings.persistenceMode === true ? 'persistence on' : settings.persistenceMode === false ? 'persistence off' : null,
    typeof settings.powerLimitW === 'number' ? `power limit ${settings.powerLimitW} W` : null,
    `clocks ${range(settings.clockLock) === null ? 'not locked' : `locked at ${range(settings.clockLock)}`}`,
    range(settings.memoryClockLock) === null ? null : `memory clocks locked at ${range(settings.memoryClockLock)}`,
  ].filter(Boolean);
  const how =
    settings.setBy === null || settings.setBy === undefined
      ? 'as found'
      : settings.restored === false
        ? `set for this ${String(settings.setBy)}; NOT restored: ${((settings.restoreErrors as string[] | undefined) ?? []).join('; ')}`
        : `set for this ${String(settings.setBy)}${settings.restored === true ? ', restored after' : ''}`;
  return `${parts.join(', ')} (${how})`;
}

/**
 * A loss as a log prints one: a value the script gave as a float32's `.item()` (the structured channel, Lightning's
 * logged values) has 17 digits, 0.3620281517505646; seven significant ones keep every value a log line prints.
 */
function lossText(value: number): string {
  return Number.isFinite(value) ? String(Number(value.toPrecision(7))) : String(value);
}
