// The exports read as an advisor would: the command, machine and environment they were measured on, step time and
// loss beside throughput, no column that is empty in every row, and a throughput chart on which identical repeats
// are each seen and counted.
import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../../electron/core/compare/compare.js';
import { EXPORTERS, type ExportInput } from '../../../electron/core/export/exporters.js';
import { qualityGate, run as runSchema, type Run, type RunSeries } from '../../../electron/shared/api.js';

const NOW = new Date('2026-11-27T12:00:00.000Z');
const GATE = qualityGate.parse({});

/** A host without a GPU, as `hostFingerprint` records it. */
const HOST_ONLY = {
  hostname: 'lab-box',
  cpuModel: 'AMD Ryzen 9 7950X 16-Core Processor',
  cpuCores: 32,
  kernel: '6.8.0-45-generic',
  memoryGiB: 64,
  pythonVersion: '3.11.9',
  torchVersion: '2.4.1+cpu',
  torchCuda: null,
};
/** What the run session notes of a run on such a host. */
const NO_NVIDIA_SMI = ['info: no nvidia-smi found (no NVIDIA GPU or driver): host telemetry only'];

const GPU_BOX = {
  hostname: 'gpu-box',
  cpuModel: 'Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz',
  cpuCores: 64,
  kernel: '6.8.0-45-generic',
  memoryGiB: 512,
  gpuName: 'NVIDIA H100 80GB HBM3',
  driverVersion: '550.90.07',
  cudaVersion: '12.4',
  pythonVersion: '3.10.14',
  torchVersion: '2.4.1+cu124',
  torchCuda: '12.4',
  cudnn: 90100,
};

interface FakeRun {
  id: number;
  config: Record<string, string>;
  /** Steady median throughput in tokens/s; the step time follows from it and the work per step. */
  throughput: number;
  finalLoss: number;
  fingerprint: Record<string, unknown>;
  gpu?: boolean;
  /** The same stretch medians and loss curve as another run's make an identical copy (one seed run twice). */
  seed?: number;
}

function fakeRun({ id, config, throughput, finalLoss, fingerprint, gpu = false, seed = id }: FakeRun): Run {
  const tokensPerStep = Number(config.batch) * 256;
  return runSchema.parse({
    id,
    workloadId: 1,
    workloadName: 'synthetic',
    status: 'succeeded',
    exitCode: 0,
    signal: null,
    exitClass: 'ok',
    exitReason: null,
    startedAt: new Date(Date.UTC(2026, 10, 27, 10, 0, id)).toISOString(),
    endedAt: new Date(Date.UTC(2026, 10, 27, 10, 1, id)).toISOString(),
    command: ['python', 'train.py', '--batch_size', config.batch!],
    cwd: '/home/me/proj',
    config,
    env: {},
    pid: null,
    outputBytes: 0,
    summary: {
      steps: 200,
      steadySteps: 190,
      warmup: { rule: 'auto', stable: true, steps: 10, seconds: 0.4 },
      throughput: {
        median: throughput,
        iqr: throughput * 0.01,
        unit: 'tokens/s',
        blocks: Array.from({ length: 10 }, (_, i) => throughput + ((seed * 7 + i) % 5)),
      },
      stepTimeMs: { median: (tokensPerStep / throughput) * 1000 },
      finalLoss,
      nanDetected: false,
      gpu: gpu ? { utilMean: 91, vramPeakMiB: 20_480, powerMeanW: 610, energyJ: null, throttledSeconds: 0 } : null,
      host: null,
      tokensPerStep,
      lossCurve: [
        [100, finalLoss + 0.5 + seed * 0.001],
        [200, finalLoss],
      ],
    },
    gpuSettings: gpu ? { persistenceMode: true, powerLimitW: 700, clockLock: { minMHz: 1980, maxMHz: 1980 }, memoryClockLock: null, setBy: 'sweep' } : null,
    fingerprint,
    telemetryNotes: gpu ? [] : NO_NVIDIA_SMI,
  });
}

function exportInput(runs: Run[], series: RunSeries[] = []): ExportInput {
  const comparison = compareRuns(runs, { groupBy: 'config', gate: GATE, now: NOW, commands: ['python train.py --batch_size {batch}'] });
  return { comparison, runs: new Map(runs.map((r) => [r.id, r])), series, title: 'Batch on the lab box' };
}

/** A Markdown table's header cells and its body rows' cells. */
function markdownTable(markdown: string): { header: string[]; rows: string[][] } {
  // Table lines, less the alignment rule under the header.
  const lines = markdown.split('\n').filter((l) => l.startsWith('| ') && !/^\|[\s:|-]+\|$/u.test(l));
  const cells = (line: string) =>
    line
      .split(/(?<!\\)\|/u)
      .slice(1, -1)
      .map((c) => c.trim());
  return { header: cells(lines[0]!), rows: lines.slice(1).map(cells) };
}

/** Every `<th>` title of the HTML table with this test id (every table's, without one), in order. */
function htmlHeader(html: string, testId?: string): string[] {
  const tables = [...html.matchAll(/<table data-testid="([^"]+)"[^>]*>([\s\S]*?)<\/table>/gu)].filter((m) => testId === undefined || m[1] === testId);
  // A title's first line: under it may be its unit or `95 % CI`.
  return tables.flatMap((m) => [...m[2]!.matchAll(/<th[^>]*>([\s\S]*?)<\/th>/gu)].map((th) => th[1]!.split('<br>')[0]!.replace(/<[^>]+>/gu, '')));
}

// Two configs on a box with no GPU, each run twice with one seed: identical repeats.
const hostOnlyRuns = () => [
  fakeRun({ id: 1, config: { batch: '8' }, throughput: 170_000, finalLoss: 2.81, fingerprint: HOST_ONLY, seed: 1 }),
  fakeRun({ id: 2, config: { batch: '8' }, throughput: 170_000, finalLoss: 2.81, fingerprint: HOST_ONLY, seed: 1 }),
  fakeRun({ id: 3, config: { batch: '16' }, throughput: 185_000, finalLoss: 2.07, fingerprint: HOST_ONLY, seed: 3 }),
  fakeRun({ id: 4, config: { batch: '16' }, throughput: 185_000, finalLoss: 2.07, fingerprint: HOST_ONLY, seed: 3 }),
];

describe('the Markdown export, read as an advisor would', () => {
  it('says the command, the machine and the software the runs were measured with', () => {
    const markdown = EXPORTERS.md.render(
      exportInput([
        fakeRun({ id: 1, config: { batch: '8' }, throughput: 100_000, finalLoss: 2, fingerprint: GPU_BOX, gpu: true }),
        fakeRun({ id: 2, config: { batch: '16' }, throughput: 120_000, finalLoss: 2, fingerprint: GPU_BOX, gpu: true }),
      ]),
    );
    expect(markdown).toContain('Command: python train.py --batch_size {batch}');
    const machine = markdown.split('\n').find((l) => l.startsWith('Machine: '))!;
    for (const fact of [
      'Host gpu-box',
      'GPU NVIDIA H100 80GB HBM3',
      'Driver 550.90.07',
      'CUDA 12.4',
      'CPU Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz, 64 threads',
      'Memory 512 GiB',
      'Kernel 6.8.0-45-generic',
    ]) {
      expect(machine).toContain(fact);
    }
    const settings = markdown.split('\n').find((l) => l.startsWith('GPU settings: '))!;
    expect(settings).toMatch(/Persistence on/u);
    expect(settings).toMatch(/Power limit 700 W/u);
    expect(settings).toMatch(/Clock lock 1,980 MHz · Memory clock lock none/u);
    const software = markdown.split('\n').find((l) => l.startsWith('Software: '))!;
    for (const fact of ['Python 3.10.14', 'PyTorch 2.4.1+cu124', 'PyTorch CUDA 12.4', 'cuDNN 90100']) expect(software).toContain(fact);
  });

  it('says plainly that a box had no GPU, and names each value where runs differ, with its runs', () => {
    const runs = hostOnlyRuns();
    runs[3] = fakeRun({
      id: 4,
      config: { batch: '16' },
      throughput: 185_000,
      finalLoss: 2.07,
      fingerprint: { ...HOST_ONLY, torchVersion: '2.5.0+cpu' },
      seed: 3,
    });
    const markdown = EXPORTERS.md.render(exportInput(runs));
    const machine = markdown.split('\n').find((l) => l.startsWith('Machine: '))!;
    expect(machine).toMatch(/GPU none \(no nvidia-smi: host telemetry only\)/u);
    expect(machine).not.toMatch(/Driver/u);
    const software = markdown.split('\n').find((l) => l.startsWith('Software: '))!;
    expect(software).toContain('PyTorch 2.4.1+cpu (runs 1-3), 2.5.0+cpu (run 4)');
    expect(markdown).not.toMatch(/^GPU settings:/mu);
  });

  it('has step time with its unit and the final loss beside throughput', () => {
    const { header, rows } = markdownTable(EXPORTERS.md.render(exportInput(hostOnlyRuns())));
    const at = (name: string) => header.indexOf(name);
    expect(header.slice(at('Tokens/s'), at('Tokens/s') + 3)).toEqual(['Tokens/s', 'Step time', 'Final loss']);
    // 8 × 256 tokens at 170,000 tokens/s: 12.05 ms a step; the final loss is the runs' median.
    expect(rows[0]![at('Step time')]).toBe('12.05 ms');
    expect(rows[0]![at('Final loss')]).toBe('2.810');
    expect(rows[1]![at('Step time')]).toBe('22.14 ms');
    expect(rows[1]![at('Final loss')]).toBe('2.070');
    // Each run is listed, a copy of another named as one.
    expect(rows[0]![at('Runs (steady steps, warm-up, left out)')]).toBe('#1 190 steps warm-up 10; #2 190 steps warm-up 10 (identical to #1)');
  });

  it('drops columns no row has a figure for, and keeps them where any row has one', () => {
    const hostOnly = markdownTable(EXPORTERS.md.render(exportInput(hostOnlyRuns())));
    for (const empty of ['VRAM', 'GPU util', 'Power', 'Fairness', 'Eval loss']) expect(hostOnly.header).not.toContain(empty);
    expect(hostOnly.header).toEqual(expect.arrayContaining(['Config', 'Batch', 'Tokens/s', 'Speedup (95 % CI)', 'Verdict', 'n', 'Gate']));
    // Every row keeps as many cells as the header.
    for (const row of hostOnly.rows) expect(row).toHaveLength(hostOnly.header.length);

    const runs = hostOnlyRuns();
    runs[2] = fakeRun({ id: 3, config: { batch: '16' }, throughput: 185_000, finalLoss: 2.07, fingerprint: GPU_BOX, gpu: true, seed: 3 });
    const mixed = markdownTable(EXPORTERS.md.render(exportInput(runs)));
    expect(mixed.header).toContain('VRAM');
    expect(mixed.rows[0]![mixed.header.indexOf('VRAM')]).toBe('');
    expect(mixed.rows[1]![mixed.header.indexOf('VRAM')]).toBe('20,480 MiB');
  });

  it('keeps a stable CSV schema: every column, empty or not', () => {
    const csv = EXPORTERS.csv.render(exportInput(hostOnlyRuns()));
    const header = csv.split('\r\n')[0]!.split(',');
    expect(header).toEqual(expect.arrayContaining(['step_time_ms', 'final_loss', 'vram_peak_mib', 'gpu_util_mean', 'power_mean_w', 'energy_per_1k_tokens_j']));
  });
});

describe('the HTML report, read as an advisor would', () => {
  const series = (runs: Run[]): RunSeries[] =>
    runs.map((r) => ({
      runId: r.id,
      label: `#${r.id} batch=${r.config.batch}`,
      metrics: {
        tokens_per_sec: [
          [10, r.summary.throughput.median! / 2],
          [20, r.summary.throughput.median!],
          [30, r.summary.throughput.median!],
        ],
        loss: r.summary.lossCurve.map(([s, l]) => [s, l] as [number, number]),
      },
      telemetry: {},
    }));

  it('carries the same environment lines and the step time and loss columns, without the empty GPU columns', () => {
    const html = EXPORTERS.html.render(exportInput(hostOnlyRuns()));
    expect(html).toMatch(/Machine: Host lab-box · GPU none/u);
    expect(html).toMatch(/Software: [^<]*Python 3\.11\.9/u);
    expect(htmlHeader(html, 'comparison-table')).toEqual(expect.arrayContaining(['Tokens/s', 'Step time', 'Final loss']));
    const header = htmlHeader(html);
    for (const empty of ['VRAM', 'GPU util', 'Power', 'Energy', 'Fairness', 'Eval loss']) expect(header).not.toContain(empty);
    // A row's notes are sentences under the table, not a column that makes every row tall.
    expect(html).toMatch(/<li><strong>batch=8<\/strong>: repeats identical \(same seed\?\)/u);
  });

  it("puts a GPU's columns in a table of their own beside the speed table, so six varied variables still fit the window", () => {
    const runs = [
      fakeRun({ id: 1, config: { batch: '8' }, throughput: 100_000, finalLoss: 2, fingerprint: GPU_BOX, gpu: true }),
      fakeRun({ id: 2, config: { batch: '16' }, throughput: 120_000, finalLoss: 2, fingerprint: GPU_BOX, gpu: true }),
    ];
    const html = EXPORTERS.html.render(exportInput(runs));
    expect(htmlHeader(html, 'comparison-table')).not.toContain('VRAM');
    expect(htmlHeader(html, 'resources-table')).toEqual(['Config', 'VRAM', 'GPU util', 'Power', 'Energy']);
    // Without a GPU, and with every run fair, there is nothing for such a table.
    const hostOnly = EXPORTERS.html.render(exportInput(hostOnlyRuns()));
    expect(htmlHeader(hostOnly, 'resources-table')).toEqual([]);
    expect(htmlHeader(hostOnly, 'comparison-table')).toContain('Work / step');
  });

  it('lets long names break after `_`, `=` and `/` rather than widen the table, and keeps short values whole', () => {
    const runs = [
      fakeRun({ id: 1, config: { batch: '8', gradient_accumulation_steps: '1' }, throughput: 100_000, finalLoss: 2, fingerprint: HOST_ONLY }),
      fakeRun({ id: 2, config: { batch: '16', gradient_accumulation_steps: '4' }, throughput: 120_000, finalLoss: 2, fingerprint: HOST_ONLY }),
    ];
    const html = EXPORTERS.html.render(exportInput(runs));
    expect(html).toContain('gradient_<wbr>accumulation_<wbr>steps=<wbr>4');
    expect(html).toContain('<td class="whole">16</td>');
    // A figure's thousands separator is no place to break.
    expect(html).not.toMatch(/\d,<wbr>/u);
  });

  it('draws a throughput chart from the data: one mark per run, identical repeats stacked apart and counted', () => {
    const runs = hostOnlyRuns();
    const html = EXPORTERS.html.render(exportInput(runs, series(runs)));
    const chart = /<svg[^>]*data-chart="throughput"[\s\S]*?<\/svg>/u.exec(html)?.[0];
    expect(chart).toBeDefined();
    // Self-contained: no script, no link to anything outside.
    expect(html).not.toMatch(/<script|<link|src="http|href="http/u);
    const marks = [...chart!.matchAll(/<circle[^>]*data-run="(\d+)"[^>]*cx="([\d.]+)" cy="([\d.]+)"/gu)].map((m) => ({
      run: Number(m[1]),
      x: Number(m[2]),
      y: Number(m[3]),
    }));
    expect(marks.map((m) => m.run).sort()).toEqual([1, 2, 3, 4]);
    // Runs 1 and 2 have one value: the same x, not the same place.
    const [one, two] = [marks.find((m) => m.run === 1)!, marks.find((m) => m.run === 2)!];
    expect(one.x).toBe(two.x);
    expect(Math.abs(one.y - two.y)).toBeGreaterThanOrEqual(6);
    // The chart says so beside them, and its legend says how identical values are drawn.
    expect(chart).toMatch(/data-identical="2"[^>]*>2 identical</u);
    expect(chart).toMatch(/stacked/u);
  });

  it('draws identical repeats once in the step charts, and its legend names every run it stands for', () => {
    const runs = hostOnlyRuns();
    const html = EXPORTERS.html.render(exportInput(runs, series(runs)));
    const chart = /<svg[^>]*aria-label="Tokens\/s by step"[\s\S]*?<\/svg>/u.exec(html)?.[0];
    expect(chart).toBeDefined();
    expect([...chart!.matchAll(/<path /gu)]).toHaveLength(2);
    expect(chart).toMatch(/#1 batch=8 = #2 \(identical\)/u);
    expect(chart).toMatch(/#3 batch=16 = #4 \(identical\)/u);
  });

  it('lists each run in a table of its own, so the wide per-run detail leaves the comparison narrow', () => {
    const html = EXPORTERS.html.render(exportInput(hostOnlyRuns()));
    expect(htmlHeader(html, 'comparison-table')).not.toContain('Runs (steady steps, warm-up, left out)');
    const perRun = htmlHeader(html, 'runs-table');
    expect(perRun).toEqual(expect.arrayContaining(['Run', 'Config', 'Tokens/s', 'Step time', 'Final loss', 'Steady steps', 'Warm-up']));
  });
});
