// Metrics end to end: the synthetic trainer's known throughput recovered, step limits, imports of real logs.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stripAnsi } from '../../electron/shared/ansi.js';
import { CAPTURED_FIXTURES } from '../helpers/fixtures.js';
import { tempCore } from '../helpers/tempCore.js';

const harness = tempCore();
afterAll(() => harness.cleanup());

function expectedSteady(output: string): number {
  const match = /synthetic: expected steady ([\d.]+) tok\/s/u.exec(stripAnsi(output));
  if (!match) throw new Error('no expected-throughput line');
  return Number(match[1]);
}

async function runSynthetic(values: Record<string, string>, extra: { maxSteps?: number } = {}) {
  const workload = harness.core.store.workloads.getByName('synthetic')!;
  const run = harness.core.runner.start({ workload, values, ...extra });
  const finished = await harness.core.runner.waitForExit(run.id);
  const output = Buffer.concat(harness.core.store.runs.outputAfter(run.id, -1).map((c) => c.data)).toString();
  return { finished, output };
}

describe('the synthetic workload through the whole pipeline', () => {
  it.each<Record<string, string>>([
    { batch: '8', steps: '300' },
    { batch: '32', workers: '2', amp: 'on', steps: '300' },
    { batch: '16', compile: 'on', steps: '300' },
  ])(
    'recovers the formula throughput within 1 %% after warm-up: %o',
    async (values) => {
      const { finished, output } = await runSynthetic(values);
      const { summary } = finished;
      expect(finished.status).toBe('succeeded');
      expect(summary.throughput.unit).toBe('tokens/s');
      expect(Math.abs(summary.throughput.median! / expectedSteady(output) - 1)).toBeLessThan(0.01);
      expect(summary.warmup).toMatchObject({ rule: 'auto', stable: true });
      // The compile phase (10 slow steps) is reported as a cost, not hidden.
      if (values.compile === 'on') expect(summary.warmup!.seconds).toBeGreaterThan(0.5);
      expect(summary).toMatchObject({ steps: 300, lossFell: true, nanDetected: false, metricsSource: 'text' });
      expect(summary.evalLoss).toBeGreaterThan(summary.finalLoss!);
    },
    30_000,
  );

  it('stops a run at its step limit, and calls that a good ending', async () => {
    const { finished } = await runSynthetic({ steps: '100000' }, { maxSteps: 50 });
    expect(finished).toMatchObject({ status: 'stopped', exitClass: 'ok' });
    expect(finished.exitReason).toMatch(/stopped at step \d+, the run's step limit/);
    expect(finished.summary.steps).toBeGreaterThanOrEqual(50);
    expect(finished.summary.throughput.median).not.toBeNull();
  });

  it('flags a NaN loss in the summary and the exit class', async () => {
    const workload = harness.core.store.workloads.create({
      name: 'nan trainer',
      cwd: '{resources}/workloads/synthetic',
      command: ['{node}', 'train.js', '--steps', '60', '--nan-at', '40', '--log-every', '5'],
      env: {},
      variables: [],
    });
    const run = harness.core.runner.start({ workload, values: {} });
    const finished = await harness.core.runner.waitForExit(run.id);
    expect(finished.summary.nanDetected).toBe(true);
    expect(finished.exitClass).toBe('nan_loss');
  });

  it('stores samples that runs.metrics gives back with steps and non-finite values as strings', async () => {
    const { finished } = await runSynthetic({ steps: '40' });
    const points = await harness.core.handlers['runs.metrics']({ id: finished.id }, { subscriberId: null });
    const stepLines = points.filter((p) => p.name === 'tokens_per_sec' && p.kind === 'train');
    expect(stepLines.map((p) => p.step)).toEqual([10, 20, 30, 40]);
  });
});

describe('tuning-bench import of the real logs', () => {
  const logs = fs.readdirSync(path.join(CAPTURED_FIXTURES, 'training-logs')).filter((f) => f.endsWith('.log'));

  it.each(logs)('%s becomes a run with its failure classified as expected', async (file) => {
    const base = file.replace(/\.log$/u, '');
    const expected = JSON.parse(fs.readFileSync(path.join(CAPTURED_FIXTURES, 'training-logs', `${base}.expected.json`), 'utf8')) as {
      samples?: unknown[];
      failure?: { kind: string };
    };
    const text = fs.readFileSync(path.join(CAPTURED_FIXTURES, 'training-logs', file));
    const run = await harness.core.handlers['runs.import']({ name: base, text: text.toString('utf8') }, { subscriberId: null });
    expect(run.outputBytes).toBe(text.length);
    // The contract has one class for bad numerics: a NaN gradient norm on every step is nan_loss too.
    const expectedClass = expected.failure?.kind === 'nan_grad_norm' ? 'nan_loss' : (expected.failure?.kind ?? 'ok');
    expect(run.exitClass).toBe(expectedClass);
    expect(run.status).toBe(expected.failure ? 'failed' : 'succeeded');
    const points = await harness.core.handlers['runs.metrics']({ id: run.id }, { subscriberId: null });
    if ((expected.samples ?? []).length > 0) expect(points.length, 'metric samples').toBeGreaterThan(0);
  });
});
