// Field resolution against every `--help-query-gpu` capture: each resolves, the R535 rename
// (clocks_throttle_reasons → clocks_event_reasons) and the 595 deprecations pick the right names.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  GPU_FIELDS,
  INFO_FIELD_KEYS,
  SAMPLE_FIELD_KEYS,
  fieldsFromQuery,
  headerName,
  parseHelpQueryGpu,
  queryArgument,
  resolveFields,
  type GpuFieldKey,
} from '../../../electron/core/telemetry/nvidiaSmi/fields.js';
import { readCapturedFixture, capturedFixture } from '../../helpers/fixtures.js';

const helpCaptures = fs
  .readdirSync(capturedFixture('nvidia-smi'))
  .filter((f) => f.startsWith('help-query-gpu.'))
  .sort();

/** Names chosen per capture, for the keys where drivers differ. */
const EXPECTED: Record<string, Partial<Record<GpuFieldKey, string>> & { missing: GpuFieldKey[] }> = {
  'help-query-gpu.netdata-2022.txt': {
    throttleReasons: 'clocks_throttle_reasons.active',
    pcieGen: 'pcie.link.gen.current',
    powerW: 'power.draw',
    powerLimitW: 'enforced.power.limit',
    missing: ['powerInstantW', 'energyMJ'],
  },
  'help-query-gpu.590.48.01.txt': {
    throttleReasons: 'clocks_event_reasons.active',
    pcieGen: 'pcie.link.gen.gpucurrent',
    powerInstantW: 'power.draw.instant',
    missing: ['energyMJ'],
  },
  'help-query-gpu.591.86-win.txt': { throttleReasons: 'clocks_event_reasons.active', pcieGen: 'pcie.link.gen.gpucurrent', missing: ['energyMJ'] },
  'help-query-gpu.595.71.05.txt': { throttleReasons: 'clocks_event_reasons.active', pcieGen: 'pcie.link.gen.gpucurrent', missing: ['energyMJ'] },
  'help-query-gpu.610.57.04.txt': { throttleReasons: 'clocks_event_reasons.active', pcieGen: 'pcie.link.gen.gpucurrent', missing: ['energyMJ'] },
};

describe('help captures', () => {
  it('finds the help captures', () => {
    expect(helpCaptures.length).toBeGreaterThanOrEqual(5);
  });

  it.each(helpCaptures)('%s lists its fields, each once, with aliases', (file) => {
    const fields = parseHelpQueryGpu(readCapturedFixture('nvidia-smi', file));
    expect(fields.length).toBeGreaterThan(100);
    const names = fields.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('index');
    expect(names).toContain('utilization.gpu');
    // Description lines that start with a quote are not fields ("0: Default" means ...).
    expect(names.some((n) => /\s|:/u.test(n))).toBe(false);
    expect(fields.find((f) => f.name === 'name')!.aliases).toEqual(['gpu_name']);
    // "clocks.max.sm" or "clocks.max.sm": an alias equal to the name is no alias.
    expect(fields.find((f) => f.name === 'clocks.max.sm')!.aliases).toEqual([]);
  });

  it.each(helpCaptures)('%s resolves every sample field but the energy counter', (file) => {
    const resolved = resolveFields(readCapturedFixture('nvidia-smi', file));
    const expected = EXPECTED[file];
    expect(expected, `add ${file} to EXPECTED`).toBeDefined();
    expect([...resolved.missing].sort()).toEqual([...expected!.missing].sort());
    for (const [key, name] of Object.entries(expected!)) {
      if (key !== 'missing') expect(resolved.nameOf[key as GpuFieldKey]).toBe(name);
    }
    // Every chosen name is one the help lists (as a field or alias).
    const listed = new Set(parseHelpQueryGpu(readCapturedFixture('nvidia-smi', file)).flatMap((f) => [f.name, ...f.aliases]));
    for (const name of resolved.query) expect(listed.has(name)).toBe(true);
    expect(resolved.query.length).toBe(new Set(resolved.query).size);
    expect(resolved.query[0]).toBe('index');
    expect(queryArgument(resolved)).toBe(resolved.query.join(','));
  });

  it('resolves the info fields too, preferring kmd_version once the driver has it', () => {
    const newer = resolveFields(readCapturedFixture('nvidia-smi', 'help-query-gpu.595.71.05.txt'), INFO_FIELD_KEYS);
    expect(newer.nameOf.driverVersion).toBe('kmd_version');
    expect(newer.missing).toEqual([]);
    const older = resolveFields(readCapturedFixture('nvidia-smi', 'help-query-gpu.590.48.01.txt'), INFO_FIELD_KEYS);
    expect(older.nameOf.driverVersion).toBe('driver_version');
    const oldest = resolveFields(readCapturedFixture('nvidia-smi', 'help-query-gpu.netdata-2022.txt'), INFO_FIELD_KEYS);
    expect(oldest.nameOf.throttleReasonsSupported).toBe('clocks_throttle_reasons.supported');
  });

  it('reads the deprecation notes of the 595+ help', () => {
    const fields = parseHelpQueryGpu(readCapturedFixture('nvidia-smi', 'help-query-gpu.595.71.05.txt'));
    const deprecated = fields.filter((f) => f.deprecated).map((f) => f.name);
    expect(deprecated).toEqual(expect.arrayContaining(['driver_version', 'pcie.link.gen.current', 'display_mode']));
    expect(deprecated).not.toContain('compute_mode');
  });
});

describe('resolution rules', () => {
  it('resolves nothing from an empty or foreign text, and says so', () => {
    for (const text of ['', "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.", '"a b" or "c"']) {
      const resolved = resolveFields(text);
      expect(resolved.query).toEqual([]);
      expect(resolved.missing).toEqual(SAMPLE_FIELD_KEYS);
    }
  });

  it('takes an alias when only the alias is listed', () => {
    const resolved = resolveFields('"index"\nx\n\n"clocks_throttle_reasons.active"\nmask\n\n"gpu.power.draw.average"\nw\n', [
      'index',
      'throttleReasons',
      'powerW',
    ]);
    expect(resolved.query).toEqual(['index', 'clocks_throttle_reasons.active', 'gpu.power.draw.average']);
    expect(resolved.missing).toEqual([]);
  });

  it('maps a header to keys, each key to its preferred column', () => {
    const fields = fieldsFromQuery(['index', 'power.draw.average [W]', 'power.draw [W]', 'power.draw.instant [W]', 'foo.bar']);
    expect(fields.query).toEqual(['index', 'power.draw.average', 'power.draw', 'power.draw.instant', 'foo.bar']);
    expect(fields.columnKeys).toEqual([['index'], [], ['powerW'], ['powerInstantW'], []]);
  });

  it('strips units from header cells', () => {
    expect(headerName('power.draw [W]')).toBe('power.draw');
    expect(headerName('  bbx.time_run [seconds] ')).toBe('bbx.time_run');
    expect(headerName('power_smoothing.curr_profile.ramp_up_rate [W/s]')).toBe('power_smoothing.curr_profile.ramp_up_rate');
  });

  it('lists every name of every key once', () => {
    for (const spec of Object.values(GPU_FIELDS)) expect(new Set(spec.names).size).toBe(spec.names.length);
  });
});
