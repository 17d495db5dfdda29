// `tuning-bench compare ID... [--baseline ID] --format md|csv|json|html [-o FILE]`: an ID names a run
// (12) or a sweep (s3 or sweep:3); a sweep's baseline is its first config.
import fs from 'node:fs';
import type { Core } from '../../core/createCore.js';
import { compareRequest, type ExportFormat } from '../../shared/api.js';
import { UsageError } from '../errors.js';
import { contractClient } from '../contract.js';

export interface CompareCommandOptions {
  baseline?: number;
  format: ExportFormat;
  output?: string;
  by: 'config' | 'run';
  gateMetric: string;
  gateDirection: 'lower' | 'higher';
  /** False with --no-gate-abs. */
  gateAbs: number | false;
  gateRel?: number;
  /** False with --no-gate. */
  gate: boolean;
  acrossMachines?: boolean;
}

export function parseCompareIds(ids: readonly string[]): { runIds: number[]; sweepIds: number[] } {
  const runIds: number[] = [];
  const sweepIds: number[] = [];
  for (const id of ids) {
    const sweep = /^(?:s|sweep:)(\d+)$/iu.exec(id);
    if (sweep) sweepIds.push(Number(sweep[1]));
    else if (/^\d+$/u.test(id) && Number(id) > 0) runIds.push(Number(id));
    else throw new UsageError(`"${id}" is neither a run id (12) nor a sweep (s3 or sweep:3)`);
  }
  if (runIds.length + sweepIds.length === 0)
    throw new UsageError('compare what? give run ids and/or sweeps, e.g. `tuning-bench compare s1` or `compare 4 5 6`');
  return { runIds, sweepIds };
}

export async function compareCommand(core: Core, ids: readonly string[], options: CompareCommandOptions): Promise<void> {
  const parsed = compareRequest.safeParse({
    ...parseCompareIds(ids),
    baselineRunId: options.baseline,
    groupBy: options.by,
    gate: {
      metric: options.gateMetric,
      direction: options.gateDirection,
      absolute: options.gateAbs === false ? null : options.gateAbs,
      relative: options.gateRel ?? null,
      enabled: options.gate,
    },
    acrossMachines: options.acrossMachines === true,
  });
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  const { content, filename } = await contractClient(core)['compare.export']({ ...parsed.data, format: options.format });
  if (options.output === undefined) {
    process.stdout.write(content);
    return;
  }
  const file = options.output === '.' ? filename : options.output;
  fs.writeFileSync(file, content);
  process.stderr.write(`wrote ${file}\n`);
}
