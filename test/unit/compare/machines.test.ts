// Runs from two machines are never pooled into one verdict: compare keeps them in rows of their own, flags the
// machine, and gives a speedup across machines only when asked.
import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../../electron/core/compare/compare.js';
import { qualityGate, run as runSchema, type Run } from '../../../electron/shared/api.js';

const NOW = new Date('2026-11-21T12:00:00.000Z');
const GATE = qualityGate.parse({});

let nextId = 1;
function run(throughput: number, machine: string | null, config: Record<string, string> = { batch: '8' }): Run {
  const id = nextId++;
  return runSchema.parse({
    id,
    workloadId: 1,
    workloadName: 'synthetic',
    status: 'succeeded',
    exitCode: 0,
    signal: null,
    exitClass: 'ok',
    exitReason: null,
    startedAt: '2026-11-21T10:00:00.000Z',
    endedAt: '2026-11-21T10:01:00.000Z',
    command: ['node', 'train.js'],
    cwd: '/tmp',
    config,
    env: {},
    pid: null,
    outputBytes: 0,
    summary: {
      steps: 200,
      throughput: { median: throughput, iqr: 1, unit: 'tokens/s', blocks: Array.from({ length: 20 }, (_, i) => throughput * (1 + ((i % 5) - 2) / 1000)) },
      stepTimeMs: { median: 10 },
      finalLoss: 1,
      nanDetected: false,
      gpu: null,
      host: null,
      lossCurve: [
        [100, 1.5],
        [200, 1],
      ],
    },
    gpuSettings: null,
    origin:
      machine === null
        ? null
        : {
            source: 'mlflow',
            trackingUri: 'http://mlflow.lab:5000',
            experimentId: '1',
            mlflowRunId: `${id}`.padStart(32, '0'),
            url: 'http://mlflow.lab:5000/#/experiments/1/runs/x',
            databaseId: 'ab'.repeat(16),
            runId: id,
            machine: { id: `${machine}/GPU-1`, label: `${machine} (NVIDIA H100)` },
            importedAt: NOW.toISOString(),
          },
  });
}

describe('runs from other machines in a comparison', () => {
  it('never pools runs of the same config from two machines, and withholds the speedup across them', () => {
    const local = [run(1000, null), run(1010, null)];
    const remote = [run(3000, 'box-2'), run(3030, 'box-2')];
    const comparison = compareRuns([...local, ...remote], { groupBy: 'config', gate: GATE, now: NOW });
    expect(comparison.rows).toHaveLength(2);
    expect(comparison.rows[0]!.runIds).toEqual(local.map((r) => r.id));
    const other = comparison.rows[1]!;
    expect(other.runIds).toEqual(remote.map((r) => r.id));
    expect(other).toMatchObject({ machine: 'box-2 (NVIDIA H100)', speedup: { ratio: null, ci95: null, verdict: 'unknown' }, best: false });
    expect(other.differences[0]).toBe('machine: box-2 (NVIDIA H100) vs this machine');
    expect(other.speedup.reason).toBe('another machine: no speedup across machines');
    expect(comparison.rows[0]!.best).toBe(true);
    expect(comparison.notes).toContain('Some rows ran on another machine than the baseline (flagged): no speedup verdict across machines.');
  });

  it('gives the speedup across machines when asked, still flagged', () => {
    const rows = compareRuns([run(1000, null), run(1010, null), run(3000, 'box-2'), run(3030, 'box-2')], {
      groupBy: 'config',
      gate: GATE,
      now: NOW,
      acrossMachines: true,
    }).rows;
    expect(rows[1]!.speedup.ratio).toBeCloseTo(3, 6);
    expect(rows[1]!.speedup.verdict).toBe('faster');
    expect(rows[1]!.differences[0]).toMatch(/^machine: box-2/u);
    expect(rows[1]!.best).toBe(true);
  });

  it('compares runs of one other machine among themselves as usual, and flags this machine against its baseline', () => {
    const rows = compareRuns(
      [
        run(1000, 'box-2', { batch: '8' }),
        run(1010, 'box-2', { batch: '8' }),
        run(2000, 'box-2', { batch: '16' }),
        run(2020, 'box-2', { batch: '16' }),
        run(5000, null, { batch: '16' }),
      ],
      {
        groupBy: 'config',
        gate: GATE,
        now: NOW,
      },
    ).rows;
    expect(rows[1]).toMatchObject({ machine: null, speedup: { verdict: 'faster' } });
    expect(rows[1]!.speedup.ratio).toBeCloseTo(2, 6);
    expect(rows[2]).toMatchObject({ machine: 'this machine', speedup: { verdict: 'unknown', ratio: null } });
  });
});
