// The seed plan's matrix (baseline, +batch, +workers, +AMP, +compile) from a synthetic sweep, as a
// Markdown table whose speedups match the workload's formula; and compare from the CLI.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qualityGate, sweepRequest } from '../../electron/shared/api.js';
import { runCli } from '../helpers/cli.js';
import { tempCore, type TempCore } from '../helpers/tempCore.js';

/** resources/workloads/synthetic/train.js's formula, in tokens/s. */
function expectedThroughput(batch: number, workers: number, amp: boolean, compile: boolean): number {
  const compute = (2 + 0.75 * batch) * (amp ? 0.55 : 1) * (compile ? 0.7 : 1);
  const stepMs = workers === 0 ? compute + 0.5 * batch : Math.max(compute, (0.5 * batch) / workers) + 0.2;
  return (batch * 256) / (stepMs / 1000);
}

let temp: TempCore;
let sweepId: number;

beforeAll(async () => {
  temp = tempCore({ env: { ...process.env, TUNING_BENCH_NVIDIA_SMI: '/nonexistent/nvidia-smi' } });
  const core = temp.core;
  const synthetic = core.store.workloads.getByName('synthetic')!;
  const started = await core.sweeps.start(
    sweepRequest.parse({
      workloadId: synthetic.id,
      values: { steps: '100' },
      vary: [
        { name: 'batch', values: ['8', '16'] },
        { name: 'workers', values: ['0', '4'] },
        { name: 'amp', values: ['off', 'on'] },
        { name: 'compile', values: ['off', 'on'] },
      ],
      plan: 'ladder',
      repeats: 2,
      waitForIdle: false,
    }),
  );
  sweepId = (await core.sweeps.waitForEnd(started.id)).id;
}, 120_000);

afterAll(async () => {
  await temp.cleanup();
});

describe('the seed plan as a Markdown table', () => {
  it("has the shape to paste into an issue, and speedups that match the workload's formula", () => {
    const { content, filename } = temp.core.compare.export(
      { runIds: [], sweepIds: [sweepId], groupBy: 'config', gate: qualityGate.parse({}), minEffect: 0.02 },
      'md',
    );
    expect(filename).toMatch(/^tuning-bench-comparison-.*\.md$/u);
    const lines = content.split('\n');
    const cells = (line: string) =>
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
    const header = cells(lines.find((l) => l.startsWith('| Config'))!);
    // No GPU here: no VRAM, utilisation or power column; step time and loss beside throughput.
    expect(header.slice(0, 13)).toEqual([
      'Config',
      'Batch',
      'Workers',
      'AMP',
      'Compile',
      'Tokens/s',
      'Step time',
      'Final loss',
      'Eval loss',
      'Speedup (95 % CI)',
      'Verdict',
      'n',
      'Runs (steady steps, warm-up, left out)',
    ]);
    expect(header).not.toContain('VRAM');
    expect(header).not.toContain('Power');
    expect(content).toMatch(/^Machine: Host .* · GPU none \(no nvidia-smi: host telemetry only\) · CPU /mu);
    const rows = lines.filter((l) => /^\| [+b]/u.test(l) && !l.startsWith('| Config')).map(cells);
    expect(rows.map((r) => r[0]!.replace(' ★', ''))).toEqual(['baseline', '+batch=16', '+workers=4', '+amp=on', '+compile=on']);
    const base = expectedThroughput(8, 0, false, false);
    for (const row of rows) {
      const [, batch, workers, amp, compile, , stepTime, , , speedup, verdict] = row;
      // The row's step time is the workload's formula's, within the noise of its timing.
      const tokens = Number(batch) * 256;
      const expectedMs = (tokens / expectedThroughput(Number(batch), Number(workers), amp === 'on', compile === 'on')) * 1000;
      expect(Math.abs(Number(/^([\d.]+) ms$/u.exec(stepTime!)?.[1]) / expectedMs - 1)).toBeLessThan(0.05);
      const expected = expectedThroughput(Number(batch), Number(workers), amp === 'on', compile === 'on') / base;
      // `1.09x (1.08-1.1)`: the ratio, then its interval.
      const measured = Number(/^([\d.]+)x/u.exec(speedup!)?.[1]);
      expect(Math.abs(measured / expected - 1)).toBeLessThan(0.05);
      if (row[0] !== 'baseline') expect(verdict).toBe('faster');
      if (row[0] !== 'baseline') expect(speedup).toMatch(/^[\d.]+x \([\d.]+-[\d.]+\)$/u);
    }
  });

  it('renders every format from the CLI, and refuses an unknown id clearly', () => {
    for (const format of ['md', 'csv', 'json', 'html']) {
      const out = path.join(temp.dir, `report.${format}`);
      const result = runCli(['--db', temp.dbPath, 'compare', `s${sweepId}`, '--format', format, '-o', out]);
      expect(result.status, result.stderr).toBe(0);
      expect(fs.statSync(out).size).toBeGreaterThan(200);
    }
    const json = JSON.parse(fs.readFileSync(path.join(temp.dir, 'report.json'), 'utf8'));
    expect(json.configs[4]).toMatchObject({ name: '+compile=on', config: { compile: 'on' }, vs_baseline: { verdict: 'faster' } });
    expect(json.configs[4].vs_baseline.speedup).toBeGreaterThan(4);
    expect(fs.readFileSync(path.join(temp.dir, 'report.html'), 'utf8')).toMatch(/<svg[^>]*aria-label="Tokens\/s by step"|<svg/u);

    // The gate from the command line: another metric and direction, a relative tolerance only, or none at all.
    const gated = runCli([
      '--db',
      temp.dbPath,
      'compare',
      `s${sweepId}`,
      '--format',
      'json',
      '--gate-metric',
      'loss',
      '--gate-direction',
      'higher',
      '--no-gate-abs',
      '--gate-rel',
      '0.01',
    ]);
    expect(gated.status, gated.stderr).toBe(0);
    expect(JSON.parse(gated.stdout).gate).toEqual({ metric: 'loss', direction: 'higher', absolute: null, relative: 0.01, enabled: true });
    const ungated = JSON.parse(runCli(['--db', temp.dbPath, 'compare', `s${sweepId}`, '--format', 'json', '--no-gate']).stdout);
    expect(ungated.gateText).toBe('no quality gate');
    expect(ungated.configs.map((c: { vs_baseline: { quality_gate: string } }) => c.vs_baseline.quality_gate)).toEqual(
      Array(ungated.configs.length).fill('n/a'),
    );

    const bad = runCli(['--db', temp.dbPath, 'compare', 'x1']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/neither a run id/u);
    const missing = runCli(['--db', temp.dbPath, 'compare', '999']);
    // A run or sweep that is not there is what the person gave, wrong: 2, from compare as from show.
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/no run 999/u);
  }, 60_000);

  it('compares runs one by one too, with a chosen baseline', () => {
    const runs = temp.core.store.runs.forSweep(sweepId).filter((r) => r.configIndex === 0);
    const comparison = temp.core.compare.compare({
      runIds: [runs[0]!.id, runs[1]!.id],
      sweepIds: [],
      groupBy: 'run',
      gate: qualityGate.parse({}),
      minEffect: 0.02,
    });
    // Two repeats of the baseline config: the same thing measured twice.
    expect(comparison.rows).toHaveLength(2);
    expect(comparison.rows[1]!.speedup.ratio!).toBeGreaterThan(0.97);
    expect(comparison.rows[1]!.speedup.ratio!).toBeLessThan(1.03);
  });
});
