import { describe, expect, it } from 'vitest';
import { classifyExit, findFailureLine } from '../../electron/core/runner/exitClassifier.js';
import { readSharedFixture } from '../helpers/fixtures.js';
const base = { exitCode: 1, signal: null, stoppedByUser: false, timedOut: false, outputTail: '' };

describe('classifyExit', () => {
  it('calls a clean exit ok', () => {
    expect(classifyExit({ ...base, exitCode: 0, outputTail: 'step 10: loss 2.1\n' })).toEqual({ status: 'succeeded', exitClass: 'ok', reason: null });
  });

  it('reads CUDA out-of-memory from the real captures', () => {
    for (const name of ['oom-1.log', 'oom-2.log']) {
      const verdict = classifyExit({ ...base, outputTail: readSharedFixture('training-logs', name) });
      expect(verdict.exitClass, name).toBe('cuda_oom');
      expect(verdict.reason).toMatch(/OutOfMemoryError/);
    }
  });

  it('reads a CUDA error from a real traceback', () => {
    const verdict = classifyExit({ ...base, outputTail: readSharedFixture('training-logs', 'cuda-error-1.log') });
    expect(verdict.exitClass).toBe('cuda_error');
    expect(verdict.reason).toBe('RuntimeError: CUDA error: device-side assert triggered');
  });

  it('flags a NaN loss even when the script exits 0', () => {
    const verdict = classifyExit({ ...base, exitCode: 0, outputTail: 'iter 425: loss nan, time 90.1ms\n' });
    expect(verdict).toMatchObject({ status: 'failed', exitClass: 'nan_loss' });
  });

  it('takes one "grad norm: nan" for a skipped fp16 step, not a failure', () => {
    expect(findFailureLine('iteration 3 | lm loss 1.0E+01 | grad norm: nan |\niteration 4 | grad norm: 1.25 |')).toBeNull();
  });

  it('takes a NaN gradient norm on every recent reading for bad numerics (the real Megatron-DeepSpeed capture)', () => {
    const verdict = findFailureLine(readSharedFixture('training-logs', 'megatron-deepspeed-1.log'));
    expect(verdict?.exitClass).toBe('nan_loss');
    expect(verdict?.line).toMatch(/^iteration\s+5428\/.*grad norm: nan/);
  });

  it('blames the OOM killer for a SIGKILL the engine did not send', () => {
    expect(classifyExit({ ...base, exitCode: null, signal: 'SIGKILL' })).toMatchObject({ exitClass: 'host_oom', status: 'failed' });
  });

  it('puts the user and the clock before the output', () => {
    expect(classifyExit({ ...base, stoppedByUser: true, outputTail: 'CUDA out of memory' })).toMatchObject({ status: 'stopped', exitClass: 'killed' });
    expect(classifyExit({ ...base, timedOut: true })).toMatchObject({ status: 'timed_out', exitClass: 'timeout' });
  });

  it('gives the last line as the reason for a plain error', () => {
    expect(classifyExit({ ...base, exitCode: 3, outputTail: 'a\n\x1b[31mValueError: bad config\x1b[0m\n\n' })).toEqual({
      status: 'failed',
      exitClass: 'error',
      reason: 'ValueError: bad config',
    });
  });
});
