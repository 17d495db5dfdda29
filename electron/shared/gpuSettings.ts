// The GPU control values people type (clock ranges, watts, a GPU), parsed the same way in the CLI, the
// UI and the engine. Strict on purpose: a value that reaches nvidia-smi as root is digits and one comma.
import { z } from 'zod';

export interface ClockRange {
  minMHz: number;
  maxMHz: number;
}

/** The six operations of the allowlist (DESIGN: `-pm`, `-lgc`, `-rgc`, `-lmc`, `-rmc`, `-pl`). */
export type GpuOperation =
  | { kind: 'persistence'; enabled: boolean }
  | { kind: 'lockClocks'; range: ClockRange }
  | { kind: 'resetClocks' }
  | { kind: 'lockMemoryClocks'; range: ClockRange }
  | { kind: 'resetMemoryClocks' }
  | { kind: 'powerLimit'; watts: number };

export type GpuOperationKind = GpuOperation['kind'];

/** What a run or a sweep asks for, for its own duration. */
export interface GpuRunSettings {
  persistence?: boolean | undefined;
  lockClocks?: ClockRange | undefined;
  lockMemoryClocks?: ClockRange | undefined;
  powerLimitW?: number | undefined;
}

/** No clock any GPU reports is near 100 GHz; five digits bound the value before it becomes a number. */
const CLOCK_TEXT = /^(\d{1,5})(?:,(\d{1,5}))?$/u;
const WATTS_TEXT = /^\d{1,4}$/u;
/** An index as nvidia-smi counts (0-99) or a full GPU UUID; MIG UUIDs cannot take these settings. */
const GPU_TEXT = /^(?:\d{1,2}|GPU-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/u;

export class GpuValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GpuValueError';
  }
}

/** "2100" (locked at one clock) or "1500,2100" (a range); anything else is refused with what to type. */
export function parseClockRange(text: string, what = 'a clock lock'): ClockRange {
  const match = CLOCK_TEXT.exec(text);
  if (!match) {
    throw new GpuValueError(`${what} is MHz as digits, MIN or MIN,MAX (e.g. 2100 or 1500,2100), got "${printable(text)}"`);
  }
  const minMHz = Number(match[1]);
  const maxMHz = match[2] === undefined ? minMHz : Number(match[2]);
  if (minMHz > maxMHz) throw new GpuValueError(`${what}: MIN ${minMHz} is above MAX ${maxMHz}; give MIN,MAX with MIN ≤ MAX`);
  if (maxMHz === 0) throw new GpuValueError(`${what}: a clock of 0 MHz cannot be locked; give the clock in MHz, e.g. 2100`);
  return { minMHz, maxMHz };
}

/** Whole watts, as digits only ("300"). */
export function parseWatts(text: string): number {
  if (!WATTS_TEXT.test(text)) throw new GpuValueError(`a power limit is whole watts as digits (e.g. 300), got "${printable(text)}"`);
  const watts = Number(text);
  if (watts === 0) throw new GpuValueError('a power limit of 0 W is not a limit; give watts, e.g. 300');
  return watts;
}

/** A GPU as `-i` takes it: its index or its full UUID. */
export function parseGpuSelector(text: string): string {
  if (!GPU_TEXT.test(text)) throw new GpuValueError(`a GPU is its index (0, 1, ...) or its UUID (GPU-xxxxxxxx-...), got "${printable(text)}"`);
  return text;
}

export function parseOnOff(text: string): boolean {
  if (text === 'on' || text === '1') return true;
  if (text === 'off' || text === '0') return false;
  throw new GpuValueError(`persistence takes on or off, got "${printable(text)}"`);
}

export function formatClockRange(range: ClockRange): string {
  return range.minMHz === range.maxMHz ? `${range.minMHz}` : `${range.minMHz},${range.maxMHz}`;
}

/** What the operation does, as a verb phrase a sentence can hold: "lock GPU clocks at 2100 MHz". */
export function describeOperation(op: GpuOperation): string {
  switch (op.kind) {
    case 'persistence':
      return `turn persistence mode ${op.enabled ? 'on' : 'off'}`;
    case 'lockClocks':
      return `lock GPU clocks at ${describeRange(op.range)}`;
    case 'resetClocks':
      return 'reset GPU clocks';
    case 'lockMemoryClocks':
      return `lock memory clocks at ${describeRange(op.range)}`;
    case 'resetMemoryClocks':
      return 'reset memory clocks';
    case 'powerLimit':
      return `set the power limit to ${op.watts} W`;
  }
}

function describeRange(range: ClockRange): string {
  return range.minMHz === range.maxMHz ? `${range.minMHz} MHz` : `${range.minMHz}-${range.maxMHz} MHz`;
}

/** The operations that put run settings in force, in the order they are applied (persistence first, as NVIDIA advises). */
export function runSettingsOperations(settings: GpuRunSettings): GpuOperation[] {
  const ops: GpuOperation[] = [];
  if (settings.persistence !== undefined) ops.push({ kind: 'persistence', enabled: settings.persistence });
  if (settings.powerLimitW !== undefined) ops.push({ kind: 'powerLimit', watts: settings.powerLimitW });
  if (settings.lockClocks) ops.push({ kind: 'lockClocks', range: settings.lockClocks });
  if (settings.lockMemoryClocks) ops.push({ kind: 'lockMemoryClocks', range: settings.lockMemoryClocks });
  return ops;
}

export function hasRunSettings(settings: GpuRunSettings | undefined): settings is GpuRunSettings {
  return settings !== undefined && runSettingsOperations(settings).length > 0;
}

function printable(text: string): string {
  return JSON.stringify(text.slice(0, 40)).slice(1, -1);
}

/** Zod types for the contract: text in (what a person typed), checked by the parsers above. */
function fromText<T>(parse: (text: string) => T) {
  return z
    .string()
    .max(40)
    .transform((text, ctx) => {
      try {
        return parse(text);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
        return z.NEVER;
      }
    });
}

export const clockRangeText = fromText((text) => parseClockRange(text));
export const wattsText = fromText(parseWatts);
export const gpuSelectorText = fromText(parseGpuSelector);

export const gpuRunSettingsInput = z
  .object({
    persistence: z.boolean().optional(),
    lockClocks: clockRangeText.optional(),
    lockMemoryClocks: clockRangeText.optional(),
    powerLimitW: wattsText.optional(),
  })
  .strict();

export const gpuOperationInput = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('persistence'), enabled: z.boolean() }).strict(),
  z.object({ kind: z.literal('lockClocks'), range: clockRangeText }).strict(),
  z.object({ kind: z.literal('resetClocks') }).strict(),
  z.object({ kind: z.literal('lockMemoryClocks'), range: clockRangeText }).strict(),
  z.object({ kind: z.literal('resetMemoryClocks') }).strict(),
  z.object({ kind: z.literal('powerLimit'), watts: wattsText }).strict(),
]);
