// Per-process GPU memory from `nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits`
// (other fields of --help-query-compute-apps are read too when asked for). No capture of this
// output is in the shared fixtures; the format is that of --query-gpu (same CSV writer).
import { splitCsvLine, type CsvLineError } from './csv.js';
import { headerName } from './fields.js';
import { classifyNvidiaSmiMessage, type NvidiaSmiMessage } from './messages.js';
import { parseInteger, parseText } from './values.js';

export interface ComputeApp {
  pid: number;
  /** Null when not queried, or not visible (N/A under WDDM / in containers). */
  usedMemoryMiB: number | null;
  name: string | null;
  gpuUuid: string | null;
  gpuBusId: string | null;
}

export interface ComputeAppsResult {
  apps: ComputeApp[];
  errors: CsvLineError[];
  /** An nvidia-smi message in the output (driver gone, GPU lost), if any. */
  nvidiaSmi: NvidiaSmiMessage | null;
}

type AppKey = 'pid' | 'usedMemoryMiB' | 'name' | 'gpuUuid' | 'gpuBusId';

// Names and aliases as nvidia-smi documents them for --query-compute-apps.
const APP_FIELDS: Record<string, AppKey> = {
  pid: 'pid',
  used_memory: 'usedMemoryMiB',
  used_gpu_memory: 'usedMemoryMiB',
  process_name: 'name',
  name: 'name',
  gpu_uuid: 'gpuUuid',
  gpu_bus_id: 'gpuBusId',
};

export const DEFAULT_COMPUTE_APPS_FIELDS = ['pid', 'used_memory'] as const;

/**
 * Reads the output for the given query fields (in the order passed to --query-compute-apps). A
 * header line, if present, is skipped; an empty output or "No running processes found" is no apps.
 */
export function parseComputeApps(text: string, fields: readonly string[] = DEFAULT_COMPUTE_APPS_FIELDS): ComputeAppsResult {
  const keys = fields.map((f) => APP_FIELDS[headerName(f)] ?? null);
  const nameColumn = keys.indexOf('name');
  const result: ComputeAppsResult = { apps: [], errors: [], nvidiaSmi: null };
  for (const raw of text.split(/\r?\n/u)) {
    const line = raw.trim();
    if (line === '' || /^No running (?:compute )?processes found/iu.test(line)) continue;
    let cells = splitCsvLine(line);
    if (cells.length > fields.length && nameColumn >= 0) {
      // Process names are printed unquoted and may hold commas.
      const extra = cells.length - fields.length;
      cells = [...cells.slice(0, nameColumn), cells.slice(nameColumn, nameColumn + extra + 1).join(', '), ...cells.slice(nameColumn + extra + 1)];
    }
    if (cells.length !== fields.length) {
      const said = classifyNvidiaSmiMessage(line);
      if (said) result.nvidiaSmi ??= said;
      result.errors.push({
        kind: said ? 'message' : 'columns',
        message: said ? `nvidia-smi says: ${said.line}` : `expected ${fields.length} columns, found ${cells.length}`,
        line: line.slice(0, 200),
      });
      continue;
    }
    // A header line: every cell names the requested field (perhaps by its other spelling).
    if (cells.every((cell, i) => keys[i] !== null && APP_FIELDS[headerName(cell)] === keys[i])) continue;
    const app: ComputeApp = { pid: -1, usedMemoryMiB: null, name: null, gpuUuid: null, gpuBusId: null };
    cells.forEach((cell, i) => {
      const key = keys[i];
      if (key === 'pid') app.pid = parseInteger(cell) ?? -1;
      else if (key === 'usedMemoryMiB') app.usedMemoryMiB = parseInteger(cell);
      else if (key === 'name' || key === 'gpuUuid' || key === 'gpuBusId') app[key] = parseText(cell);
    });
    if (app.pid < 0 && keys.includes('pid')) {
      result.errors.push({ kind: 'garbage', message: 'no process id', line: line.slice(0, 200) });
      continue;
    }
    result.apps.push(app);
  }
  return result;
}
