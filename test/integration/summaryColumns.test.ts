// A run's summary input read into columns sized once: as many entries as samples read, from a real SQLite file.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MetricSample } from '../../electron/core/metrics/samples.js';
import { columnsForSummary, samplesForSummary } from '../../electron/core/metrics/summaryInput.js';
import { Store } from '../../electron/core/store/store.js';
import { makeTempDir } from '../helpers/tempCore.js';

const store = new Store(path.join(makeTempDir(), 'runs.db'));
afterAll(() => store.close());

function stored(samples: readonly MetricSample[]): number {
  const run = store.runs.insert({
    workloadId: null,
    workloadName: 'columns',
    command: ['train'],
    cwd: '/tmp',
    config: {},
    env: {},
    startedAt: new Date('2026-11-27T10:00:00Z'),
    enginePid: process.pid,
  });
  store.metrics.insertNow(run.id, samples);
  return run.id;
}

const sample = (step: number, name: string, kind: MetricSample['kind']): MetricSample => ({
  step,
  tMs: step * 10,
  name,
  value: step / 7,
  source: 'text',
  kind,
});

describe('the summary input in columns', () => {
  it('counts what it reads, so its columns hold exactly the samples (training lines with a bar digest)', () => {
    const samples: MetricSample[] = [];
    for (let step = 1; step <= 3000; step++)
      samples.push(sample(step, 'loss', 'train'), sample(step, 'step_time_ms', 'train'), sample(step, 'loss', 'progress'));
    const id = stored(samples);
    expect(store.metrics.countNumeric(id, 'all')).toBe(9000);
    expect(store.metrics.countNumeric(id, 'exceptProgress')).toBe(6000);
    const columns = columnsForSummary(store.metrics, id);
    // 6,000 training samples and the bars' digest (the loss at the last step), in columns never grown past them.
    expect(columns.length).toBe(6001);
    expect(columns.step.length).toBe(columns.length);
    expect(samplesForSummary(store.metrics, id)).toHaveLength(6001);
  });

  it('reads every sample into columns of their number when bars are the only timing', () => {
    const samples: MetricSample[] = [];
    for (let step = 1; step <= 2000; step++) samples.push(sample(step, 'steps_per_sec', 'progress'), sample(step, 'loss', 'train'));
    const id = stored(samples);
    const columns = columnsForSummary(store.metrics, id);
    expect(columns.length).toBe(4000);
    expect(columns.step.length).toBe(4000);
  });
});
