// The ladder's decisions with fixed numbers: kept only when faster and within the gate, more rounds while undecided, rungs that cannot apply skipped with why.
import { describe, expect, it } from 'vitest';
import {
  batchFinderOutcome,
  batchPlaceholder,
  batchSuggestion,
  countedSpeeds,
  decideStep,
  ladderRungs,
  moreRoundsFor,
  poolGate,
  rungSkipReason,
  TuneError,
  tuneConfidence,
} from '../../electron/core/tune/ladder.js';
import { seededRandom } from '../../electron/core/compare/random.js';
import { compareSpeeds, CONFIDENCE, type RunSpeed } from '../../electron/core/compare/verdict.js';
import { tuneRequest } from '../../electron/shared/api.js';

const base = {
  verdict: 'faster',
  verdictReason: 'the interval lies above 1 (3 and 3 runs, 95 % t-interval)',
  gate: 'pass' as const,
  gateReason: 'loss +0.001 (limit +0.05)',
  knobState: 'applied',
  knobReason: null,
  candidateStatus: 'done',
  failure: null,
};
const speeds = (values: number[]) => values.map((throughput) => ({ throughput, round: null }));

describe("a step's runs on a machine that was not fair", () => {
  const run = (throughput: number, unfair = false) => ({ throughput, round: null, unfair });

  it('are left out of its verdict where two fair runs a side remain, and counted where they do not', () => {
    // nanoGPT's tune beside a build: one baseline run 15 times slower, flagged host-busy.
    const candidate = [run(16_200), run(16_400), run(16_100)];
    const against = [run(13_400), run(13_600), run(830, true)];
    expect(compareSpeeds(candidate, against, { minEffect: 0.02 }).verdict).toBe('inconclusive');
    expect(countedSpeeds(against)).toEqual(against.slice(0, 2));
    expect(compareSpeeds(countedSpeeds(candidate), countedSpeeds(against), { minEffect: 0.02 }).verdict).toBe('faster');
    // One fair run left: every run counts, flagged as before (a verdict needs two a side).
    const busy = [run(13_400), run(830, true), run(900, true)];
    expect(countedSpeeds(busy)).toEqual(busy);
  });
});

describe('decideStep', () => {
  it('keeps a knob that is faster and within the quality gate', () => {
    expect(decideStep(base)).toEqual({ status: 'kept', kept: true, reason: 'faster: the interval lies above 1 (3 and 3 runs, 95 % t-interval)' });
  });

  it('rejects a faster knob whose loss is worse beyond the gate, and says it was faster', () => {
    const decided = decideStep({ ...base, gate: 'fail', gateReason: 'loss +0.31 (limit +0.05)' });
    expect(decided).toEqual({ status: 'rejected', kept: false, reason: 'quality gate failed: loss +0.31 (limit +0.05) (faster, but worse)' });
  });

  it('rejects same, slower and undecided verdicts, each with its reason', () => {
    expect(decideStep({ ...base, verdict: 'same', verdictReason: 'no change larger than ±2 %' })).toMatchObject({
      status: 'rejected',
      kept: false,
      reason: 'same: no change larger than ±2 %',
    });
    expect(decideStep({ ...base, verdict: 'slower', verdictReason: 'the interval lies below 1' }).reason).toBe('slower: the interval lies below 1');
    expect(decideStep({ ...base, verdict: 'inconclusive', verdictReason: 'cannot tell' }).reason).toBe(
      'not shown faster within the repeat budget (inconclusive): cannot tell',
    );
  });

  it('reports out of memory, failed runs and a knob that did not apply, never keeping them', () => {
    expect(decideStep({ ...base, candidateStatus: 'oom', failure: 'CUDA out of memory' })).toEqual({
      status: 'failed',
      kept: false,
      reason: 'out of memory: CUDA out of memory',
    });
    expect(decideStep({ ...base, candidateStatus: 'failed', failure: 'exit 1' })).toMatchObject({ status: 'failed', kept: false });
    expect(decideStep({ ...base, knobState: 'skipped', knobReason: 'no CUDA device here' })).toEqual({
      status: 'skipped',
      kept: false,
      reason: 'the knob was skipped: no CUDA device here',
    });
    expect(decideStep({ ...base, knobState: 'overridden', knobReason: 'the script calls torch.set_num_threads itself' })).toEqual({
      status: 'skipped',
      kept: false,
      reason: 'the knob was overridden: the script calls torch.set_num_threads itself',
    });
    expect(decideStep({ ...base, knobState: 'unused', knobReason: 'no DataLoader was made' })).toMatchObject({ status: 'skipped', kept: false });
    expect(decideStep({ ...base, knobState: 'failed', knobReason: 'RuntimeError: ...' })).toMatchObject({ status: 'failed', kept: false });
    expect(decideStep({ ...base, knobState: 'unknown', knobReason: null })).toEqual({
      status: 'skipped',
      kept: false,
      reason: 'the knob was not reported on by any Python process',
    });
  });

  it('keeps a faster knob of a script without a loss, saying there was no gate', () => {
    expect(decideStep({ ...base, gate: 'n/a', gateReason: 'no loss on either side' })).toMatchObject({
      kept: true,
      reason: expect.stringContaining('; no quality gate (no loss on either side)'),
    });
  });
});

describe('the verdict a step rests on, pooled over its rounds', () => {
  it('an undecided first round asks for more runs, up to the budget; the pooled runs then decide', () => {
    const first = compareSpeeds(speeds([120, 80]), speeds([100, 99]), { minEffect: 0.02 });
    expect(first.verdict).toBe('inconclusive');
    expect(moreRoundsFor(first, 2, 4)).toBeGreaterThanOrEqual(1);
    expect(moreRoundsFor(first, 2, 4)).toBeLessThanOrEqual(2);
    expect(moreRoundsFor(first, 4, 4)).toBe(0);
    expect(moreRoundsFor({ verdict: 'faster', moreRepeats: null }, 2, 4)).toBe(0);
    const pooled = compareSpeeds(speeds([150, 148, 152, 151]), speeds([100, 99, 101, 100]), { minEffect: 0.02 });
    expect(pooled).toMatchObject({ verdict: 'faster', n: { candidate: 4, baseline: 4 } });
    expect(pooled.ratio!).toBeCloseTo(1.5, 2);
  });

  it('asks for no more runs where the step timing, not the runs, keeps it undecided', () => {
    const coarse = compareSpeeds(
      [
        { throughput: 1000 / 63, resolution: 1 / 63 },
        { throughput: 1000 / 63, resolution: 1 / 63 },
      ],
      [
        { throughput: 1000 / 64, resolution: 1 / 64 },
        { throughput: 1000 / 64, resolution: 1 / 64 },
      ],
      { minEffect: 0.02 },
    );
    expect(coarse.verdict).toBe('inconclusive');
    expect(moreRoundsFor(coarse, 2, 4)).toBe(0);
  });

  it("keeps a step's false faster/slower rate under 5 % over all the looks it takes as it adds rounds (A/A)", () => {
    const random = seededRandom(30);
    const normal = () => Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
    /** Both sides the same config: run-to-run noise of 2 %; rounds added as the ladder adds them, up to its budget. */
    const falseRate = (confidence: number) => {
      const request = { repeats: 2, maxRepeats: 4 };
      let falses = 0;
      const sweeps = 4000;
      for (let sweep = 0; sweep < sweeps; sweep++) {
        const a: RunSpeed[] = [];
        const b: RunSpeed[] = [];
        const round = () => {
          a.push({ throughput: 100 * Math.exp(0.02 * normal()) });
          b.push({ throughput: 100 * Math.exp(0.02 * normal()) });
        };
        for (let i = 0; i < request.repeats; i++) round();
        for (;;) {
          const verdict = compareSpeeds(a, b, { minEffect: 0.02, confidence });
          if (verdict.verdict === 'faster' || verdict.verdict === 'slower') falses++;
          const more = moreRoundsFor(verdict, a.length, request.maxRepeats);
          if (verdict.verdict === 'faster' || verdict.verdict === 'slower' || more === 0) break;
          for (let i = 0; i < more; i++) round();
        }
      }
      return falses / sweeps;
    };
    // Each look at 95 %: about 7 % false verdicts. Shared between the looks: under 5 %.
    expect(falseRate(CONFIDENCE)).toBeGreaterThan(0.06);
    expect(tuneConfidence({ repeats: 2, maxRepeats: 4 })).toBeCloseTo(1 - 0.05 / 3, 10);
    expect(falseRate(tuneConfidence({ repeats: 2, maxRepeats: 4 }))).toBeLessThanOrEqual(0.05);
  });

  it('one failing round fails the gate of the step', () => {
    expect(
      poolGate([
        { gate: 'pass', gateReason: 'a' },
        { gate: 'fail', gateReason: 'NaN loss' },
      ]),
    ).toEqual({ gate: 'fail', reason: 'NaN loss' });
    expect(
      poolGate([
        { gate: 'n/a', gateReason: 'no loss' },
        { gate: 'pass', gateReason: 'b' },
      ]),
    ).toEqual({ gate: 'pass', reason: 'b' });
    expect(poolGate([])).toEqual({ gate: 'n/a', reason: 'nothing to compare' });
  });
});

describe('the rungs', () => {
  it('are the seeds ladder by default, workers with persistent workers beside them', () => {
    const rungs = ladderRungs(tuneRequest.parse({ command: { template: ['python', 'train.py'], cwd: '/tmp' } }));
    expect(rungs.map((r) => `${r.knob}=${r.value}`)).toEqual(['workers=4', 'autocast=bf16', 'tf32=on', 'cudnnBenchmark=on', 'compile=on', 'batch=largest']);
    expect(rungs[0]!.companions).toEqual({ persistentWorkers: 'on' });
  });

  it('take the threads step when a count is given (--threads 2 alone), before the batch; --only still decides', () => {
    const command = { template: ['python', 'train.py'], cwd: '/tmp' };
    const rungs = ladderRungs(tuneRequest.parse({ command, threads: 2 }));
    expect(rungs.map((r) => `${r.knob}=${r.value}`)).toEqual([
      'workers=4',
      'autocast=bf16',
      'tf32=on',
      'cudnnBenchmark=on',
      'compile=on',
      'threads=2',
      'batch=largest',
    ]);
    expect(tuneRequest.parse({ command, threads: 2, steps: ['autocast'] }).steps).toEqual(['autocast']);
  });

  it('skip CUDA-only knobs without CUDA, compile before torch 2, fp16 autocast on the CPU; try them where unknown', () => {
    const [workers, autocast, tf32, cudnn, compile] = ladderRungs(tuneRequest.parse({ command: { template: ['python'], cwd: '/tmp' } }));
    const cpu = { torch: '1.13.0', cuda: false };
    expect(rungSkipReason(workers!, cpu)).toBeNull();
    expect(rungSkipReason(autocast!, cpu)).toBeNull();
    expect(rungSkipReason(tf32!, cpu)).toBe('no CUDA device here: tf32 acts on NVIDIA GPUs only');
    expect(rungSkipReason(cudnn!, cpu)).toBe('no CUDA device here: cudnnBenchmark acts on NVIDIA GPUs only');
    expect(rungSkipReason(compile!, cpu)).toBe('torch 1.13.0 has no torch.compile (2.0 and newer)');
    expect(rungSkipReason(compile!, { torch: '2.3.1+cu121', cuda: true })).toBeNull();
    expect(rungSkipReason(tf32!, { torch: null, cuda: null })).toBeNull();
    const [fp16] = ladderRungs({ steps: ['autocast'], workers: 4, autocast: 'fp16', threads: undefined });
    expect(rungSkipReason(fp16!, cpu)).toBe('fp16 autocast needs CUDA (on the CPU torch takes bf16: --autocast bf16)');
  });
});

describe('the batch rung', () => {
  const command = (template: string[], mode: 'argv' | 'shell' = 'argv') => ({ template, mode, cwd: '/tmp' });

  it('runs where the command has the placeholder and its batch is given; else says what to give', () => {
    const withBatch = command(['python', 'train.py', '--batch-size', '{batch}']);
    expect(batchPlaceholder({ command: withBatch, values: { batch: '32' }, batchVariable: 'batch' })).toEqual({ variable: 'batch', value: 32, reason: null });
    expect(batchPlaceholder({ command: command(['python', 'train.py']), values: {}, batchVariable: 'batch' })).toEqual({
      variable: 'batch',
      value: null,
      reason: 'no {batch} placeholder in the command: give one and --set batch=N to try larger batches',
    });
    expect(batchPlaceholder({ command: command(['python', 'train.py', '--bs={bs}']), values: { bs: '8' }, batchVariable: 'bs' })).toMatchObject({
      variable: 'bs',
      value: 8,
    });
    expect(() => batchPlaceholder({ command: withBatch, values: {}, batchVariable: 'batch' })).toThrow(
      new TuneError('the command has {batch}: give the batch it runs at now with --set batch=N'),
    );
    expect(() => batchPlaceholder({ command: withBatch, values: { batch: '0' }, batchVariable: 'batch' })).toThrow(
      '--set batch=0: the batch is a positive whole number, e.g. batch=32',
    );
    expect(() => batchPlaceholder({ command: withBatch, values: { batch: '32', lr: '1e-3' }, batchVariable: 'batch' })).toThrow(
      '--set lr=...: the command has no {lr} placeholder (it has {batch})',
    );
  });

  it('measures the largest batch that fits only when it is larger than the batch now', () => {
    const found = (largestFit: number | null, message: string) => ({ status: 'succeeded' as const, error: null, result: { largestFit, message } });
    expect(batchFinderOutcome(32, 'batch', found(96, 'batch=96 is the largest that fits; 97 ran out of memory'))).toEqual({ measure: 96 });
    expect(batchFinderOutcome(32, 'batch', found(32, 'batch=32 is the largest that fits; 33 ran out of memory'))).toEqual({
      status: 'skipped',
      reason: 'batch=32 is the largest that fits; 33 ran out of memory: nothing larger than batch=32 to try',
    });
    expect(batchFinderOutcome(32, 'batch', { ...found(null, 'even batch=32 ran out of memory'), status: 'failed' })).toEqual({
      status: 'failed',
      reason: 'out of memory: even batch=32 ran out of memory',
    });
    expect(
      batchFinderOutcome(32, 'batch', {
        status: 'failed',
        error: 'the probe at batch=64 failed for another reason than memory (error: exit 2); fix that first',
        result: null,
      }),
    ).toEqual({
      status: 'failed',
      reason: 'the batch-size finder failed: the probe at batch=64 failed for another reason than memory (error: exit 2); fix that first',
    });
  });

  it('says the value to pass for a kept batch, with the flag before the placeholder, and no diff', () => {
    expect(batchSuggestion(command(['python', 'train.py', '--batch-size', '{batch}']), 'batch', 32, 96)).toEqual({
      knobs: ['batch=96'],
      file: null,
      line: null,
      text: 'batch=96: pass --batch-size 96 (it ran at 32; the largest that fits with the knobs kept)',
      diff: null,
    });
    expect(batchSuggestion(command(['python', 'train.py', '--bs={batch}']), 'batch', 8, 24).text).toBe(
      'batch=24: pass --bs=24 (it ran at 8; the largest that fits with the knobs kept)',
    );
    expect(batchSuggestion(command(['python train.py --bs {batch}'], 'shell'), 'batch', 8, 24).text).toBe(
      'batch=24: run it with batch=24 (it ran at 8; the largest that fits with the knobs kept)',
    );
  });
});
