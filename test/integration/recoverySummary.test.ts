// An interrupted run gets a summary at recovery from the steps it logged, and compare shows it marked partial.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compareRuns } from '../../electron/core/compare/compare.js';
import type { MetricSample } from '../../electron/core/metrics/samples.js';
import { ownIdentity } from '../../electron/core/system/processIdentity.js';
import { recoverInterruptedRuns, summarizeInterrupted } from '../../electron/core/runner/recovery.js';
import { Store } from '../../electron/core/store/store.js';
import { qualityGate } from '../../electron/shared/api.js';
import { makeTempDir } from '../helpers/tempCore.js';

let store: Store | null = null;
afterEach(async () => {
  await store?.close();
  store = null;
});

describe('recovery of an interrupted run', () => {
  it('summarises the 390 steps it logged and compares it as partial', () => {
    store = new Store(path.join(makeTempDir(), 'runs.db'));
    const insert = (name: string) =>
      store!.runs.insert({
        workloadId: null,
        workloadName: name,
        command: ['python', 'train.py'],
        cwd: '/tmp',
        config: {},
        env: {},
        startedAt: new Date('2026-11-21T10:00:00Z'),
        enginePid: process.pid,
      });
    const run = insert('interrupted');
    const samples: MetricSample[] = [];
    for (let step = 1; step <= 390; step++) {
      samples.push({ step, tMs: step * 100, name: 'step_time_ms', value: step === 1 ? 2000 : 100 + (step % 5), source: 'text', kind: 'train' });
      samples.push({ step, tMs: step * 100, name: 'loss', value: 3 - step / 400, source: 'text', kind: 'train' });
    }
    store.metrics.insertNow(run.id, samples);

    const report = recoverInterruptedRuns(store.runs, store.processes, ownIdentity(), new Date('2026-11-21T11:00:00Z'), (r) => summarizeInterrupted(store!, r));
    expect(report.interrupted.map((r) => r.id)).toEqual([run.id]);
    const recovered = store.runs.get(run.id)!;
    expect(recovered.status).toBe('interrupted');
    expect(recovered.summary.steps).toBe(390);
    expect(recovered.summary.stepTimeMs.median).toBe(102);
    expect(recovered.summary.warmup?.steps).toBe(1);

    const row = compareRuns([recovered, recovered], { groupBy: 'run', gate: qualityGate.parse({}), now: new Date() }).rows[0]!;
    expect(row.partial).toBe(true);
    expect(row.throughput.median).not.toBeNull();
    expect(row.notes.join(' ')).toMatch(/partial/u);
  });
});
