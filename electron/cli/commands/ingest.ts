// `tuning-bench import` and `reparse`: logs into runs, and stored runs parsed again, through the engine's contract.
import path from 'node:path';
import type { Core } from '../../core/createCore.js';
import { DEFAULT_MAX_IMPORT_BYTES, ImportEmpty, ImportNotText, ImportTooLarge } from '../../core/ingest/importLog.js';
import type { ReparseResult } from '../../shared/api.js';
import { contractClient, workloadNamed } from '../contract.js';
import { formatRunDetails } from '../format.js';
import { describePathFault, UsageError } from '../errors.js';

export interface ImportCommandOptions {
  name?: string;
  maxBytes?: number;
  json: boolean;
}

export async function importCommand(core: Core, file: string, options: ImportCommandOptions): Promise<void> {
  const progress = importProgress(options.json);
  try {
    const run = await core.importLogFile(file, {
      name: options.name ?? (file === '-' ? 'standard input' : path.basename(file)),
      source: file === '-' ? 'standard input' : path.resolve(file),
      maxBytes: options.maxBytes ?? DEFAULT_MAX_IMPORT_BYTES,
      onProgress: progress.update,
    });
    progress.end();
    process.stdout.write(options.json ? `${JSON.stringify(run, null, 2)}\n` : `${formatRunDetails(run)}\n`);
  } catch (error) {
    progress.end();
    if (error instanceof ImportTooLarge || error instanceof ImportNotText) throw new UsageError(`${file}: ${error.message}`);
    if (error instanceof ImportEmpty) throw new UsageError(error.message);
    const pathFault = describePathFault(error, 'the log');
    if (pathFault !== null) throw new UsageError(`${pathFault}; nothing was imported`);
    throw error;
  }
}

/** Bytes read, on stderr: redrawn in place on a terminal, silent otherwise (a log or a pipe needs no bar). */
function importProgress(json: boolean): { update: (read: number, total: number | null) => void; end: () => void } {
  const out = process.stderr;
  if (json || out.isTTY !== true) return { update: () => undefined, end: () => undefined };
  let drawn = false;
  return {
    update: (read, total) => {
      const mib = (bytes: number) => (bytes / 1024 ** 2).toFixed(1);
      const line = total ? `importing: ${mib(read)} of ${mib(total)} MiB (${Math.floor((100 * read) / total)} %)` : `importing: ${mib(read)} MiB`;
      out.write(`\r${line}\u001b[K`);
      drawn = true;
    },
    end: () => {
      if (drawn) out.write('\r\u001b[K');
    },
  };
}

export async function reparseCommand(core: Core, ids: number[], options: { workload?: string; json: boolean }): Promise<void> {
  // Through the contract, like every face: the same validation, the same refusals.
  const api = contractClient(core);
  const workloadId = options.workload === undefined ? undefined : (await workloadNamed(core, options.workload)).id;
  const json = options.json;
  const results = await api['runs.reparse']({ ids, ...(workloadId === undefined ? {} : { workloadId }) });
  process.stdout.write(json ? `${JSON.stringify(results, null, 2)}\n` : `${results.map(formatReparse).join('\n')}\n`);
}

function formatReparse(result: ReparseResult): string {
  const describe = (facts: ReparseResult['before']) =>
    `${facts.samples} parsed values, ${facts.steps ?? '-'} steps, ${facts.throughput === null ? 'no throughput' : `${+facts.throughput.toPrecision(4)} ${facts.unit ?? ''}`}`;
  return `run ${result.run.id}: before ${describe(result.before)}; now ${describe(result.after)} (the old summary is kept in the run's history)`;
}
