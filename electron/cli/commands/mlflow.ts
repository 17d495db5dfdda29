// `tuning-bench publish` and `import-mlflow`: runs, sweeps and comparisons to an MLflow tracking server, and runs
// another box published pulled back, through the engine's contract.
import type { Core } from '../../core/createCore.js';
import { ApiFailure, type ImportReport, type PublishReport } from '../../shared/api.js';
import { contractClient } from '../contract.js';
import { parseCompareIds } from './compare.js';
import { UsageError } from '../errors.js';

export interface PublishCommandOptions {
  mlflow?: string;
  experiment?: string;
  compare?: boolean;
  baseline?: number;
  json: boolean;
}

/** A bad address or a name the person gave is theirs to fix (exit 2); a server that refuses or is down is not. */
async function asUsage<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ApiFailure && (error.code === 'invalid_input' || error.code === 'not_found')) throw new UsageError(error.message);
    throw error;
  }
}

export async function publishCommand(core: Core, ids: readonly string[], options: PublishCommandOptions): Promise<void> {
  const { runIds, sweepIds } = parseCompareIds(ids);
  if (options.baseline !== undefined && !options.compare) throw new UsageError('--baseline goes with --compare');
  const target = { ...(options.mlflow ? { trackingUri: options.mlflow } : {}), ...(options.experiment ? { experiment: options.experiment } : {}) };
  const request = options.compare
    ? { comparison: { runIds, sweepIds, ...(options.baseline !== undefined ? { baselineRunId: options.baseline } : {}) }, ...target }
    : { runIds, sweepIds, ...target };
  const report = await asUsage(contractClient(core)['mlflow.publish'](request));
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatPublishReport(report));
}

export function formatPublishReport(report: PublishReport): string {
  const lines = [`${report.trackingUri}, experiment "${report.experimentName}"${report.experimentUrl ? `: ${report.experimentUrl}` : ''}`];
  for (const outcome of report.results) {
    const what = outcome.kind === 'run' ? `run ${outcome.runId}` : outcome.kind === 'sweep' ? `sweep ${outcome.sweepId}` : 'comparison';
    const indent = outcome.parentMlflowRunId !== null && outcome.kind === 'run' ? '    ' : '  ';
    lines.push(`${indent}${what}: ${outcome.result}${outcome.url ? `  ${outcome.url}` : ''}`);
    for (const warning of outcome.warnings) lines.push(`${indent}  note: ${warning}`);
  }
  const counts = new Map<string, number>();
  for (const outcome of report.results) counts.set(outcome.result, (counts.get(outcome.result) ?? 0) + 1);
  lines.push([...counts].map(([result, n]) => `${n} ${result}`).join(', '));
  return `${lines.join('\n')}\n`;
}

export async function importMlflowCommand(
  core: Core,
  uri: string | undefined,
  ids: readonly string[],
  options: { experiment?: string; json: boolean },
): Promise<void> {
  if (ids.length === 0 && options.experiment === undefined) {
    throw new UsageError('pull back what? give MLflow run ids (as in the run page of its UI) or --experiment NAME for all Tuning Bench runs in it');
  }
  const report = await asUsage(
    contractClient(core)['mlflow.import']({
      mlflowRunIds: [...ids],
      ...(uri ? { trackingUri: uri } : {}),
      ...(options.experiment ? { experiment: options.experiment } : {}),
    }),
  );
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatImportReport(report));
}

function formatImportReport(report: ImportReport): string {
  const lines: string[] = [];
  for (const run of report.imported)
    lines.push(`run ${run.id}: pulled back from ${run.origin?.machine.label ?? 'another machine'} (its run ${run.origin?.runId}), ${run.origin?.url ?? ''}`);
  for (const skipped of report.skipped) lines.push(`skipped ${skipped.mlflowRunId}: ${skipped.reason}`);
  lines.push(`${report.imported.length} pulled back, ${report.skipped.length} skipped`);
  return `${lines.join('\n')}\n`;
}
