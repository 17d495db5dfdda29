// A sweep's progress in words, from the engine's state: which run of how many, its config and repeat, how long it has
// waited or run, and the latest failure.
import { describe, expect, it } from 'vitest';
import type { Sweep, SweepPlaceNow } from '../../electron/shared/api.js';
import { failureLine, nowLine, placeText } from '../../renderer/src/sweeps/sweepText.js';

const T0 = Date.parse('2025-01-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

function place(fields: Partial<SweepPlaceNow> = {}): SweepPlaceNow {
  return {
    run: 3,
    of: 8,
    configIndex: 2,
    config: 'batch=32',
    repeat: 2,
    repeats: 3,
    phase: 'running',
    since: at(0),
    runId: 17,
    runStartedAt: at(5),
    ...fields,
  };
}

function sweep(progress: Partial<Sweep['progress']>, fields: Partial<Sweep> = {}): Sweep {
  return {
    kind: 'sweep',
    status: 'running',
    progress: { done: 2, total: 8, currentRunId: null, current: null, etaSeconds: null, waiting: null, now: null, failed: 0, lastFailure: null, ...progress },
    ...fields,
  } as Sweep;
}

describe('placeText', () => {
  it('says which run of how many, its config and its repeat', () => {
    expect(placeText(place())).toBe('run 3 of 8, batch=32, repeat 2/3');
  });
  it('leaves out the repeat when there is one, and the count for a batch finder (it does not know how many probes)', () => {
    expect(placeText(place({ repeats: 1, repeat: 1, config: '+amp=on' }))).toBe('run 3 of 8, +amp=on');
    expect(placeText(place({ of: null, repeats: 1, repeat: 1, config: 'batch=4' }))).toBe('probe 3, batch=4');
  });
});

describe('nowLine', () => {
  it('counts a running run from its start by the engine, not from when the page heard of it', () => {
    const now = place();
    expect(nowLine(sweep({ now }), T0 + 47_000)).toBe('Run 3 of 8, batch=32, repeat 2/3: running for 42 s');
    expect(nowLine(sweep({ now }), T0 + 5_000 + 192_000)).toBe('Run 3 of 8, batch=32, repeat 2/3: running for 3m 12s');
  });
  it('counts a wait from its start, and says what it waits for', () => {
    const now = place({ phase: 'waiting', runId: null, runStartedAt: null });
    expect(nowLine(sweep({ now, waiting: 'others use 1.4 CPU cores' }), T0 + 12_000)).toBe(
      'Run 3 of 8, batch=32, repeat 2/3: waiting 12 s for a quiet machine (others use 1.4 CPU cores)',
    );
  });
  it('says a paused, queued or finished sweep is not running anything', () => {
    expect(nowLine(sweep({}, { status: 'paused' }), T0)).toBe('Paused: Resume goes on with the next run.');
    expect(nowLine(sweep({}, { status: 'queued' }), T0)).toBe('Queued: it starts when the sweep before it ends.');
    expect(nowLine(sweep({ done: 8 }, { status: 'succeeded' }), T0)).toBeNull();
  });
});

describe('failureLine', () => {
  const lastFailure = {
    run: 2,
    of: 8,
    configIndex: 1,
    config: 'batch=16',
    repeat: 1,
    repeats: 3,
    runId: 15,
    exitClass: 'cuda_oom',
    reason: 'torch.cuda.OutOfMemoryError: CUDA out of memory.',
  };
  it('names the run that failed, where it sits, and why', () => {
    expect(failureLine(sweep({ failed: 1, lastFailure }))).toBe(
      'Run 2 of 8 failed (batch=16, repeat 1/3): cuda_oom: torch.cuda.OutOfMemoryError: CUDA out of memory.',
    );
  });
  it('counts several, and names the latest', () => {
    expect(failureLine(sweep({ failed: 3, lastFailure }))).toBe(
      '3 runs failed; the latest, run 2 of 8 (batch=16, repeat 1/3): cuda_oom: torch.cuda.OutOfMemoryError: CUDA out of memory.',
    );
  });
  it('is nothing while none failed', () => {
    expect(failureLine(sweep({}))).toBeNull();
  });
});
