// The GPU's control state from `nvidia-smi -q -x -i GPU`, the checks a change must pass against it
// before anything runs, and the sweep profiles derived from it.
import type { GpuControlState, GpuProfile } from '../../shared/api.js';
import { describeOperation, type ClockRange, type GpuOperation } from '../../shared/gpuSettings.js';
import { classifyNvidiaSmiMessage, parseNvidiaSmiXml, supportedGraphicsClocks, type GpuInfo } from '../telemetry/nvidiaSmi/index.js';
import { runNvidiaSmi } from '../system/nvidiaSmi.js';

export type ReadStateResult = { ok: true; state: GpuControlState } | { ok: false; reason: string };

/** Locks known from the journal (nvidia-smi has no query for them). */
export type KnownLocks = GpuControlState['locks'];

export async function readGpuState(binary: string, gpu: string, env: Record<string, string>, locks: KnownLocks): Promise<ReadStateResult> {
  const { code, output } = await runNvidiaSmi(binary, ['-q', '-x', '-i', gpu], env);
  if (code !== 0) {
    const message = classifyNvidiaSmiMessage(output);
    return { ok: false, reason: message?.line ?? `nvidia-smi -q -x -i ${gpu} exited ${code}` };
  }
  const parsed = parseNvidiaSmiXml(output);
  if (!parsed.ok) return { ok: false, reason: `could not read nvidia-smi's answer: ${parsed.error}` };
  const info = parsed.card.gpus[0];
  if (!info) return { ok: false, reason: `nvidia-smi lists no GPU ${gpu}` };
  return { ok: true, state: stateFromInfo(info, gpu, locks) };
}

/** The control state of one GPU of an info card; `gpu` is the selector it was asked for by. */
export function stateFromInfo(info: GpuInfo, gpu: string, locks: KnownLocks): GpuControlState {
  return {
    index: /^\d+$/u.test(gpu) ? Number(gpu) : info.index,
    uuid: info.uuid,
    busId: info.busId,
    name: info.name,
    persistenceMode: info.persistenceMode,
    clocks: {
      graphicsMHz: info.clocks.current.graphicsMHz,
      memMHz: info.clocks.current.memMHz,
      maxGraphicsMHz: info.clocks.max.graphicsMHz,
      maxMemMHz: info.clocks.max.memMHz,
      maxCustomerBoostMHz: info.clocks.maxCustomerBoostMHz,
      defaultApplicationsGraphicsMHz: info.clocks.defaultApplications.graphicsMHz,
    },
    supportedGraphicsMHz: supportedGraphicsClocks(info),
    supportedMemoryMHz: [...new Set((info.supportedClocks ?? []).map((m) => m.memMHz))].sort((a, b) => b - a),
    power: {
      drawW: info.power.drawW,
      limitW: info.power.limitW,
      requestedLimitW: info.power.requestedLimitW,
      defaultLimitW: info.power.defaultLimitW,
      minLimitW: info.power.minLimitW,
      maxLimitW: info.power.maxLimitW,
    },
    locks,
    processes: info.processes.map((p) => ({ pid: p.pid, name: p.name, usedMemoryMiB: p.usedMemoryMiB })),
  };
}

/**
 * Why this change cannot work on this GPU, or null. Clocks must lie within what the GPU lists (the
 * driver rounds a value between listed steps, so any value inside the range is fine); 0 stays allowed
 * as a minimum ("no floor", as in `-lgc 0,1860`). Power must lie within the board's range.
 */
export function checkAgainstState(op: GpuOperation, state: GpuControlState): string | null {
  const what = describeOperation(op);
  if (op.kind === 'lockClocks' || op.kind === 'lockMemoryClocks') {
    const memory = op.kind === 'lockMemoryClocks';
    const listed = memory ? state.supportedMemoryMHz : state.supportedGraphicsMHz;
    const ceiling = listed[0] ?? (memory ? state.clocks.maxMemMHz : state.clocks.maxGraphicsMHz);
    const floor = listed.at(-1) ?? null;
    const kind = memory ? 'memory' : 'graphics';
    if (ceiling !== null && op.range.maxMHz > ceiling) {
      return `cannot ${what}: GPU ${state.index} supports ${kind} clocks up to ${ceiling} MHz`;
    }
    const low = [op.range.minMHz, op.range.maxMHz].find((mhz) => mhz !== 0 && floor !== null && mhz < floor);
    if (low !== undefined) return `cannot ${what}: GPU ${state.index}'s lowest supported ${kind} clock is ${floor} MHz (got ${low})`;
    if (op.range.minMHz === 0 && op.range.maxMHz === 0) return `cannot ${what}: give a clock in MHz`;
  }
  if (op.kind === 'powerLimit') {
    const { minLimitW, maxLimitW } = state.power;
    if (minLimitW !== null && maxLimitW !== null && (op.watts < minLimitW || op.watts > maxLimitW)) {
      return `cannot set power limit ${op.watts} W: GPU ${state.index} takes ${minLimitW}-${maxLimitW} W`;
    }
    if (minLimitW === null && maxLimitW === null && state.power.limitW === null) {
      return `cannot set a power limit: GPU ${state.index} reports no power management (nvidia-smi shows N/A)`;
    }
  }
  return null;
}

/** The highest listed clock at or below `mhz` (the driver's own step), or `mhz` itself when none is listed. */
function snapDown(mhz: number, supported: readonly number[]): number {
  return supported.find((s) => s <= mhz) ?? mhz;
}

function fixedLock(mhz: number): ClockRange {
  return { minMHz: mhz, maxMHz: mhz };
}

/**
 * "Max sustained" locks the clock the board can hold under load; "Base clock" locks the guaranteed one.
 * Data-centre drivers report both (max customer boost, default applications clock); GeForce boards
 * report neither, so they are estimated from the maximum nvidia-smi lists: published boost clocks are
 * 80-81 % of it (RTX 4090 2520/3120 MHz, RTX 3090 1695/2100) and these boards hold somewhat more under
 * load, hence 85 %; base clocks are near two thirds (RTX 4090 2235/3120, RTX 3090 1395/2100). Each
 * profile says which it used.
 */
export function gpuProfiles(state: GpuControlState): GpuProfile[] {
  const listed = state.supportedGraphicsMHz;
  const max = listed[0] ?? state.clocks.maxGraphicsMHz;
  if (max === null) return [];
  const power = state.power.defaultLimitW === null ? {} : { powerLimitW: state.power.defaultLimitW };
  const boost = state.clocks.maxCustomerBoostMHz;
  const sustained = boost ?? snapDown(Math.round(max * 0.85), listed);
  const appClock = state.clocks.defaultApplicationsGraphicsMHz;
  const base = appClock ?? snapDown(Math.round((max * 2) / 3), listed);
  return [
    {
      id: 'max-sustained',
      name: 'Max sustained',
      settings: { persistence: true, lockClocks: fixedLock(sustained), ...power },
      basis:
        boost !== null
          ? `the driver's max customer boost clock (${boost} MHz), default power limit`
          : `estimated: 85 % of the ${max} MHz maximum, on a supported step (this board reports no sustained clock; if runs show power or thermal throttling, lower it in Custom)`,
    },
    {
      id: 'base-clock',
      name: 'Base clock',
      settings: { persistence: true, lockClocks: fixedLock(base), ...power },
      basis:
        appClock !== null
          ? `the driver's default applications clock (${appClock} MHz), default power limit`
          : `estimated: two thirds of the ${max} MHz maximum, on a supported step (this board does not report its base clock)`,
    },
  ];
}
