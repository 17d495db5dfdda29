// Reads the lines of `nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]` into typed
// samples. Never throws: a line that is not a row comes back as a typed error.
import { GPU_FIELDS, headerName, type GpuFieldKey, type GpuFieldValue, type ResolvedFields } from './fields.js';
import { classifyNvidiaSmiMessage, type NvidiaSmiMessage } from './messages.js';
import { parseFlag, parseInteger, parseMask, parseNumber, parsePstate, saysGpuLost, unavailableReason } from './values.js';

/** One GPU at one instant; every key is present, null when not queried or not available. */
export type GpuSample = { [K in GpuFieldKey]: GpuFieldValue<K> | null } & {
  /** Why a queried key is null: "N/A", "Not Supported", "GPU is lost", "unparseable: ...". */
  unavailable: Partial<Record<GpuFieldKey, string>>;
  /** Some cell said the GPU is lost: the device needs a reset or reboot. */
  gpuLost: boolean;
};

export type CsvLineErrorKind = 'empty' | 'header' | 'message' | 'columns' | 'garbage';

export interface CsvLineError {
  kind: CsvLineErrorKind;
  message: string;
  /** The line, cut to 200 characters. */
  line: string;
  /** For kind 'message': what nvidia-smi said (GPU lost, driver gone...). */
  nvidiaSmi?: NvidiaSmiMessage;
}

export type QueryGpuLineResult = { ok: true; sample: GpuSample } | { ok: false; error: CsvLineError };

/**
 * Splits one CSV line: commas separate cells, a space after a comma is not part of the cell (nvidia-smi
 * writes ", "), and a cell may be double-quoted with "" inside for a quote. Cells are trimmed.
 */
export function splitCsvLine(line: string): string[] {
  const cells: string[] = [];
  let i = 0;
  for (;;) {
    while (line[i] === ' ' || line[i] === '\t') i += 1;
    let cell = '';
    if (line[i] === '"') {
      i += 1;
      for (;;) {
        if (i >= line.length) break;
        const ch = line[i]!;
        if (ch === '"') {
          if (line[i + 1] === '"') {
            cell += '"';
            i += 2;
            continue;
          }
          i += 1;
          break;
        }
        cell += ch;
        i += 1;
      }
      // Anything between the closing quote and the next comma is kept, as a lenient reader would.
      const comma = line.indexOf(',', i);
      const rest = comma < 0 ? line.slice(i) : line.slice(i, comma);
      cells.push((cell + rest).trim());
      if (comma < 0) return cells;
      i = comma + 1;
    } else {
      const comma = line.indexOf(',', i);
      cells.push((comma < 0 ? line.slice(i) : line.slice(i, comma)).trim());
      if (comma < 0) return cells;
      i = comma + 1;
    }
  }
}

function emptySample(): GpuSample {
  const sample = { unavailable: {}, gpuLost: false } as GpuSample;
  for (const key of Object.keys(GPU_FIELDS) as GpuFieldKey[]) (sample as Record<string, unknown>)[key] = null;
  return sample;
}

function readCell(key: GpuFieldKey, raw: string): { value: unknown } | { reason: string } {
  const reason = unavailableReason(raw);
  if (reason !== null) return { reason };
  const kind = GPU_FIELDS[key].kind;
  const value =
    kind === 'int'
      ? parseInteger(raw)
      : kind === 'float'
        ? parseNumber(raw)
        : kind === 'mask'
          ? parseMask(raw)
          : kind === 'flag'
            ? parseFlag(raw)
            : kind === 'pstate'
              ? parsePstate(raw)
              : raw.trim();
  return value === null ? { reason: `unparseable: ${raw.trim().slice(0, 40)}` } : { value };
}

function fail(kind: CsvLineErrorKind, message: string, line: string, nvidiaSmi?: NvidiaSmiMessage): QueryGpuLineResult {
  const error: CsvLineError = { kind, message, line: line.slice(0, 200) };
  if (nvidiaSmi) error.nvidiaSmi = nvidiaSmi;
  return { ok: false, error };
}

/**
 * One data line of `--query-gpu` output for the given fields. `[N/A]`, `[Not Supported]`,
 * `[Unknown Error]`, `[GPU is lost]`, bare `N/A` and empty cells become null (never zero), with the
 * reason in `unavailable`. Units are ignored, so lines with and without `nounits` both read.
 */
export function parseQueryGpuLine(line: string, fields: ResolvedFields): QueryGpuLineResult {
  const text = line.replace(/\r$/u, '');
  if (text.trim() === '') return fail('empty', 'empty line', text);
  const expected = fields.query.length;
  let cells = splitCsvLine(text);

  if (cells.length !== expected) {
    // A product name with a comma in it, unquoted: give the extra cells back to the name column.
    const nameColumn = fields.columnKeys.findIndex((keys) => keys.includes('name'));
    if (cells.length > expected && nameColumn >= 0) {
      const extra = cells.length - expected;
      cells = [...cells.slice(0, nameColumn), cells.slice(nameColumn, nameColumn + extra + 1).join(', '), ...cells.slice(nameColumn + extra + 1)];
    } else {
      const said = classifyNvidiaSmiMessage(text);
      if (said) return fail('message', `nvidia-smi says: ${said.line}`, text, said);
      return fail('columns', `expected ${expected} columns, found ${cells.length}`, text);
    }
  }
  if (expected > 1 && cells.every((cell, i) => headerName(cell) === fields.query[i])) {
    return fail('header', 'a CSV header line, not a row (was noheader left out?)', text);
  }

  const sample = emptySample();
  let numericCells = 0;
  let unparseable = 0;
  for (let column = 0; column < cells.length; column += 1) {
    const raw = cells[column]!;
    if (saysGpuLost(raw)) sample.gpuLost = true;
    for (const key of fields.columnKeys[column] ?? []) {
      const kind = GPU_FIELDS[key].kind;
      const cell = readCell(key, raw);
      if (kind !== 'text') numericCells += 1;
      if ('value' in cell) {
        (sample as Record<string, unknown>)[key] = cell.value;
      } else {
        sample.unavailable[key] = cell.reason;
        if (cell.reason.startsWith('unparseable')) unparseable += 1;
      }
    }
  }
  const indexColumn = fields.columnKeys.findIndex((keys) => keys.includes('index'));
  if (indexColumn >= 0 && sample.index === null && !sample.gpuLost) {
    return fail('garbage', `the index column reads "${cells[indexColumn]!.slice(0, 40)}"`, text);
  }
  if (numericCells > 0 && unparseable * 2 > numericCells) {
    return fail('garbage', `${unparseable} of ${numericCells} numeric cells do not read as numbers`, text);
  }
  return { ok: true, sample };
}

/** A whole `--format=csv` output with its header: column names, their units, and the rows' cells. */
export interface CsvTable {
  /** Query names, units stripped (`power.draw [W]` → `power.draw`). */
  columns: string[];
  /** Units from the header (`W`, `MiB`, `%`), null where none. */
  units: (string | null)[];
  /** The data lines, unsplit, without empty lines. */
  lines: string[];
}

/** Splits a header-first CSV output (as in the shared `*.query-gpu*.csv` captures). */
export function parseCsvTable(text: string): CsvTable {
  const [header = '', ...rest] = text.split(/\r?\n/u);
  const cells = splitCsvLine(header);
  return {
    columns: cells.map(headerName),
    units: cells.map((cell) => /\[([^\]]*)\]\s*$/u.exec(cell)?.[1] ?? null),
    lines: rest.filter((line) => line.trim() !== ''),
  };
}
