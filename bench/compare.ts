// The compare view's benchmark: ten one-hour runs (4 Hz telemetry, 100k metric points each). The
// engine's part (comparison with its bootstraps, and the stored chart series) is timed here; the whole
// view in Chromium (query, decimation, first render) by test/e2e/compareBench.spec.ts, run from here.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCore } from '../electron/core/createCore.js';
import { qualityGate } from '../electron/shared/api.js';
import { seedCompareBench } from '../test/e2e/seedCompareBench.js';
import { median, type BenchRow } from './stats.js';

const REPO = path.resolve(import.meta.dirname, '..');
const TARGET_MS = 500;
const ROUNDS = 5;

export async function compareBenchmark(): Promise<BenchRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-bench-compare-'));
  const db = path.join(dir, 'runs.db');
  const seedStart = performance.now();
  const runIds = await seedCompareBench(db, 10);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  const core = createCore({
    face: 'headless',
    dbPath: db,
    resourcesDir: path.join(REPO, 'resources'),
    env: { ...process.env, TUNING_BENCH_NVIDIA_SMI: '/nonexistent' },
  });
  const compareMs: number[] = [];
  const seriesMs: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      let t = performance.now();
      core.compare.compare({ runIds, sweepIds: [], groupBy: 'run', gate: qualityGate.parse({}) });
      compareMs.push(performance.now() - t);
      t = performance.now();
      core.compare.series(runIds);
      seriesMs.push(performance.now() - t);
    }
  } finally {
    await core.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const rows: BenchRow[] = [
    { benchmark: 'compare', metric: 'seed 10 one-hour runs (1M metric points, 144k GPU samples)', value: seedSeconds, unit: 's' },
    { benchmark: 'compare', metric: 'engine: comparison of 10 runs (median of 5)', value: median(compareMs), unit: 'ms' },
    { benchmark: 'compare', metric: 'engine: chart series of 10 runs (median of 5)', value: median(seriesMs), unit: 'ms' },
  ];

  // The view in Chromium, where Chromium is installed (as in CI).
  if (fs.existsSync('/usr/bin/chromium')) {
    const result = spawnSync('npx', ['playwright', 'test', '-c', 'playwright.ondemand.config.ts', '--project=bench', '--reporter=line'], {
      cwd: REPO,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const file = path.join(REPO, 'test-results', 'compare-bench.json');
    if (result.status === 0 && fs.existsSync(file)) {
      const figures = JSON.parse(fs.readFileSync(file, 'utf8')) as { inAppMedianMs?: number; coldLoadMedianMs?: number };
      if (typeof figures.inAppMedianMs === 'number') {
        rows.push({
          benchmark: 'compare',
          metric: 'view opens in Chromium, app open: query, decimation, first render (median of 3)',
          value: figures.inAppMedianMs,
          unit: 'ms',
          target: `< ${TARGET_MS} ms`,
          pass: figures.inAppMedianMs < TARGET_MS,
        });
      }
      if (typeof figures.coldLoadMedianMs === 'number') {
        rows.push({
          benchmark: 'compare',
          metric: 'the same from a fresh page load (median of 3)',
          value: figures.coldLoadMedianMs,
          unit: 'ms',
          target: `< ${TARGET_MS} ms`,
          pass: figures.coldLoadMedianMs < TARGET_MS,
        });
      }
    } else {
      process.stderr.write(`compare view benchmark did not run:\n${result.stdout.slice(-2000)}${result.stderr.slice(-2000)}\n`);
    }
  }
  return rows;
}
