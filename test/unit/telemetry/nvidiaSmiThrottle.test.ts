// Throttle (clocks event) reasons: bits, names in every output form, and which ones spoil timing,
// checked against the captures where both the mask and the per-reason flags are printed.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCsvTable, splitCsvLine } from '../../../electron/core/telemetry/nvidiaSmi/csv.js';
import {
  THROTTLE_REASONS,
  TIMING_THROTTLE_MASK,
  decodeThrottleReasons,
  isThrottled,
  throttleMaskFromFlags,
  throttleReasonKeyOf,
  throttlingReasons,
  unknownThrottleBits,
} from '../../../electron/core/telemetry/nvidiaSmi/throttle.js';
import { parseFlag, parseMask } from '../../../electron/core/telemetry/nvidiaSmi/values.js';
import { readCapturedFixture, capturedFixture } from '../../helpers/fixtures.js';

describe('throttle reasons', () => {
  it('has the nvml.h bits', () => {
    expect(Object.fromEntries(THROTTLE_REASONS.map((r) => [r.key, r.bit]))).toEqual({
      gpu_idle: 0x1,
      applications_clocks_setting: 0x2,
      sw_power_cap: 0x4,
      hw_slowdown: 0x8,
      sync_boost: 0x10,
      sw_thermal_slowdown: 0x20,
      hw_thermal_slowdown: 0x40,
      hw_power_brake_slowdown: 0x80,
      display_clock_setting: 0x100,
    });
  });

  it('counts power cap, thermal and hardware slowdowns as throttling, not idle or settings', () => {
    expect(TIMING_THROTTLE_MASK).toBe(0x4 | 0x8 | 0x20 | 0x40 | 0x80);
    expect(isThrottled(0x1)).toBe(false);
    expect(isThrottled(0x2 | 0x10 | 0x100)).toBe(false);
    expect(isThrottled(0x4)).toBe(true);
    expect(isThrottled(0x1 | 0x40)).toBe(true);
    expect(isThrottled(null)).toBe(false);
    expect(throttlingReasons(0x1 | 0x4 | 0x40)).toEqual(['sw_power_cap', 'hw_thermal_slowdown']);
    expect(decodeThrottleReasons(0x105).map((r) => r.key)).toEqual(['gpu_idle', 'sw_power_cap', 'display_clock_setting']);
    expect(decodeThrottleReasons(null)).toEqual([]);
    expect(unknownThrottleBits(0x201)).toBe(0x200);
  });

  it('names reasons from every form', () => {
    expect(throttleReasonKeyOf('clocks_event_reasons.sw_power_cap')).toBe('sw_power_cap');
    expect(throttleReasonKeyOf('clocks_throttle_reasons.hw_slowdown')).toBe('hw_slowdown');
    expect(throttleReasonKeyOf('clocks_event_reason_display_clocks_setting')).toBe('display_clock_setting');
    expect(throttleReasonKeyOf('clocks_throttle_reason_gpu_idle')).toBe('gpu_idle');
    expect(throttleReasonKeyOf('Idle')).toBe('gpu_idle');
    expect(throttleReasonKeyOf('HW Power Brake Slowdown')).toBe('hw_power_brake_slowdown');
    expect(throttleReasonKeyOf('clocks_event_reasons.supported')).toBeNull();
    expect(
      throttleMaskFromFlags([
        ['Idle', true],
        ['SW Power Cap', false],
        ['Sync Boost', true],
      ]),
    ).toBe(0x11);
    expect(throttleMaskFromFlags([['nonsense', true]])).toBeNull();
  });

  const csvCaptures = fs
    .readdirSync(capturedFixture('nvidia-smi'))
    .filter((f) => /\.query-gpu.*\.csv$/u.test(f))
    .filter((f) => readCapturedFixture('nvidia-smi', f).includes('reasons.active'));

  it.each(csvCaptures)('%s: the active mask decodes to the reasons printed as Active', (file) => {
    const table = parseCsvTable(readCapturedFixture('nvidia-smi', file));
    const cells = splitCsvLine(table.lines[0]!);
    const cell = (name: string) => cells[table.columns.indexOf(name)]!;
    const activeName = table.columns.find((c) => /^clocks_(event|throttle)_reasons\.active$/u.test(c))!;
    const mask = parseMask(cell(activeName))!;
    const flags = table.columns
      .filter((c) => /^clocks_(event|throttle)_reasons\.[a-z_]+$/u.test(c) && !/\.(active|supported)$/u.test(c))
      .map((c) => [c, parseFlag(cell(c))] as const);
    expect(flags.length).toBe(8);
    expect(throttleMaskFromFlags(flags)).toBe(mask);
    // Nine reasons are supported, matching the table.
    const supported = parseMask(cell(activeName.replace('active', 'supported')))!;
    expect(supported).toBe(THROTTLE_REASONS.reduce((all, r) => all | r.bit, 0));
  });
});
