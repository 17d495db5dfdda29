// The `--query-gpu` fields Tuning Bench samples, the names each driver generation uses for them,
// and the choice of names for the installed driver from its `--help-query-gpu` text.

/** How a field's cells are read (see values.ts). */
export type GpuFieldKind = 'int' | 'float' | 'text' | 'flag' | 'mask' | 'pstate';

interface FieldSpec {
  /** Query names in order of preference: the first the driver lists wins. */
  readonly names: readonly string[];
  readonly kind: GpuFieldKind;
  /** 'sample': read every interval by the sampler; 'info': static facts for a one-shot query. */
  readonly group: 'sample' | 'info';
}

/**
 * Our canonical keys. Names and aliases are those of the help captures in
 * test/fixtures/nvidia-smi (driver 2022 "netdata", 590.48.01, 591.86 Windows, 595.71.05, 610.57.04).
 */
export const GPU_FIELDS = {
  index: { names: ['index'], kind: 'int', group: 'sample' },
  uuid: { names: ['uuid', 'gpu_uuid'], kind: 'text', group: 'sample' },
  utilGpu: { names: ['utilization.gpu'], kind: 'int', group: 'sample' },
  utilMem: { names: ['utilization.memory'], kind: 'int', group: 'sample' },
  memUsedMiB: { names: ['memory.used'], kind: 'int', group: 'sample' },
  memTotalMiB: { names: ['memory.total'], kind: 'int', group: 'sample' },
  // power.draw is in every help capture; on Ampere and newer it is the 1 s average, before that
  // the instant reading (help text of 590+). power.draw.average exists from R535 on, but reads
  // [N/A] on Turing (rtx-2080-super.610.57.04), so it is only the fallback name.
  powerW: { names: ['power.draw', 'power.draw.average', 'gpu.power.draw.average'], kind: 'float', group: 'sample' },
  powerInstantW: { names: ['power.draw.instant', 'gpu.power.draw.instant'], kind: 'float', group: 'sample' },
  // The enforced ceiling is what the power controller holds the board under; power.limit is the
  // requested (software) one. They differ when another limiter is lower.
  powerLimitW: {
    names: ['enforced.power.limit', 'gpu.power.current_limit', 'power.limit', 'gpu.power.requested_limit'],
    kind: 'float',
    group: 'sample',
  },
  tempC: { names: ['temperature.gpu'], kind: 'int', group: 'sample' },
  memTempC: { names: ['temperature.memory'], kind: 'int', group: 'sample' },
  smClockMHz: { names: ['clocks.current.sm', 'clocks.sm'], kind: 'int', group: 'sample' },
  memClockMHz: { names: ['clocks.current.memory', 'clocks.mem'], kind: 'int', group: 'sample' },
  graphicsClockMHz: { names: ['clocks.current.graphics', 'clocks.gr'], kind: 'int', group: 'sample' },
  smClockMaxMHz: { names: ['clocks.max.sm'], kind: 'int', group: 'sample' },
  memClockMaxMHz: { names: ['clocks.max.memory', 'clocks.max.mem'], kind: 'int', group: 'sample' },
  pstate: { names: ['pstate'], kind: 'pstate', group: 'sample' },
  fanPercent: { names: ['fan.speed'], kind: 'int', group: 'sample' },
  // Renamed in R535: clocks_throttle_reasons.* became clocks_event_reasons.*, the old names stay as
  // aliases (590+ help). The 2022 help knows only the old names.
  throttleReasons: { names: ['clocks_event_reasons.active', 'clocks_throttle_reasons.active'], kind: 'mask', group: 'sample' },
  // pcie.link.gen.current is "Deprecated, use pcie.link.gen.gpucurrent instead" from 595 on.
  pcieGen: { names: ['pcie.link.gen.gpucurrent', 'pcie.link.gen.current'], kind: 'int', group: 'sample' },
  pcieWidth: { names: ['pcie.link.width.current'], kind: 'int', group: 'sample' },
  persistence: { names: ['persistence_mode'], kind: 'flag', group: 'sample' },
  // NVML has a total-energy counter (mJ since driver load, Volta+), but none of the help captures
  // lists a --query-gpu field for it: it resolves nowhere today and the sampler integrates power.
  energyMJ: { names: ['total_energy_consumption'], kind: 'float', group: 'sample' },

  name: { names: ['name', 'gpu_name'], kind: 'text', group: 'info' },
  pciBusId: { names: ['pci.bus_id', 'gpu_bus_id'], kind: 'text', group: 'info' },
  // driver_version is "Deprecated; use kmd_version instead" from 595 on.
  driverVersion: { names: ['kmd_version', 'driver_version'], kind: 'text', group: 'info' },
  vbiosVersion: { names: ['vbios_version'], kind: 'text', group: 'info' },
  computeCap: { names: ['compute_cap'], kind: 'text', group: 'info' },
  graphicsClockMaxMHz: { names: ['clocks.max.graphics', 'clocks.max.gr'], kind: 'int', group: 'info' },
  powerRequestedLimitW: { names: ['power.limit', 'gpu.power.requested_limit'], kind: 'float', group: 'info' },
  powerDefaultLimitW: { names: ['power.default_limit', 'gpu.power.default_limit'], kind: 'float', group: 'info' },
  powerMinLimitW: { names: ['power.min_limit', 'gpu.power.min_limit'], kind: 'float', group: 'info' },
  powerMaxLimitW: { names: ['power.max_limit', 'gpu.power.max_limit'], kind: 'float', group: 'info' },
  pcieGenMax: { names: ['pcie.link.gen.max'], kind: 'int', group: 'info' },
  pcieWidthMax: { names: ['pcie.link.width.max'], kind: 'int', group: 'info' },
  throttleReasonsSupported: {
    names: ['clocks_event_reasons.supported', 'clocks_throttle_reasons.supported'],
    kind: 'mask',
    group: 'info',
  },
  eccMode: { names: ['ecc.mode.current'], kind: 'flag', group: 'info' },
  migMode: { names: ['mig.mode.current'], kind: 'flag', group: 'info' },
} as const satisfies Record<string, FieldSpec>;

export type GpuFieldKey = keyof typeof GPU_FIELDS;

interface KindValues {
  int: number;
  float: number;
  text: string;
  flag: boolean;
  mask: number;
  pstate: number;
}

/** The value type of one key: numbers, strings, booleans; pstate as 0..15; masks as numbers. */
export type GpuFieldValue<K extends GpuFieldKey> = KindValues[(typeof GPU_FIELDS)[K]['kind']];

export const ALL_FIELD_KEYS = Object.keys(GPU_FIELDS) as GpuFieldKey[];
/** What the sampler asks for every interval. */
export const SAMPLE_FIELD_KEYS = ALL_FIELD_KEYS.filter((key) => GPU_FIELDS[key].group === 'sample');
/** Static facts, for a one-shot query (the XML card has more). */
export const INFO_FIELD_KEYS = ALL_FIELD_KEYS.filter((key) => GPU_FIELDS[key].group === 'info');

/** One entry of `--help-query-gpu`: `"name" or "alias"` followed by its description. */
export interface HelpQueryField {
  name: string;
  aliases: string[];
  deprecated: boolean;
}

// An entry line is nothing but quoted names joined by " or "; description lines that start with a
// quote ("0: Default" means ..., under compute_mode) have more after the closing quote.
const ENTRY_LINE = /^"([A-Za-z0-9_.]+)"((?:\s+or\s+"[A-Za-z0-9_.]+")*)\s*$/u;

/** Every field listed by `nvidia-smi --help-query-gpu`, in the order printed. */
export function parseHelpQueryGpu(helpText: string): HelpQueryField[] {
  const fields: HelpQueryField[] = [];
  // Only the first description line says whether the field itself is deprecated; later lines may
  // talk about deprecated values (compute_mode: "1: Exclusive_Thread", deprecated).
  let current: HelpQueryField | null = null;
  for (const line of helpText.split(/\r?\n/u)) {
    const entry = ENTRY_LINE.exec(line.trim());
    if (entry) {
      const aliases = [...entry[2]!.matchAll(/"([^"]+)"/gu)].map((m) => m[1]!).filter((alias) => alias !== entry[1]);
      current = { name: entry[1]!, aliases: [...new Set(aliases)], deprecated: false };
      fields.push(current);
    } else if (current && line.trim() !== '') {
      current.deprecated = /\bdeprecated\b/iu.test(line);
      current = null;
    }
  }
  return fields;
}

/** The query names chosen for our keys, in the column order of the CSV nvidia-smi will print. */
export interface ResolvedFields {
  /** For `--query-gpu=`: each name once, in column order. */
  readonly query: readonly string[];
  /** Per column, the keys it answers (usually one; none for a column we do not read). */
  readonly columnKeys: readonly (readonly GpuFieldKey[])[];
  /** Key → query name used. */
  readonly nameOf: Readonly<Partial<Record<GpuFieldKey, string>>>;
  /** Keys asked for that the driver does not offer under any known name. */
  readonly missing: readonly GpuFieldKey[];
}

/**
 * Picks, for each wanted key, the first of its names that the driver lists (as a field or an alias)
 * in its `--help-query-gpu` output. Keys the driver lacks are reported in `missing`, never queried:
 * one unknown field fails the whole query ("Field ... is not a valid field to query.").
 */
export function resolveFields(helpQueryGpuText: string, keys: readonly GpuFieldKey[] = SAMPLE_FIELD_KEYS): ResolvedFields {
  const known = new Set<string>();
  for (const field of parseHelpQueryGpu(helpQueryGpuText)) {
    known.add(field.name);
    for (const alias of field.aliases) known.add(alias);
  }
  const chosen: [GpuFieldKey, string][] = [];
  const missing: GpuFieldKey[] = [];
  for (const key of keys) {
    const name = GPU_FIELDS[key].names.find((candidate) => known.has(candidate));
    if (name === undefined) missing.push(key);
    else chosen.push([key, name]);
  }
  return build(chosen, [], missing);
}

/** A query name from a CSV header cell: `power.draw [W]` → `power.draw`. */
export function headerName(cell: string): string {
  return cell.replace(/\s*\[[^\]]*\]\s*$/u, '').trim();
}

/**
 * The fields of an explicit column list (a CSV header, or names chosen elsewhere): each key goes to
 * the column holding its most preferred name; columns we do not know are kept, unread.
 */
export function fieldsFromQuery(names: readonly string[]): ResolvedFields {
  const query = names.map(headerName);
  const chosen: [GpuFieldKey, string][] = [];
  for (const key of ALL_FIELD_KEYS) {
    const name = GPU_FIELDS[key].names.find((candidate) => query.includes(candidate));
    if (name !== undefined) chosen.push([key, name]);
  }
  return build(chosen, query, []);
}

function build(chosen: readonly [GpuFieldKey, string][], columns: readonly string[], missing: GpuFieldKey[]): ResolvedFields {
  const query = [...columns];
  const columnKeys: GpuFieldKey[][] = query.map(() => []);
  const nameOf: Partial<Record<GpuFieldKey, string>> = {};
  for (const [key, name] of chosen) {
    let column = query.indexOf(name);
    if (column < 0) {
      column = query.push(name) - 1;
      columnKeys.push([]);
    }
    columnKeys[column]!.push(key);
    nameOf[key] = name;
  }
  return { query, columnKeys, nameOf, missing };
}

/** The `--query-gpu=` argument value. */
export function queryArgument(fields: ResolvedFields): string {
  return fields.query.join(',');
}
