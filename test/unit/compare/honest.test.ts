// Compare's honesty rules: units never mixed, loss matched per pair, verdicts only with repeats, the quality gate, partial and copied runs.
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../electron/core/compare/random.js';
import { compareRuns, type CompareOptions } from '../../../electron/core/compare/compare.js';
import { compareRequest, qualityGate, run as runSchema, type Run } from '../../../electron/shared/api.js';

const NOW = new Date('2026-11-21T12:00:00.000Z');
const GATE = qualityGate.parse({});
const options = (extra: Partial<CompareOptions> = {}): CompareOptions => ({ groupBy: 'config', gate: GATE, now: NOW, ...extra });

interface FakeRun {
  config?: Record<string, string>;
  throughput?: number | null;
  unit?: string;
  tokensPerStep?: number | null;
  finalLoss?: number | null;
  evalLoss?: number | null;
  curve?: Array<[number, number]>;
  seed?: number;
  status?: string;
  exitClass?: string | null;
  finalMetrics?: Record<string, number>;
  sweepConfig?: number;
}

let nextId = 1;
function fakeRun(spec: FakeRun): Run {
  const id = nextId++;
  const throughput = spec.throughput === undefined ? 1000 : spec.throughput;
  const next = seededRandom(spec.seed ?? id);
  const blocks = throughput === null ? [] : Array.from({ length: 20 }, () => throughput * (1 + (next() - 0.5) * 0.02));
  return runSchema.parse({
    id,
    workloadId: 1,
    workloadName: 'train',
    status: spec.status ?? 'succeeded',
    exitCode: 0,
    signal: null,
    exitClass: spec.exitClass === undefined ? 'ok' : spec.exitClass,
    exitReason: null,
    startedAt: new Date(Date.UTC(2026, 10, 21, 10, 0, id)).toISOString(),
    endedAt: new Date(Date.UTC(2026, 10, 21, 10, 1, id)).toISOString(),
    command: ['python', 'train.py'],
    cwd: '/tmp',
    config: spec.config ?? { run: String(id) },
    env: {},
    pid: null,
    outputBytes: 0,
    summary: {
      steps: 200,
      throughput: { median: throughput, iqr: null, unit: throughput === null ? null : (spec.unit ?? 'tokens/s'), blocks },
      stepTimeMs: { median: null },
      finalLoss: spec.finalLoss === undefined ? 2 : spec.finalLoss,
      evalLoss: spec.evalLoss ?? null,
      nanDetected: false,
      gpu: null,
      host: null,
      tokensPerStep: spec.tokensPerStep === undefined ? 1000 : spec.tokensPerStep,
      lossCurve: spec.curve ?? [
        [100, 3],
        [200, 2],
      ],
      finalMetrics: spec.finalMetrics ?? {},
    },
    gpuSettings: null,
    fingerprint: null,
    sweepId: spec.sweepConfig === undefined ? null : 1,
    configIndex: spec.sweepConfig ?? null,
    repeatIndex: null,
  });
}

describe('units are never mixed', () => {
  it('shows no speedup, with the reason, for steps/s against tokens/s without tokens per step', () => {
    // The case: an ad-hoc run (steps/s) against a workload run (tokens/s) printed "804.53x faster".
    const base = fakeRun({ throughput: 1.2, unit: 'steps/s', tokensPerStep: null });
    const row = fakeRun({ throughput: 965, unit: 'tokens/s', tokensPerStep: 800 });
    const result = compareRuns([base, row], options({ groupBy: 'run' }));
    expect(result.rows[1]!.speedup.ratio).toBeNull();
    expect(result.rows[1]!.speedup.verdict).toBe('unknown');
    expect(result.rows[1]!.speedup.reason).toMatch(/steps\/s.*tokens\/s|tokens\/s.*steps\/s/u);
  });

  it('converts steps/s to tokens/s when the tokens per step are known', () => {
    const base = fakeRun({ throughput: 2, unit: 'steps/s', tokensPerStep: 500 });
    const row = fakeRun({ throughput: 1500, unit: 'tokens/s', tokensPerStep: 500 });
    const result = compareRuns([base, row], options({ groupBy: 'run' }));
    expect(result.rows[1]!.speedup.ratio).toBeCloseTo(1.5, 6);
    expect(result.rows[1]!.throughput.unit).toBe('tokens/s');
  });
});

describe('loss matched per pair', () => {
  it('keeps a row’s matched loss and gate when an unrelated or metric-less row joins', () => {
    const base = fakeRun({
      curve: [
        [100, 3],
        [1000, 2],
        [2000, 1.5],
      ],
      finalLoss: 1.5,
    });
    const row = fakeRun({
      curve: [
        [100, 3.01],
        [1000, 2.01],
        [2000, 1.51],
      ],
      finalLoss: 1.51,
    });
    const short = fakeRun({
      curve: [
        [50, 3.3],
        [100, 3.2],
      ],
      finalLoss: 3.2,
    });
    const none = fakeRun({ throughput: null, curve: [], finalLoss: null, tokensPerStep: null });
    const alone = compareRuns([base, row], options({ groupBy: 'run' })).rows[1]!;
    const crowded = compareRuns([base, row, short, none], options({ groupBy: 'run' })).rows[1]!;
    expect(crowded.matchedLoss).toEqual(alone.matchedLoss);
    expect(crowded.gate).toBe(alone.gate);
    expect(alone.matchedLoss!.at).toBe(2000 * 1000);
    expect(alone.gate).toBe('pass');
  });
});

describe('verdicts respect their evidence', () => {
  it('gives no faster/slower verdict with one run per side, and shows n', () => {
    const runs = [0.58, 0.81, 0.84, 1].map((f, i) => fakeRun({ throughput: 1000 * (i === 3 ? 1 : f), config: { same: 'yes' } }));
    const result = compareRuns([runs[3]!, ...runs.slice(0, 3)], options({ groupBy: 'run' }));
    for (const row of result.rows.slice(1)) {
      expect(row.speedup.verdict).toBe('repeat to decide');
      expect(row.speedup.reason).toBe('1 run each: repeat to decide');
      expect(row.n).toBe(1);
    }
  });

  it('gives a verdict with repeats on both sides', () => {
    const runs = [1000, 1012, 990, 1500, 1485, 1518].map((t, i) => fakeRun({ throughput: t, config: { batch: i < 3 ? '8' : '16' } }));
    const result = compareRuns(runs, options());
    expect(result.rows[1]!.n).toBe(3);
    expect(result.rows[1]!.speedup.verdict).toBe('faster');
  });
});

describe('the quality gate', () => {
  it('defaults to +0.05 absolute on the final eval loss when both have one', () => {
    expect(compareRequest.parse({ runIds: [1] }).gate).toMatchObject({ metric: 'auto', direction: 'lower', absolute: 0.05, relative: null, enabled: true });
    const base = fakeRun({ evalLoss: 3.8, finalLoss: 3.7 });
    const row = fakeRun({ evalLoss: 3.86, finalLoss: 3.6 });
    const result = compareRuns([base, row], options({ groupBy: 'run' }));
    const compared = result.rows[1]!.compared!;
    expect(compared.metric).toBe('eval_loss');
    expect(compared.value).toBeCloseTo(3.86, 6);
    expect(compared.delta).toBeCloseTo(0.06, 6);
    expect(result.rows[1]!.gate).toBe('fail');
    expect(result.gateText).toMatch(/eval loss.*\+0\.05/u);
  });

  it('falls back to the train loss at the matched point', () => {
    const base = fakeRun({
      curve: [
        [100, 3],
        [200, 2],
      ],
    });
    const row = fakeRun({
      curve: [
        [100, 3.1],
        [200, 2.04],
        [300, 1.5],
      ],
      finalLoss: 1.5,
    });
    const compared = compareRuns([base, row], options({ groupBy: 'run' })).rows[1]!.compared!;
    expect(compared.metric).toBe('loss');
    expect(compared.delta).toBeCloseTo(0.04, 6);
  });

  it('gates any shared metric, higher better, with a relative tolerance, or not at all', () => {
    const base = fakeRun({ finalMetrics: { accuracy: 0.9 } });
    const row = fakeRun({ finalMetrics: { accuracy: 0.88 } });
    const gate = qualityGate.parse({ metric: 'accuracy', direction: 'higher', absolute: null, relative: 0.01 });
    const failed = compareRuns([base, row], options({ groupBy: 'run', gate })).rows[1]!;
    expect(failed.gate).toBe('fail');
    expect(failed.compared).toMatchObject({ metric: 'accuracy', value: 0.88 });
    const off = compareRuns([base, row], options({ groupBy: 'run', gate: { ...gate, enabled: false } })).rows[1]!;
    expect(off.gate).toBe('n/a');
  });
});

describe('partial runs and copied repeats', () => {
  it('shows a stopped run from the steps it has, marked partial', () => {
    const base = fakeRun({});
    const stopped = fakeRun({ status: 'stopped', exitClass: null });
    const row = compareRuns([base, stopped], options({ groupBy: 'run' })).rows[1]!;
    expect(row.partial).toBe(true);
    expect(row.throughput.median).not.toBeNull();
  });

  it('says when repeats are identical copies', () => {
    const runs = [fakeRun({ config: { a: '1' } }), fakeRun({ config: { a: '2' }, seed: 5 }), fakeRun({ config: { a: '2' }, seed: 5 })];
    const row = compareRuns(runs, options()).rows[1]!;
    expect(row.notes.join(' ')).toMatch(/repeats identical/u);
  });
});
