// CSV rows of --query-gpu: every captured file parses in its header's field order, "no value"
// spellings become null (never zero), quoting and spacing follow CSV rules, and no input throws.
import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCsvTable, parseQueryGpuLine, splitCsvLine, type GpuSample } from '../../../electron/core/telemetry/nvidiaSmi/csv.js';
import { fieldsFromQuery, resolveFields, SAMPLE_FIELD_KEYS } from '../../../electron/core/telemetry/nvidiaSmi/fields.js';
import { classifyNvidiaSmiMessage, classifyNvidiaSmiMessages } from '../../../electron/core/telemetry/nvidiaSmi/messages.js';
import { parseMask, parseNumber, unavailableReason } from '../../../electron/core/telemetry/nvidiaSmi/values.js';
import { readCapturedFixture, capturedFixture } from '../../helpers/fixtures.js';

const csvCaptures = fs
  .readdirSync(capturedFixture('nvidia-smi'))
  .filter((f) => /\.query-gpu.*\.csv$/u.test(f))
  .sort();

function parseCapture(file: string): GpuSample[] {
  const table = parseCsvTable(readCapturedFixture('nvidia-smi', file));
  const fields = fieldsFromQuery(table.columns);
  return table.lines.map((line) => {
    const result = parseQueryGpuLine(line, fields);
    if (!result.ok) throw new Error(`${file}: ${result.error.message}`);
    return result.sample;
  });
}

/** Known values per capture (read off the files by eye). */
const EXPECTED: Record<string, Partial<GpuSample>> = {
  'h100-80gb-hbm3.590.48.01.query-gpu.csv': {
    index: 0,
    powerW: 69.85,
    powerLimitW: 700,
    memTotalMiB: 81559,
    fanPercent: null,
    throttleReasons: 1,
    pstate: 0,
    persistence: true,
  },
  'h100-80gb-hbm3-mig.590.48.01.query-gpu.csv': { utilGpu: null, utilMem: null, memTempC: 48, migMode: true },
  'h100-80gb-hbm3-mig.590.48.01.query-gpu.load.csv': { powerW: 433.78, powerInstantW: 447.35, smClockMHz: 1980, throttleReasons: 0, tempC: 53 },
  'rtx-2080-super-win.591.86.query-gpu.csv': { persistence: null, memClockMaxMHz: 7751, pcieGen: 3 },
  'rtx-2080-super.595.71.05.query-gpu.csv': { throttleReasons: 0x4, memTempC: null, driverVersion: '595.71.05', pstate: 8 },
  'rtx-2080-super.610.57.04.query-gpu.csv': { powerW: 39.17, powerInstantW: 39.17, powerMinLimitW: 105, powerMaxLimitW: 350, fanPercent: 38 },
  'rtx-4080-super.595.71.05.query-gpu.csv': { smClockMHz: 210, memUsedMiB: 596, utilMem: 23, persistence: false },
  'rtx-4080-super.595.71.05.query-gpu.load.csv': { smClockMHz: 2805, memClockMHz: 11251, pstate: 2, utilGpu: 7, powerW: 84.24 },
  'tesla-p100-pcie-16gb.query-gpu.nounits.csv': { index: null, name: 'Tesla P100-PCIE-16GB', fanPercent: null, powerW: 28.16, memUsedMiB: 0, tempC: 37 },
};

describe('shared --query-gpu captures', () => {
  it('finds them', () => {
    expect(csvCaptures.length).toBeGreaterThanOrEqual(9);
  });

  it.each(csvCaptures)('%s parses in its header order', (file) => {
    const samples = parseCapture(file);
    expect(samples.length).toBeGreaterThan(0);
    for (const sample of samples) {
      expect(sample.gpuLost).toBe(false);
      expect(sample.uuid).toMatch(/^GPU-[0-9a-f-]+$/u);
      expect(sample.powerW).toBeGreaterThan(0);
      // Nothing the captures print is unparseable; every null has an N/A-style reason.
      for (const reason of Object.values(sample.unavailable)) expect(reason).not.toMatch(/^unparseable/u);
    }
    const expected = EXPECTED[file];
    expect(expected, `add ${file} to EXPECTED`).toBeDefined();
    expect(samples[0]).toMatchObject(expected!);
  });

  it('reads "[N/A]", bare "N/A" and deprecated cells as null with their reason', () => {
    const [h100] = parseCapture('h100-80gb-hbm3-mig.590.48.01.query-gpu.csv');
    expect(h100!.utilGpu).toBeNull();
    expect(h100!.unavailable.utilGpu).toBe('N/A');
    const [rtx] = parseCapture('rtx-2080-super.610.57.04.query-gpu.csv');
    expect(rtx!.memTempC).toBeNull(); // printed "N/A" without brackets
    expect(rtx!.unavailable.memTempC).toBe('N/A');
  });
});

describe('parseQueryGpuLine', () => {
  const fields = fieldsFromQuery([
    'index',
    'name',
    'utilization.gpu',
    'power.draw',
    'clocks_event_reasons.active',
    'persistence_mode',
    'pstate',
    'temperature.gpu',
  ]);

  it('reads a nounits row', () => {
    const r = parseQueryGpuLine('0, NVIDIA GeForce RTX 4090, 95, 436.21, 0x0000000000000004, Enabled, P2, 71', fields);
    expect(r.ok && r.sample).toMatchObject({
      index: 0,
      name: 'NVIDIA GeForce RTX 4090',
      utilGpu: 95,
      powerW: 436.21,
      throttleReasons: 4,
      persistence: true,
      pstate: 2,
      tempC: 71,
    });
  });

  it('reads a row with units, as --format=csv prints it', () => {
    const r = parseQueryGpuLine('1, NVIDIA H100, 3 %, 75.32 W, 0x0000000000000001, Disabled, P0, 44', fields);
    expect(r.ok && r.sample).toMatchObject({ index: 1, utilGpu: 3, powerW: 75.32, persistence: false });
  });

  it.each([
    '[N/A]',
    '[Not Supported]',
    '[Unknown Error]',
    '[GPU is lost]',
    'N/A',
    '',
    '[Insufficient Permissions]',
    '[Requested functionality has been deprecated]',
  ])('reads %j as null, never zero', (cell) => {
    const r = parseQueryGpuLine(`0, X, ${cell}, ${cell}, ${cell}, ${cell}, ${cell}, ${cell}`, fields);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    for (const key of ['utilGpu', 'powerW', 'throttleReasons', 'persistence', 'pstate', 'tempC'] as const) {
      expect(r.sample[key]).toBeNull();
      expect(r.sample.unavailable[key]).toBeTruthy();
    }
    expect(r.sample.gpuLost).toBe(cell === '[GPU is lost]');
  });

  it('keeps a row whose every cell says the GPU is lost, flagged', () => {
    const lost = Array(8).fill('[GPU is lost]').join(', ');
    const r = parseQueryGpuLine(lost, fields);
    expect(r.ok && r.sample.gpuLost).toBe(true);
    expect(r.ok && r.sample.index).toBeNull();
  });

  it('follows CSV quoting, and gives an unquoted comma in a name back to the name', () => {
    const quoted = parseQueryGpuLine('0, "Board, ""Pro"" Edition", 5, 30.00, 0x0, Disabled, P8, 40', fields);
    expect(quoted.ok && quoted.sample.name).toBe('Board, "Pro" Edition');
    const unquoted = parseQueryGpuLine('0, Board, Pro Edition, 5, 30.00, 0x0, Disabled, P8, 40', fields);
    expect(unquoted.ok && unquoted.sample.name).toBe('Board, Pro Edition');
    expect(unquoted.ok && unquoted.sample.utilGpu).toBe(5);
    expect(splitCsvLine('a,b ,  c,"d,e",')).toEqual(['a', 'b', 'c', 'd,e', '']);
    expect(splitCsvLine('"unterminated, still one')).toEqual(['unterminated, still one']);
  });

  it('turns garbage into typed errors', () => {
    const cases: [string, string][] = [
      ['', 'empty'],
      ['this is not a CSV row at all', 'columns'],
      ['0, 45, [N/A', 'columns'],
      ['index, name, utilization.gpu [%], power.draw [W], clocks_event_reasons.active, persistence_mode, pstate, temperature.gpu', 'header'],
      ['x, y, z, w, v, u, t, s', 'garbage'],
      ['0, X, abc, def, ghi, jkl, mno, pqr', 'garbage'],
      [
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
        'message',
      ],
      ['Unable to determine the device handle for GPU 0000:01:00.0: GPU is lost. Reboot the system to recover this GPU', 'message'],
    ];
    for (const [line, kind] of cases) {
      const r = parseQueryGpuLine(line, fields);
      expect(r.ok, line).toBe(false);
      if (!r.ok) expect(r.error.kind, line).toBe(kind);
    }
    const lost = parseQueryGpuLine('Unable to determine the device handle for GPU 0000:01:00.0: GPU is lost. Reboot the system to recover this GPU', fields);
    expect(!lost.ok && lost.error.nvidiaSmi).toMatchObject({ kind: 'gpu-lost', busId: '0000:01:00.0' });
  });

  it('reads a CRLF line (Windows nvidia-smi.exe writes CRLF)', () => {
    const r = parseQueryGpuLine('0, X, 1, 2.5, 0x0, Enabled, P0, 30\r', fields);
    expect(r.ok && r.sample.tempC).toBe(30);
  });

  it('never throws, whatever the line', () => {
    const resolved = resolveFields(readCapturedFixture('nvidia-smi', 'help-query-gpu.595.71.05.txt'));
    const pieces = fc.constantFrom(
      '0',
      '1',
      ', ',
      ',',
      '"',
      '""',
      '[N/A]',
      '[GPU is lost]',
      'N/A',
      '12.5 W',
      '0x1F',
      'P2',
      'Enabled',
      ' ',
      '\r',
      'GPU-1',
      '😀',
      '\u0000',
      'MiB',
    );
    const line = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.array(pieces, { maxLength: 60 }).map((a) => a.join('')),
    );
    fc.assert(
      fc.property(line, (text) => {
        const r = parseQueryGpuLine(text, resolved);
        if (r.ok) {
          for (const key of SAMPLE_FIELD_KEYS) {
            const value = r.sample[key];
            expect(value === null || ['number', 'string', 'boolean'].includes(typeof value)).toBe(true);
            if (typeof value === 'number') expect(Number.isFinite(value)).toBe(true);
          }
        } else {
          expect(typeof r.error.message).toBe('string');
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('round-trips random numeric rows', () => {
    const resolved = resolveFields(readCapturedFixture('nvidia-smi', 'help-query-gpu.590.48.01.txt'));
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 100_000 }), { minLength: resolved.query.length, maxLength: resolved.query.length }), (values) => {
        const r = parseQueryGpuLine(values.join(', '), resolved);
        expect(r.ok).toBe(true);
        if (r.ok) expect(r.sample.index).toBe(values[0]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('values', () => {
  it('knows the no-value spellings', () => {
    expect(unavailableReason('[N/A]')).toBe('N/A');
    expect(unavailableReason(' N/A ')).toBe('N/A');
    expect(unavailableReason('[Not Supported]')).toBe('Not Supported');
    expect(unavailableReason('')).toBe('empty');
    expect(unavailableReason('0')).toBeNull();
    expect(unavailableReason('None')).toBeNull();
  });

  it('reads numbers with units', () => {
    expect(parseNumber('433.78 W')).toBe(433.78);
    expect(parseNumber('100.00%')).toBe(100);
    expect(parseNumber('16x')).toBe(16);
    expect(parseNumber('192 bank(s)')).toBe(192);
    expect(parseNumber('1066699 KB/s')).toBe(1066699);
    expect(parseNumber('-7 C')).toBe(-7);
    expect(parseNumber('0x1F')).toBeNull();
    expect(parseNumber('Infinity')).toBeNull();
    expect(parseNumber('1e999')).toBeNull();
  });

  it('reads masks, dropping bits above 2^52', () => {
    expect(parseMask('0x00000000000001FF')).toBe(0x1ff);
    expect(parseMask('0x8000000000000004')).toBe(4);
    expect(parseMask('12')).toBe(12);
    expect(parseMask('0xZZ')).toBeNull();
  });
});

describe('nvidia-smi messages', () => {
  it('recognises the messages of messages.md', () => {
    const cases: [string, string][] = [
      [
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
        'no-driver',
      ],
      ['NVIDIA-SMI has failed because it couldn‘t communicate with the NVIDIA driver. Make sure', 'no-driver'],
      ['Failed to initialize NVML: Driver/library version mismatch', 'driver-mismatch'],
      ['Unable to determine the device handle for GPU 0000:03:00.0: GPU is lost.  Reboot\n the system to recover this GPU', 'gpu-lost'],
      ['Field "device_minor" is not a valid field to query.\n\n', 'invalid-field'],
      ['Unable to set persistence mode for GPU 00000000:08:00.0: Insufficient Permissions', 'insufficient-permissions'],
      ['The current user does not have permission to change clocks for GPU 00000000:01:00.0.', 'insufficient-permissions'],
      ['Failed to set power management limit for GPU 00000000:01:00.0: Insufficient Permissions', 'insufficient-permissions'],
      ['Provided power limit 50.00 W is not a valid power limit which should be between 200.00 W and 700.00 W for GPU 00000000:06:00.0', 'invalid-power-limit'],
      ['Setting locked GPU clocks is not supported for GPU 00000000:05:00.0.', 'not-supported'],
      [
        'Specified clock combination "(MEM 715, SM 111)" is not supported for GPU 00000002:01:00.0. Run \'nvidia-smi -q -d SUPPORTED_CLOCKS\' to see list of supported clock combinations',
        'invalid-clocks',
      ],
      ['Changing power management limit is not supported for GPU: 00000000:01:00.0.', 'not-supported'],
      ["ERROR: Option -m is missing its value. Please run 'nvidia-smi -h' for help.", 'bad-option'],
      ['Unable to set persistence mode for GPU 00000000:11:00.0: Unknown Error', 'unknown-error'],
    ];
    for (const [text, kind] of cases) expect(classifyNvidiaSmiMessage(text)?.kind, text).toBe(kind);
    expect(classifyNvidiaSmiMessage('Field "temperature.memory" is not a valid field to query.')?.field).toBe('temperature.memory');
    expect(classifyNvidiaSmiMessage('GPU clocks set to "(gpuClkMin 1740, gpuClkMax 1740)" for GPU 00000000:61:00.0\nAll done.')).toBeNull();
    expect(
      classifyNvidiaSmiMessages(
        'Setting locked GPU clocks is not supported for GPU 00000000:05:00.0.\nTreating as warning and moving on.\nThe current user does not have permission to change clocks for GPU 00000000:01:00.0.',
      ).map((m) => m.kind),
    ).toEqual(['not-supported', 'insufficient-permissions']);
  });
});
