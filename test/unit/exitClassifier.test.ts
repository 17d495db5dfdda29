import { describe, expect, it } from 'vitest';
import { classifyExit, findFailureLine } from '../../electron/core/ingest/exitClassifier.js';
import { readCapturedFixture } from '../helpers/fixtures.js';
const base = { exitCode: 1, signal: null, stopCause: null, outputTail: '' };

describe('classifyExit', () => {
  it('calls a clean exit ok', () => {
    expect(classifyExit({ ...base, exitCode: 0, outputTail: 'step 10: loss 2.1\n' })).toEqual({ status: 'succeeded', exitClass: 'ok', reason: null });
  });

  it('reads CUDA out-of-memory from the real captures', () => {
    for (const name of ['oom-1.log', 'oom-2.log']) {
      const verdict = classifyExit({ ...base, outputTail: readCapturedFixture('training-logs', name) });
      expect(verdict.exitClass, name).toBe('cuda_oom');
      expect(verdict.reason).toMatch(/OutOfMemoryError/);
    }
  });

  it('reads a CUDA error from a real traceback', () => {
    const verdict = classifyExit({ ...base, outputTail: readCapturedFixture('training-logs', 'cuda-error-1.log') });
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
    const verdict = findFailureLine(readCapturedFixture('training-logs', 'megatron-deepspeed-1.log'));
    expect(verdict?.exitClass).toBe('nan_loss');
    expect(verdict?.line).toMatch(/^iteration\s+5428\/.*grad norm: nan/);
  });

  it('blames the OOM killer for a SIGKILL the engine did not send', () => {
    expect(classifyExit({ ...base, exitCode: null, signal: 'SIGKILL' })).toMatchObject({ exitClass: 'host_oom', status: 'failed' });
  });

  it("does not blame a signal for a program's own exit 137, and hints at what shells mean by it", () => {
    const verdict = classifyExit({ ...base, exitCode: 137, outputTail: 'loading shards\n' });
    expect(verdict).toMatchObject({ status: 'failed', exitClass: 'error' });
    expect(verdict.reason).toBe(
      'loading shards — exited with status 137, the code a shell gives when its child was ended by SIGKILL; perhaps the out-of-memory killer (check `dmesg`)',
    );
    expect(classifyExit({ ...base, exitCode: 130 }).reason).toBe('exited with status 130, the code a shell gives when its child was ended by SIGINT');
    expect(classifyExit({ ...base, exitCode: 255, outputTail: 'fatal\n' }).reason).toBe('fatal');
  });

  it('puts the user and the clock before the output', () => {
    expect(classifyExit({ ...base, stopCause: { kind: 'user' }, outputTail: 'CUDA out of memory' })).toMatchObject({ status: 'stopped', exitClass: 'killed' });
    expect(classifyExit({ ...base, stopCause: { kind: 'time-limit' } })).toMatchObject({ status: 'timed_out', exitClass: 'timeout' });
  });

  it('says each stop cause in its own words', () => {
    const verdict = (stopCause: Parameters<typeof classifyExit>[0]['stopCause']) => classifyExit({ ...base, signal: 'SIGINT', stopCause });
    expect(verdict({ kind: 'step-limit', step: 200 })).toEqual({ status: 'stopped', exitClass: 'ok', reason: "stopped at step 200, the run's step limit" });
    expect(verdict({ kind: 'user' })).toEqual({ status: 'stopped', exitClass: 'killed', reason: 'stopped by the user' });
    expect(verdict({ kind: 'signal', reason: 'the terminal closed (SIGHUP)' })).toEqual({
      status: 'stopped',
      exitClass: 'killed',
      reason: 'the terminal closed (SIGHUP)',
    });
    expect(verdict({ kind: 'app-closing' })).toEqual({ status: 'stopped', exitClass: 'killed', reason: 'stopped because Tuning Bench was closing' });
    expect(verdict({ kind: 'time-limit' })).toEqual({ status: 'timed_out', exitClass: 'timeout', reason: 'stopped by Tuning Bench at the time limit' });
  });

  it('gives the last line as the reason for a plain error', () => {
    expect(classifyExit({ ...base, exitCode: 3, outputTail: 'a\n\x1b[31mValueError: bad config\x1b[0m\n\n' })).toEqual({
      status: 'failed',
      exitClass: 'error',
      reason: 'ValueError: bad config',
    });
  });

  describe('processes killed from outside, read from the text, with any prefix', () => {
    const prefixes = ['', '2024-05-02T13:45:01.123Z ', '[2024-05-02 13:45:01,123] ', 'May  2 13:45:01 gpu-node kernel: ', '[rank0]: ', '> '];
    const shellKilled = [
      '/bin/bash: line 27: 318 Killed sh start.sh',
      'Killed',
      './run.sh: line 5:  4242 Killed                  python train.py',
      'zsh: killed     python train.py',
    ];
    const shellTerminated = ['/bin/bash: line 27: 318 Terminated sh start.sh', 'Terminated'];
    const kernelOom = [
      'Out of memory: Killed process 318 (python) total-vm:81234567kB, anon-rss:61234567kB, file-rss:0kB',
      'Memory cgroup out of memory: Killed process 4242 (python3) total-vm:1kB',
      'python invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0',
      'oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),task=python,pid=318,uid=1000',
    ];
    const cases = [
      ...shellKilled.map((line) => [line, 'killed'] as const),
      ...shellTerminated.map((line) => [line, 'killed'] as const),
      ...kernelOom.map((line) => [line, 'host_oom'] as const),
    ];
    for (const prefix of prefixes) {
      it.each(cases)(`${JSON.stringify(prefix)} + %s`, (line, exitClass) => {
        const text = `step 10: loss 2.1\n${prefix}${line}\nDone.\n`;
        expect(findFailureLine(text)?.exitClass).toBe(exitClass);
        // The wrapper script may go on and exit 0: the run still failed.
        expect(classifyExit({ ...base, exitCode: 0, outputTail: text })).toMatchObject({ status: 'failed', exitClass });
      });
    }

    it("reads the real capture (a bare Killed line, then the script's own Done.)", () => {
      expect(classifyExit({ ...base, exitCode: 0, outputTail: readCapturedFixture('training-logs', 'killed-1.log') })).toMatchObject({
        status: 'failed',
        exitClass: 'killed',
        reason: 'Killed',
      });
    });

    it('does not take the word in a sentence for a killed process', () => {
      for (const line of ['Killed 3 stale workers before start', 'the job was not Terminated', 'INFO: Killed processes: 0', 'loss 2.1 Killed']) {
        expect(findFailureLine(`${line}\n`), line).toBeNull();
      }
    });
  });
});
