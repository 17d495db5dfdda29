// GPU control in words: checks of what a person types (with the engine's own parsers), the state's ranges, and
// a run's recorded GPU settings.
import type { GpuControlState, RunStatus } from '../../../../electron/shared/api.js';
import {
  describeOperation,
  formatClockRange,
  parseClockRange,
  parseWatts,
  runSettingsOperations,
  type ClockRange,
  type GpuRunSettings,
} from '../../../../electron/shared/gpuSettings.js';
import { errorMessage } from '../format.js';

/** A text field's value: nothing typed, a value (with the exact text the engine will get), or why not. */
export type FieldCheck<T> = { state: 'empty' } | { state: 'ok'; value: T; text: string } | { state: 'invalid'; error: string };

/** "2100" or "1500,2100"; spaces around it are forgiven, anything else gets the parser's own message. */
export function checkClockField(text: string, what: string): FieldCheck<ClockRange> {
  const trimmed = text.trim();
  if (trimmed === '') return { state: 'empty' };
  try {
    const value = parseClockRange(trimmed, what);
    return { state: 'ok', value, text: formatClockRange(value) };
  } catch (error) {
    return { state: 'invalid', error: errorMessage(error) };
  }
}

export function checkWattsField(text: string): FieldCheck<number> {
  const trimmed = text.trim();
  if (trimmed === '') return { state: 'empty' };
  try {
    const value = parseWatts(trimmed);
    return { state: 'ok', value, text: String(value) };
  } catch (error) {
    return { state: 'invalid', error: errorMessage(error) };
  }
}

export function describeRange(range: ClockRange | null): string {
  if (range === null) return 'none known';
  return range.minMHz === range.maxMHz ? `${range.minMHz} MHz` : `${range.minMHz}–${range.maxMHz} MHz`;
}

/** The few memory clocks one by one; the graphics clocks (about 200 steps of 15 MHz) as their span. */
const LIST_AT_MOST = 8;

/** Supported clocks, highest first as the engine gives them: "210–3120 MHz (195 steps)", or null when none are listed. */
export function describeSupported(clocks: readonly number[]): string | null {
  if (clocks.length === 0) return null;
  if (clocks.length <= LIST_AT_MOST) return `${[...clocks].reverse().join(', ')} MHz`;
  return `${clocks.at(-1)}–${clocks[0]} MHz (${clocks.length} steps)`;
}

/** The hint under a clock field: what the GPU lists, or its maximum where it lists none. */
export function clockHint(clocks: readonly number[], maxMHz: number | null): string {
  const supported = describeSupported(clocks);
  if (supported !== null) return `Supported: ${supported}. MIN or MIN,MAX.`;
  return maxMHz === null ? 'MIN or MIN,MAX in MHz.' : `Up to ${maxMHz} MHz. MIN or MIN,MAX.`;
}

export function watts(value: number | null): string {
  return value === null ? '–' : `${value.toLocaleString()} W`;
}

export function powerRange(power: GpuControlState['power']): string | null {
  return power.minLimitW === null || power.maxLimitW === null ? null : `${watts(power.minLimitW)}–${watts(power.maxLimitW)}`;
}

export function powerHint(power: GpuControlState['power']): string {
  const range = powerRange(power);
  const parts = [range && `The board takes ${range}`, power.defaultLimitW !== null && `default ${watts(power.defaultLimitW)}`];
  const text = parts.filter(Boolean).join(', ');
  return text === '' ? 'Whole watts.' : `${text}. Whole watts.`;
}

/** Settings that change how fast the GPU runs (all but persistence) slow or speed up every process on it. */
export function changesSpeed(settings: GpuRunSettings): boolean {
  return runSettingsOperations(settings).some((op) => op.kind !== 'persistence');
}

/** "persistence mode on · power limit 450 W · lock GPU clocks at 2640 MHz", in the order the engine applies them. */
export function describeRunSettings(settings: GpuRunSettings): string {
  return runSettingsOperations(settings).map(describeOperation).join(' · ');
}

/** The engine refused because other processes use the GPU and nobody confirmed (core/gpu-control checkAll). */
export function isOtherProcessesRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'conflict' && /other processes use GPU/u.test(errorMessage(error));
}

/** The command a refusal tells the person to run themselves (`sudo nvidia-smi -i 0 -lgc 2100,2100`), if any. */
export function commandInMessage(message: string): string | null {
  const match = /(?:^|\s)(sudo\s+\S*nvidia-smi\s[^\n]*)$/mu.exec(message);
  return match ? match[1]!.trim() : null;
}

// --- a run's record -------------------------------------------------------------------------------------------------

type Loose = Readonly<Record<string, unknown>>;

function rangeOf(value: unknown): ClockRange | null {
  const range = value as Partial<ClockRange> | null;
  return typeof range?.minMHz === 'number' && typeof range.maxMHz === 'number' ? { minMHz: range.minMHz, maxMHz: range.maxMHz } : null;
}

export interface RunGpuSettingsText {
  /** One phrase per setting. */
  facts: string[];
  /** Whether the app set them for the run, and what became of them. */
  origin: string;
  /** `held`: set and not yet put back (the run goes on); `restored`: set and put back. */
  tone: 'held' | 'restored' | 'found' | 'failed';
}

/** A run's `gpuSettings` (core/gpu-control GpuSettingsRecord, stored as an open record) in words. */
export function describeRunGpuSettings(record: Loose, status: RunStatus): RunGpuSettingsText {
  const persistence = record.persistenceMode;
  const power = typeof record.powerLimitW === 'number' ? record.powerLimitW : null;
  const clocks = rangeOf(record.clockLock);
  const memory = rangeOf(record.memoryClockLock);
  const facts = [
    `persistence ${persistence === true ? 'on' : persistence === false ? 'off' : 'unknown'}`,
    `power limit ${watts(power)}`,
    clocks ? `clocks locked at ${describeRange(clocks)}` : 'clocks: no lock known',
    memory ? `memory clocks locked at ${describeRange(memory)}` : 'memory clocks: no lock known',
  ];
  const setBy = record.setBy;
  if (setBy !== 'run' && setBy !== 'sweep') return { facts, origin: 'as found: Tuning Bench changed nothing for this run', tone: 'found' };
  const forWhat = setBy === 'run' ? 'set for this run' : 'set for its sweep';
  const after = setBy === 'run' ? 'after' : 'after the sweep';
  if (record.restored === true) return { facts, origin: `${forWhat}, restored ${after}`, tone: 'restored' };
  if (record.restored === false) {
    const errors = Array.isArray(record.restoreErrors) ? record.restoreErrors.filter((e): e is string => typeof e === 'string') : [];
    return { facts, origin: `${forWhat}; restore failed: ${errors.join('; ') || 'no reason recorded'}`, tone: 'failed' };
  }
  if (status === 'running') return { facts, origin: `${forWhat}, restored when it ends`, tone: 'held' };
  if (status === 'interrupted') {
    return { facts, origin: `${forWhat}; the engine stopped before restoring them (GPU control can restore them)`, tone: 'failed' };
  }
  return { facts, origin: forWhat, tone: 'held' };
}
