// Comparisons and their exports: golden files for each format, verdicts against the baseline, the quality
// gate, flags for differing conditions, and decimation.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../electron/core/compare/random.js';
import { compareRuns } from '../../../electron/core/compare/compare.js';
import { decimate } from '../../../electron/core/ingest/series.js';
import { EXPORTERS } from '../../../electron/core/export/exporters.js';
import { qualityGate, run as runSchema, type Run, type RunSeries } from '../../../electron/shared/api.js';
import { REPO_ROOT } from '../../helpers/tempCore.js';

const GOLDEN = path.join(REPO_ROOT, 'test/fixtures/golden');
const NOW = new Date('2026-11-21T12:00:00.000Z');
const GATE = qualityGate.parse({});

/** Twenty stretch medians around `throughput`, with ±1 % noise. */
function blocks(throughput: number, seed: number): number[] {
  const next = seededRandom(seed);
  return Array.from({ length: 20 }, () => Math.round(throughput * (1 + (next() - 0.5) * 0.02)));
}

let nextId = 1;
function fakeRun(
  config: Record<string, string>,
  throughput: number,
  finalLoss: number,
  extra: { seed?: number; sweepConfig?: number; repeat?: number; clockLock?: unknown; exitClass?: string; nan?: boolean } = {},
): Run {
  const id = nextId++;
  const tokensPerStep = Number(config.batch) * 256;
  return runSchema.parse({
    id,
    workloadId: 1,
    workloadName: 'synthetic',
    status: extra.exitClass && extra.exitClass !== 'ok' ? 'failed' : 'succeeded',
    exitCode: 0,
    signal: null,
    exitClass: extra.exitClass ?? 'ok',
    exitReason: null,
    startedAt: new Date(Date.UTC(2026, 10, 21, 10, 0, id)).toISOString(),
    endedAt: new Date(Date.UTC(2026, 10, 21, 10, 1, id)).toISOString(),
    command: ['node', 'train.js'],
    cwd: '/tmp',
    config,
    env: {},
    pid: null,
    outputBytes: 0,
    summary: {
      steps: 200,
      throughput: { median: throughput, iqr: throughput * 0.01, unit: 'tokens/s', blocks: blocks(throughput, extra.seed ?? id) },
      stepTimeMs: { median: (tokensPerStep / throughput) * 1000 },
      finalLoss,
      nanDetected: extra.nan ?? false,
      gpu: { utilMean: 90, vramPeakMiB: 500 + Number(config.batch) * 180, powerMeanW: 300, energyJ: null, throttledSeconds: 0 },
      host: null,
      tokensPerStep,
      lossCurve: [
        [50, finalLoss + 1],
        [100, finalLoss + 0.5],
        [200, finalLoss],
      ],
    },
    gpuSettings: {
      persistenceMode: true,
      powerLimitW: 450,
      clockLock: extra.clockLock !== undefined ? extra.clockLock : { minMHz: 2400, maxMHz: 2400 },
      memoryClockLock: null,
      setBy: 'sweep',
    },
    fingerprint: { gpuName: 'NVIDIA GeForce RTX 4090', driverVersion: '595.71.05' },
    sweepId: extra.sweepConfig === undefined ? null : 1,
    configIndex: extra.sweepConfig ?? null,
    repeatIndex: extra.repeat ?? null,
  });
}

function seedMatrix(): Run[] {
  nextId = 1;
  const configs = [
    { batch: '8', workers: '0', amp: 'off', compile: 'off' },
    { batch: '16', workers: '0', amp: 'off', compile: 'off' },
    { batch: '16', workers: '4', amp: 'off', compile: 'off' },
    { batch: '16', workers: '4', amp: 'on', compile: 'off' },
    { batch: '16', workers: '4', amp: 'on', compile: 'on' },
  ];
  const throughput = [170_667, 186_182, 288_451, 518_481, 732_700];
  const loss = [1.85, 1.35, 1.35, 1.36, 1.62];
  const runs: Run[] = [];
  // Repeats differ a little, as real ones do (a few tenths of a per cent), so each row has a run-to-run spread.
  for (let repeat = 0; repeat < 2; repeat++) {
    configs.forEach((config, i) => {
      const spread = 1 + (repeat === 0 ? -1 : 1) * 0.002 * (1 + i);
      runs.push(
        fakeRun(config, Math.round(throughput[i]! * spread), loss[i]!, { sweepConfig: i, repeat, clockLock: i === 2 && repeat === 1 ? null : undefined }),
      );
    });
  }
  return runs;
}

const NAMES = new Map(['baseline', '+batch=16', '+workers=4', '+amp=on', '+compile=on'].map((name, i) => [`1:${i}`, name]));

describe('compareRuns', () => {
  const comparison = compareRuns(seedMatrix(), { groupBy: 'config', gate: GATE, now: NOW }, NAMES);

  it('pools repeats into one row per config, with only the varied variables as columns', () => {
    expect(comparison.columns).toEqual(['batch', 'workers', 'amp', 'compile']);
    expect(comparison.rows.map((r) => [r.name, r.runIds])).toEqual([
      ['baseline', [1, 6]],
      ['+batch=16', [2, 7]],
      ['+workers=4', [3, 8]],
      ['+amp=on', [4, 9]],
      ['+compile=on', [5, 10]],
    ]);
  });

  it('gives speedups with intervals and verdicts against the baseline', () => {
    expect(comparison.rows[0]!.speedup.verdict).toBe('baseline');
    for (const row of comparison.rows.slice(1)) {
      expect(row.speedup.verdict).toBe('faster');
      expect(row.speedup.ci95!.low).toBeLessThan(row.speedup.ratio!);
      expect(row.speedup.ci95!.high).toBeGreaterThan(row.speedup.ratio!);
    }
    expect(comparison.rows[4]!.speedup.ratio).toBeCloseTo(732_700 / 170_667, 2);
  });

  it('gates loss at a matched token count, flags speed bought with quality, and picks the best that passes', () => {
    // Batch 16 sees twice the tokens per step: at the baseline's last token count it is at step 100.
    expect(comparison.rows[1]!.matchedLoss).toMatchObject({ by: 'tokens', at: 200 * 8 * 256 });
    const compile = comparison.rows[4]!;
    expect(compile.gate).toBe('fail');
    expect(compile.fasterButWorse).toBe(true);
    expect(comparison.rows.find((r) => r.best)!.name).toBe('+amp=on');
  });

  it('flags rows whose GPU settings differ, within repeats too', () => {
    expect(comparison.rows[2]!.differences).toEqual(expect.arrayContaining(['GPU clock lock: none vs 2400 MHz']));
    expect(comparison.rows[1]!.differences).toEqual([]);
    expect(comparison.notes[0]).toMatch(/different GPU settings/u);
  });

  it('fails the gate on NaN and keeps failed runs out of the speed figures', () => {
    nextId = 100;
    const runs = [
      fakeRun({ batch: '8' }, 1000, 2),
      fakeRun({ batch: '16' }, 1500, 2, { nan: true }),
      fakeRun({ batch: '32' }, 9999, 2, { exitClass: 'cuda_oom' }),
    ];
    const result = compareRuns(runs, { groupBy: 'config', gate: GATE, now: NOW });
    expect(result.rows[1]!.gate).toBe('fail');
    expect(result.rows[1]!.gateReason).toMatch(/NaN/u);
    expect(result.rows[2]!.throughput.median).toBeNull();
    expect(result.rows[2]!.exitClasses).toEqual(['cuda_oom']);
    expect(result.rows.find((r) => r.best)!.name).toBe('batch=8');
  });

  it('names no unit where no run measured a throughput (the log gave no timing): none to pick among', () => {
    nextId = 200;
    const untimed = (config: Record<string, string>) => {
      const run = fakeRun(config, 1000, 2);
      return { ...run, summary: { ...run.summary, throughput: { ...run.summary.throughput, median: null, unit: null } } };
    };
    const result = compareRuns([untimed({ batch: '8', workers: '0' }), untimed({ batch: '8', workers: '4' })], { groupBy: 'config', gate: GATE, now: NOW });
    expect(result.rows.map((row) => [row.throughput.median, row.throughput.unit])).toEqual([
      [null, null],
      [null, null],
    ]);
  });

  it('takes another baseline when asked', () => {
    const result = compareRuns(seedMatrix(), { groupBy: 'config', gate: GATE, now: NOW, baselineRunId: 3 }, NAMES);
    expect(result.rows[2]!.isBaseline).toBe(true);
    expect(result.rows[0]!.speedup.verdict).toBe('slower');
  });
});

describe('exports match their golden files', () => {
  const runs = seedMatrix();
  const comparison = compareRuns(runs, { groupBy: 'config', gate: GATE, now: NOW }, NAMES);
  const series: RunSeries[] = runs.slice(0, 2).map((r) => ({
    runId: r.id,
    label: `#${r.id} batch=${r.config.batch}`,
    metrics: { loss: r.summary.lossCurve.map(([s, l]) => [s, l] as [number, number]) },
    telemetry: {
      powerW: [
        [0, 100],
        [1, 300],
        [2, 310],
      ],
    },
  }));
  const input = { comparison, runs: new Map(runs.map((r) => [r.id, r])), series, title: 'Seed plan on the synthetic workload' };

  for (const format of ['md', 'csv', 'json', 'html'] as const) {
    it(format, () => {
      const content = EXPORTERS[format].render(input);
      const file = path.join(GOLDEN, `comparison.${format}`);
      if (process.env.UPDATE_GOLDEN === '1') fs.writeFileSync(file, content);
      expect(content).toBe(fs.readFileSync(file, 'utf8'));
    });
  }

  it('writes RFC 4180 CSV: CRLF, and quotes around commas and quotes', () => {
    const odd = { ...comparison, rows: comparison.rows.map((row, i) => (i === 1 ? { ...row, name: 'lr=3e-4, "warm"' } : row)) };
    const csv = EXPORTERS.csv.render({ ...input, comparison: odd });
    expect(csv.split('\r\n')).toHaveLength(comparison.rows.length + 2);
    expect(csv).toContain('\r\n"lr=3e-4, ""warm""",16,');
  });
});

describe('decimate', () => {
  it('keeps at most the limit, the ends, and every bucket’s extremes', () => {
    const points = Array.from({ length: 10_000 }, (_, i) => [i, Math.sin(i / 50)] as [number, number]);
    points[5000] = [5000, 99];
    const out = decimate(points, 1000);
    expect(out.length).toBeLessThanOrEqual(1000);
    expect(out[0]).toEqual([0, 0]);
    expect(out.at(-1)).toEqual(points.at(-1));
    expect(out).toContainEqual([5000, 99]);
    expect(out.every((p, i) => i === 0 || p[0] > out[i - 1]![0])).toBe(true);
  });
});
