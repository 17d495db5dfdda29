// What a person may type for GPU control, and the argv it becomes: digits and one comma, nothing else.
import { describe, expect, it } from 'vitest';
import { assertAllowlisted, operationArgs } from '../../../electron/core/gpu-control/allowlist.js';
import {
  GpuValueError,
  gpuOperationInput,
  gpuRunSettingsInput,
  parseClockRange,
  parseGpuSelector,
  parseOnOff,
  parseWatts,
  runSettingsOperations,
} from '../../../electron/shared/gpuSettings.js';

describe('clock ranges', () => {
  it.each([
    ['2100', { minMHz: 2100, maxMHz: 2100 }],
    ['1500,2100', { minMHz: 1500, maxMHz: 2100 }],
    ['0,1860', { minMHz: 0, maxMHz: 1860 }],
    ['10501', { minMHz: 10501, maxMHz: 10501 }],
  ])('takes %s', (text, range) => {
    expect(parseClockRange(text)).toEqual(range);
  });

  it.each([
    '',
    '21a0',
    '2100,2100,2100',
    '2100;reboot',
    '$(id)',
    '`id`',
    '-1',
    '2100 ',
    ' 2100',
    '2100,',
    ',2100',
    '2100.5',
    '0x834',
    '１２００',
    '2100\n',
    '123456',
    'tdp,tdp',
    '2100,1500',
    '0',
  ])('refuses %j with a message that says what to type', (text) => {
    expect(() => parseClockRange(text)).toThrow(GpuValueError);
    expect(() => parseClockRange(text)).toThrow(/MHz|MIN/u);
  });
});

describe('watts, GPUs and on/off', () => {
  it('takes whole watts only', () => {
    expect(parseWatts('300')).toBe(300);
    for (const bad of ['300W', '300.5', '-5', '0', '', '1e3', '30000', '300,400']) expect(() => parseWatts(bad)).toThrow(/whole watts|not a limit/u);
  });

  it('takes an index or a full GPU UUID, never a list, a bus id or a MIG device', () => {
    expect(parseGpuSelector('0')).toBe('0');
    expect(parseGpuSelector('GPU-fa4e0000-0000-4000-8000-000000000001')).toBe('GPU-fa4e0000-0000-4000-8000-000000000001');
    for (const bad of ['0,1', '00000000:01:00.0', 'MIG-fa4e0000-0000-4000-8000-000000000001', 'GPU-zz', '-1', '100', 'all']) {
      expect(() => parseGpuSelector(bad)).toThrow(GpuValueError);
    }
  });

  it('takes on/off for persistence', () => {
    expect(parseOnOff('on')).toBe(true);
    expect(parseOnOff('off')).toBe(false);
    expect(() => parseOnOff('yes')).toThrow(/on or off/u);
  });
});

describe('the contract refuses the same values', () => {
  it('parses run settings from text and rejects anything but digits and one comma', () => {
    expect(gpuRunSettingsInput.parse({ lockClocks: '1500,2100', powerLimitW: '300' })).toEqual({
      lockClocks: { minMHz: 1500, maxMHz: 2100 },
      powerLimitW: 300,
    });
    const bad = gpuRunSettingsInput.safeParse({ lockClocks: '2100;reboot' });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toMatch(/MIN or MIN,MAX/u);
    expect(gpuRunSettingsInput.safeParse({ resetGpu: true }).success).toBe(false);
    expect(gpuOperationInput.safeParse({ kind: 'reset' }).success).toBe(false);
    expect(gpuOperationInput.parse({ kind: 'powerLimit', watts: '250' })).toEqual({ kind: 'powerLimit', watts: 250 });
  });

  it('applies persistence first and locks last', () => {
    const ops = runSettingsOperations({ lockClocks: { minMHz: 2100, maxMHz: 2100 }, persistence: true, powerLimitW: 300 });
    expect(ops.map((op) => op.kind)).toEqual(['persistence', 'powerLimit', 'lockClocks']);
  });
});

describe('the allowlist', () => {
  it('builds exactly the six argument vectors', () => {
    expect(operationArgs({ kind: 'persistence', enabled: true }, '0')).toEqual(['-i', '0', '-pm', '1']);
    expect(operationArgs({ kind: 'lockClocks', range: { minMHz: 2100, maxMHz: 2100 } }, '0')).toEqual(['-i', '0', '-lgc', '2100,2100']);
    expect(operationArgs({ kind: 'resetClocks' }, '1')).toEqual(['-i', '1', '-rgc']);
    expect(operationArgs({ kind: 'lockMemoryClocks', range: { minMHz: 405, maxMHz: 10501 } }, '0')).toEqual(['-i', '0', '-lmc', '405,10501']);
    expect(operationArgs({ kind: 'resetMemoryClocks' }, '0')).toEqual(['-i', '0', '-rmc']);
    // A restore may put back the fractional limit the driver reported.
    expect(operationArgs({ kind: 'powerLimit', watts: 212.5 }, '0')).toEqual(['-i', '0', '-pl', '212.50']);
  });

  it('refuses anything else right before it would run', () => {
    for (const args of [
      ['-i', '0', '-r'],
      ['-i', '0', '-mig', '1'],
      ['-i', '0', '-lgc', '2100'],
      ['-i', '0', '-lgc', '2100,2100', 'extra'],
      ['-i', '0;id', '-pm', '1'],
      ['-pm', '1'],
      ['-i', '0', '-pl', '300W'],
      ['-i', '0', '-rgc', '1'],
    ]) {
      expect(() => assertAllowlisted(args)).toThrow(/allowlisted/u);
    }
    expect(() => assertAllowlisted(['-i', 'GPU-fa4e0000-0000-4000-8000-000000000001', '-rmc'])).not.toThrow();
  });
});
