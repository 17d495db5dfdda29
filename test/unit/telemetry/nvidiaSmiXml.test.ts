// The GPU info card from every `-q -x` capture, the small XML reader on its own, and
// --query-compute-apps rows.
import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { supportedGraphicsClocks, type GpuInfo } from '../../../electron/core/telemetry/nvidiaSmi/card.js';
import { parseComputeApps } from '../../../electron/core/telemetry/nvidiaSmi/computeApps.js';
import { parseNvidiaSmiXml } from '../../../electron/core/telemetry/nvidiaSmi/xml.js';
import { decodeEntities, parseXml, textAt } from '../../../electron/core/telemetry/nvidiaSmi/xmlParser.js';
import { readCapturedFixture, capturedFixture } from '../../helpers/fixtures.js';

const captures = fs.readdirSync(capturedFixture('nvidia-smi')).sort();
const xmlCaptures = captures.filter((f) => f.endsWith('.q.xml'));

type Expect = { driver: string; cuda: string; gpus: number } & {
  gpu0: Partial<Omit<GpuInfo, 'power' | 'pcie'>> & { power?: Partial<GpuInfo['power']>; pcie?: Partial<GpuInfo['pcie']> };
};

/** Per capture: values read off the files. */
const EXPECTED: Record<string, Expect> = {
  'a100-sxm4-80gb-mig.535.54.03.q.xml': {
    driver: '535.54.03',
    cuda: '12.2',
    gpus: 1,
    gpu0: { migMode: true, migDeviceCount: 4, eccMode: true, power: { drawW: 67.03, limitW: 500, minLimitW: 100 }, processes: [] },
  },
  'gtx-1660-ti.418.43.q.xml': {
    driver: '418.43',
    cuda: '10.1',
    gpus: 1,
    gpu0: {
      name: 'Graphics Device',
      supportedClocks: null,
      power: { drawW: 8.93, limitW: 130, requestedLimitW: 130, minLimitW: 70, maxLimitW: 130 },
      throttleReasons: 0x1,
    },
  },
  'quadro-p2000.525.125.06.q.xml': {
    driver: '525.125.06',
    cuda: '12.0',
    gpus: 1,
    gpu0: { persistenceMode: true, pcie: { widthCurrent: 8, widthMax: 16 }, power: { limitW: 75 } },
  },
  'rtx-2070-x2.590.44.01.q.xml': {
    driver: '590.44.01',
    cuda: '13.1',
    gpus: 2,
    gpu0: { power: { drawW: 9.23, averageW: null, instantW: 9.23, limitW: 175, maxLimitW: 200 } },
  },
  'rtx-2080-win.516.59.q.xml': {
    driver: '516.59',
    cuda: '11.7',
    gpus: 1,
    gpu0: { persistenceMode: null, power: { drawW: 14.5, limitW: 275, maxLimitW: 350 } },
  },
  'rtx-3080-win.536.40.q.xml': { driver: '536.40', cuda: '12.2', gpus: 1, gpu0: { power: { drawW: 22.78, limitW: 336, defaultLimitW: 320 } } },
  'rtx-3080.595.58.03.q.xml': {
    driver: '595.58.03',
    cuda: '13.2',
    gpus: 1,
    gpu0: {
      pstate: 2,
      utilization: { gpuPercent: 65, memoryPercent: 9 },
      power: { drawW: 139.62, averageW: 139.62, instantW: 142.33, limitW: 320, maxLimitW: 336 },
      throttleReasons: 0,
    },
  },
  'rtx-3090.525.147.05.q.xml': {
    driver: '525.147.05',
    cuda: '12.0',
    gpus: 1,
    gpu0: { power: { limitW: 200, requestedLimitW: 200, defaultLimitW: 350, maxLimitW: 375 } },
  },
  'rtx-3090.590.44.01.q.xml': { driver: '590.44.01', cuda: '13.1', gpus: 1, gpu0: { throttleReasons: 0x4, power: { maxLimitW: 480 } } },
  'rtx-4090.535.86.05.q.xml': {
    driver: '535.86.05',
    cuda: '12.2',
    gpus: 1,
    gpu0: {
      name: 'NVIDIA GeForce RTX 4090',
      eccMode: false,
      pcie: { genMax: 3, genCurrent: 1, genDeviceMax: 4 },
      power: { drawW: 26.84, limitW: 450, minLimitW: 10, maxLimitW: 600 },
      throttleReasons: 0x1,
    },
  },
  'rtx-a5000-x2.590.44.01.q.xml': {
    driver: '590.44.01',
    cuda: '13.1',
    gpus: 2,
    gpu0: { fanPercent: 30, memory: { totalMiB: 24564, reservedMiB: 450, usedMiB: 22437, freeMiB: 1678 } },
  },
  'tesla-p100-pcie-16gb.510.47.03.q.xml': {
    driver: '510.47.03',
    cuda: '11.6',
    gpus: 1,
    gpu0: {
      fanPercent: null,
      eccMode: true,
      clocks: {
        current: { graphicsMHz: 405, smMHz: 405, memMHz: 715, videoMHz: 835 },
        max: { graphicsMHz: 1328, smMHz: 1328, memMHz: 715, videoMHz: 1328 },
        applications: { graphicsMHz: 1189, memMHz: 715 },
        defaultApplications: { graphicsMHz: 1189, memMHz: 715 },
        maxCustomerBoostMHz: 1328,
      },
    },
  },
  'tesla-t4.515.105.01.q.xml': {
    driver: '515.105.01',
    cuda: '11.7',
    gpus: 1,
    gpu0: {
      processes: [
        expect.objectContaining({ pid: 675, type: 'G' }),
        expect.objectContaining({ pid: 5762, type: 'C', name: 'python', usedMemoryMiB: 1005 }),
      ] as GpuInfo['processes'],
    },
  },
};

function checkCommon(gpu: GpuInfo): void {
  expect(gpu.busId).toMatch(/^[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\.[0-9]$/u);
  expect(gpu.uuid).toMatch(/^GPU-[0-9a-f-]{36}$/u);
  expect(gpu.name).toBeTruthy();
  expect(gpu.memory.totalMiB).toBeGreaterThan(1000);
  expect(gpu.power.drawW).toBeGreaterThan(0);
  expect(gpu.power.limitW).toBeGreaterThan(0);
  expect(gpu.power.minLimitW).toBeLessThanOrEqual(gpu.power.maxLimitW!);
  expect(gpu.clocks.max.smMHz).toBeGreaterThan(500);
  expect(gpu.pcie.widthMax).toBe(16);
  expect(gpu.throttleReasons).not.toBeNull();
  for (const p of gpu.processes) expect(p.pid).toBeGreaterThan(0);
}

describe('-q -x captures', () => {
  it('finds them', () => expect(xmlCaptures.length).toBeGreaterThanOrEqual(13));

  it.each(xmlCaptures)('%s gives a card', (file) => {
    const result = parseNvidiaSmiXml(readCapturedFixture('nvidia-smi', file));
    if (!result.ok) throw new Error(result.error);
    const { card } = result;
    const expected = EXPECTED[file];
    expect(expected, `add ${file} to EXPECTED`).toBeDefined();
    expect(card.driverVersion).toBe(expected!.driver);
    expect(card.cudaVersion).toBe(expected!.cuda);
    expect(card.gpus).toHaveLength(expected!.gpus);
    card.gpus.forEach((gpu, i) => {
      expect(gpu.index).toBe(i);
      checkCommon(gpu);
    });
    expect(card.gpus[0]).toMatchObject(expected!.gpu0);
  });

  it('reads supported clocks, and N/A as none', () => {
    const rtx = parseNvidiaSmiXml(readCapturedFixture('nvidia-smi', 'rtx-4090.535.86.05.q.xml'));
    const gpu = rtx.ok ? rtx.card.gpus[0]! : null;
    expect(gpu!.supportedClocks!.map((m) => m.memMHz)).toEqual([10501, 10251, 5001, 810, 405]);
    expect(gpu!.supportedClocks![0]!.graphicsMHz[0]).toBe(3120);
    expect(supportedGraphicsClocks(gpu!)[0]).toBe(3120);
    expect(supportedGraphicsClocks(gpu!).at(-1)).toBe(210);
  });

  it('reads Windows processes without memory as null', () => {
    const win = parseNvidiaSmiXml(readCapturedFixture('nvidia-smi', 'rtx-2080-win.516.59.q.xml'));
    const processes = win.ok ? win.card.gpus[0]!.processes : [];
    expect(processes).toHaveLength(26);
    expect(processes.every((p) => p.usedMemoryMiB === null)).toBe(true);
    expect(processes[1]!.name).toBeNull(); // <process_name></process_name>
  });

  it('refuses what is not nvidia-smi XML, without throwing', () => {
    expect(parseNvidiaSmiXml('').ok).toBe(false);
    expect(parseNvidiaSmiXml('<html></html>').ok).toBe(false);
    const truncated = readCapturedFixture('nvidia-smi', 'rtx-3080.595.58.03.q.xml').slice(0, 5000);
    expect(parseNvidiaSmiXml(truncated).ok).toBe(false);
    expect(parseNvidiaSmiXml("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.").ok).toBe(false);
  });
});

describe('XML reader', () => {
  it('reads declarations, DOCTYPE with an internal subset, comments, CDATA, entities, attributes', () => {
    const doc = `\ufeff<?xml version="1.0" ?>
<!DOCTYPE nvidia_smi_log [
  <!ELEMENT nvidia_smi_log (timestamp)>
  <!ATTLIST gpu id CDATA #REQUIRED>
]>
<!-- a comment with <tags> inside -->
<nvidia_smi_log>
  <gpu id='00000000:01:00.0' note="a &amp; b">
    <name>R&amp;D &lt;GPU&gt; &#65;&#x42; &bogus; &#xD800;</name>
    <raw><![CDATA[<not a tag> & stays]]></raw>
    <empty/>
    <empty2 />
  </gpu>
</nvidia_smi_log>
<!-- trailing comment -->
`;
    const parsed = parseXml(doc);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const gpu = parsed.root.children[0]!;
    expect(gpu.attributes).toEqual({ id: '00000000:01:00.0', note: 'a & b' });
    expect(textAt(gpu, 'name')).toBe('R&D <GPU> AB &bogus; &#xD800;');
    expect(textAt(gpu, 'raw')).toBe('<not a tag> & stays');
    expect(gpu.children.map((c) => c.name)).toEqual(['name', 'raw', 'empty', 'empty2']);
  });

  it('reports malformed documents as errors', () => {
    for (const bad of [
      '',
      'text only',
      '<a>',
      '<a></b>',
      '<a><b></a',
      '<a x></a>',
      '<a/><b/>',
      '<a><!-- open',
      '<a><![CDATA[ x',
      '<!DOCTYPE x [ <a/>',
      '<a x="1></a>',
    ]) {
      const parsed = parseXml(bad);
      expect(parsed.ok, bad).toBe(false);
    }
    // Lenient: a stray end tag inside is skipped, a missing one closes with its parent.
    expect(parseXml('<a><b></c></b></a>').ok).toBe(true);
    expect(parseXml('<a><b></a>').ok).toBe(true);
  });

  it('decodes entities', () => {
    expect(decodeEntities('&lt;&gt;&amp;&quot;&apos;&#x1F600;')).toBe('<>&"\'😀');
  });

  it('never throws', () => {
    const pieces = fc.constantFrom(
      '<',
      '>',
      '</',
      '/>',
      'a',
      'gpu',
      '=',
      '"',
      "'",
      '&amp;',
      '&',
      '<!--',
      '-->',
      '<![CDATA[',
      ']]>',
      '<!DOCTYPE x',
      '[',
      ']',
      '<?xml ?>',
      ' ',
      '\n',
      'N/A',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 200 }),
          fc.array(pieces, { maxLength: 80 }).map((a) => a.join('')),
        ),
        (text) => {
          const parsed = parseXml(text);
          expect(typeof parsed.ok).toBe('boolean');
          parseNvidiaSmiXml(text);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('never throws on mangled captures', () => {
    const source = readCapturedFixture('nvidia-smi', 'rtx-a5000-x2.590.44.01.q.xml');
    fc.assert(
      fc.property(fc.nat({ max: source.length }), fc.nat({ max: 200 }), fc.string({ maxLength: 20 }), (at, cut, insert) => {
        const mangled = source.slice(0, at) + insert + source.slice(at + cut);
        const result = parseNvidiaSmiXml(mangled);
        if (result.ok) expect(Array.isArray(result.card.gpus)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('--query-compute-apps', () => {
  it('reads pid and used memory, with or without units and header', () => {
    expect(parseComputeApps('5762, 1005\n675, 22\n').apps).toEqual([
      { pid: 5762, usedMemoryMiB: 1005, name: null, gpuUuid: null, gpuBusId: null },
      { pid: 675, usedMemoryMiB: 22, name: null, gpuUuid: null, gpuBusId: null },
    ]);
    const withHeader = parseComputeApps('pid, used_gpu_memory [MiB]\n5762, 1005 MiB\n', ['pid', 'used_memory']);
    expect(withHeader.apps).toEqual([{ pid: 5762, usedMemoryMiB: 1005, name: null, gpuUuid: null, gpuBusId: null }]);
    expect(withHeader.errors).toEqual([]);
  });

  it('reads names with commas and N/A memory', () => {
    const result = parseComputeApps('7724, C:\\Program Files\\a, b.exe, [N/A], GPU-1\n', ['pid', 'process_name', 'used_memory', 'gpu_uuid']);
    expect(result.apps).toEqual([{ pid: 7724, name: 'C:\\Program Files\\a, b.exe', usedMemoryMiB: null, gpuUuid: 'GPU-1', gpuBusId: null }]);
  });

  it('treats an empty answer and "No running processes found" as no apps', () => {
    expect(parseComputeApps('').apps).toEqual([]);
    expect(parseComputeApps('No running processes found\n')).toEqual({ apps: [], errors: [], nvidiaSmi: null });
  });

  it('reports nvidia-smi messages and garbage', () => {
    const result = parseComputeApps("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\nabc, 12\n");
    expect(result.nvidiaSmi?.kind).toBe('no-driver');
    expect(result.errors.map((e) => e.kind)).toEqual(['message', 'garbage']);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(Array.isArray(parseComputeApps(text).apps)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});
