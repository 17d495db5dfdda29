// A finished run's summary and chart series read from its samples without every bar redraw: the same as from all of them.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSeries } from '../../electron/core/ingest/series.js';
import { IMPORTED_LOG_READING, MetricsCollector } from '../../electron/core/metrics/collector.js';
import { buildMixedLog } from '../../electron/core/metrics/parsers/benchmarkSupport.js';
import type { MetricSample } from '../../electron/core/metrics/samples.js';
import { summarizeMetrics } from '../../electron/core/metrics/summary.js';
import { samplesForSummary } from '../../electron/core/metrics/summaryInput.js';
import { Store } from '../../electron/core/store/store.js';
import { capturedTrainingLogs } from '../helpers/fixtures.js';
import { makeTempDir } from '../helpers/tempCore.js';

const store = new Store(path.join(makeTempDir(), 'runs.db'));
afterAll(() => store.close());

function stored(samples: readonly MetricSample[]): number {
  const run = store.runs.insert({
    workloadId: null,
    workloadName: 'summary input',
    command: ['train'],
    cwd: '/tmp',
    config: {},
    env: {},
    startedAt: new Date('2026-11-26T10:00:00Z'),
    enginePid: process.pid,
  });
  store.metrics.insertNow(run.id, samples);
  return run.id;
}

/** Read back from the store: the same summary and series as every sample. */
function expectSameSummary(samples: readonly MetricSample[]): MetricSample[] {
  const id = stored(samples);
  const all = store.metrics.forRun(id);
  const read = samplesForSummary(store.metrics, id);
  expect(summarizeMetrics(read, { tokensPerStep: null })).toEqual(summarizeMetrics(all, { tokensPerStep: null }));
  expect(buildSeries(read, [])).toEqual(buildSeries(all, []));
  return read;
}

/** Every redraw kept (no thinning), so bars are as many rows as they can be. */
function parsed(text: string): MetricSample[] {
  const collector = new MetricsCollector({ metricRegex: '', ...IMPORTED_LOG_READING, lastRedrawPerStep: false, barClockIntervalMs: 0 });
  return [...collector.push(text, 0), ...collector.end(0)];
}

const sample = (
  step: number | null,
  name: string,
  value: number,
  kind: MetricSample['kind'],
  source: MetricSample['source'] = 'text',
  tMs = (step ?? 0) * 100,
): MetricSample => ({
  step,
  tMs,
  name,
  value,
  source,
  kind,
});

describe('the samples a summary is made from', () => {
  const logs = capturedTrainingLogs();
  logs.push(['mixed log', buildMixedLog(1)], ['mixed log, prefixed', buildMixedLog(1, { prefixed: true })]);

  it.each(logs)('%s: the same summary and series as from every sample', (_name, text) => {
    expectSameSummary(parsed(text));
  });

  it('reads far fewer rows of a bar-heavy log whose training lines give timing and loss', () => {
    const samples = parsed(buildMixedLog(1));
    const read = expectSameSummary(samples);
    expect(samples.length).toBeGreaterThan(40_000);
    expect(read.length).toBeLessThan(samples.length / 5);
  });

  it('reads every bar sample where bars are the only timing', () => {
    const bars = Array.from({ length: 50 }, (_, i) => [
      sample(i + 1, 'steps_per_sec', 4 + (i % 3) / 10, 'progress'),
      sample(i + 1, 'loss', 3 - i / 100, 'progress'),
    ]).flat();
    expect(expectSameSummary(bars)).toHaveLength(bars.length);
  });

  it('reads every bar sample where bars are the only loss', () => {
    const samples = Array.from({ length: 40 }, (_, i) => [
      sample(i + 1, 'step_time_ms', 100 + (i % 4), 'train'),
      sample(i + 1, 'loss', 3 - i / 100, 'progress'),
    ]).flat();
    expect(expectSameSummary(samples)).toHaveLength(samples.length);
  });

  it("keeps what the summary takes from bars beside training lines: a NaN, the last step, each value's last finite one", () => {
    const samples: MetricSample[] = [];
    for (let step = 1; step <= 60; step++) {
      samples.push(sample(step, 'step_time_ms', 100 + (step % 3), 'train'), sample(step, 'loss', 3 - step / 100, 'train'));
      samples.push(
        sample(step, 'grad_norm', step === 17 ? Number.NaN : 1, 'progress'),
        sample(step, 'lr', step === 60 ? Number.POSITIVE_INFINITY : step / 1000, 'progress'),
      );
    }
    // Bars run past the training lines, and one value has no step at all.
    samples.push(
      sample(75, 'steps_per_sec', 9, 'progress'),
      sample(null, 'epoch', 2, 'progress', 'text', 9000),
      sample(null, 'epoch', 3, 'progress', 'text', 8000),
    );
    const summary = summarizeMetrics(expectSameSummary(samples));
    expect(summary).toMatchObject({ steps: 75, nanDetected: true });
    expect(summary.finalMetrics).toMatchObject({ lr: 0.059, epoch: 2 });
  });

  it('prefers the structured channel over text, with or without bars in either', () => {
    const samples: MetricSample[] = [];
    for (let step = 1; step <= 30; step++) {
      samples.push(sample(step, 'step_time_ms', 50, 'train', 'channel'), sample(step, 'loss', 2 - step / 100, 'train', 'channel'));
      samples.push(sample(step, 'loss', 9, 'progress', 'text'), sample(step, 'tokens_per_sec', 1000, 'progress', 'channel'));
    }
    expectSameSummary(samples);
  });
});
