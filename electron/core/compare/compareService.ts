// Compare and export over the store: resolves runs and sweeps, reads each run's stored series, and
// renders a comparison in any export format.
import { columnsForSummary } from '../metrics/summaryInput.js';
import type { CompareRequest, Comparison, ExportFormat, Run, RunSeries } from '../../shared/api.js';
import { ApiFailure } from '../../shared/api.js';
import { EXPORTERS } from '../export/exporters.js';
import type { Store } from '../store/store.js';
import { compareRuns } from './compare.js';
import { buildSeries } from '../ingest/series.js';
import { storedGpuSamples } from '../telemetry/summary.js';
import type { Clock } from '../clock.js';

/** A request as parsed, δ optional for callers inside the engine (tests, benchmarks): the default then. */
export type CompareInput = Omit<CompareRequest, 'minEffect'> & { minEffect?: number | undefined };

export class CompareService {
  constructor(
    private readonly store: Store,
    /** A comparison says how old each run is, from now. */
    private readonly clock: Clock,
  ) {}

  /** Sweeps' runs first (config by config, then repeat), then the runs named; each once. */
  private resolve(request: CompareInput): { runs: Run[]; sweepNames: Map<string, string>; titles: string[]; commands: string[] } {
    const runs: Run[] = [];
    const seen = new Set<number>();
    const sweepNames = new Map<string, string>();
    const titles: string[] = [];
    const commands = new Set<string>();
    for (const id of request.sweepIds) {
      const sweep = this.store.sweeps.get(id);
      if (!sweep) throw new ApiFailure('not_found', `no sweep ${id}`);
      titles.push(`${sweep.name} (sweep ${id})`);
      const template = this.template(sweep.request, sweep.workloadId);
      if (template !== null) commands.add(template);
      for (const config of sweep.configs) sweepNames.set(`${id}:${config.index}`, config.name);
      const ordered = this.store.runs.forSweep(id).sort((a, b) => (a.configIndex ?? 0) - (b.configIndex ?? 0) || (a.repeatIndex ?? 0) - (b.repeatIndex ?? 0));
      for (const run of ordered) {
        // Interrupted runs come in, marked partial: their summary was made at recovery from the steps they logged.
        // One whose place a resumed sweep ran again is left out: that place is measured by its replacement, once.
        if (seen.has(run.id) || run.status === 'running' || run.replacedByRunId !== null) continue;
        seen.add(run.id);
        runs.push(run);
      }
    }
    for (const id of request.runIds) {
      const run = this.store.runs.get(id);
      if (!run) throw new ApiFailure('not_found', `no run ${id}`);
      if (seen.has(run.id)) continue;
      seen.add(run.id);
      runs.push(run);
      const workload = run.workloadId !== null ? this.store.workloads.get(run.workloadId) : undefined;
      commands.add(workload && !workload.builtin ? workload.command.join(' ') : run.command.join(' '));
    }
    if (request.runIds.length > 0) titles.push(`runs ${request.runIds.join(', ')}`);
    if (runs.length === 0) throw new ApiFailure('invalid_input', 'nothing to compare: name runs or sweeps that have finished runs');
    return { runs, sweepNames, titles, commands: [...commands] };
  }

  /** A sweep's command as its template: the typed command, or its workload's. */
  private template(request: Record<string, unknown>, workloadId: number | null): string | null {
    const typed = request.command as { template?: unknown } | undefined;
    if (Array.isArray(typed?.template)) return typed.template.map(String).join(' ');
    const workload = workloadId !== null ? this.store.workloads.get(workloadId) : undefined;
    return workload ? workload.command.join(' ') : null;
  }

  compare(request: CompareInput): Comparison {
    const { runs, sweepNames, commands } = this.resolve(request);
    if (request.baselineRunId !== undefined && !runs.some((r) => r.id === request.baselineRunId)) {
      throw new ApiFailure('invalid_input', `the baseline run ${request.baselineRunId} is not among the runs compared`);
    }
    return compareRuns(
      runs,
      {
        groupBy: request.groupBy,
        baselineRunId: request.baselineRunId,
        gate: request.gate,
        minEffect: request.minEffect,
        now: this.clock.now(),
        commands,
        acrossMachines: request.acrossMachines,
        measureBy: request.measureBy,
      },
      sweepNames,
    );
  }

  /** The stored series, built (and stored) for runs that ended before series were kept. */
  series(runIds: readonly number[]): RunSeries[] {
    return runIds.map((id) => {
      const run = this.store.runs.get(id);
      if (!run) throw new ApiFailure('not_found', `no run ${id}`);
      let stored = this.store.runs.series(id);
      if (!stored && run.status !== 'running') {
        stored = buildSeries(columnsForSummary(this.store.metrics, id), storedGpuSamples(this.store.telemetry, id));
        this.store.runs.setSeries(id, stored);
      }
      const config = Object.entries(run.config)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ');
      return { runId: id, label: `#${id}${config ? ` ${config}` : ''}`, ...(stored ?? { metrics: {}, telemetry: {} }) };
    });
  }

  export(request: CompareInput, format: ExportFormat): { content: string; filename: string; mimeType: string } {
    const { runs, titles } = this.resolve(request);
    const comparison = this.compare(request);
    const exporter = EXPORTERS[format];
    const title = `Tuning Bench comparison: ${titles.join(', ')}`;
    const series = format === 'html' ? this.series(runs.slice(0, 50).map((r) => r.id)) : [];
    const content = exporter.render({ comparison, runs: new Map(runs.map((r) => [r.id, r])), series, title });
    const stamp = comparison.generatedAt.slice(0, 19).replace(/[:T]/gu, '-');
    return { content, filename: `tuning-bench-comparison-${stamp}.${exporter.extension}`, mimeType: exporter.mimeType };
  }
}
