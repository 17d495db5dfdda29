// Stopping and limits against a real pty: escalation for programs that ignore signals, time limits.
import { afterEach, describe, expect, it } from 'vitest';
import { STOP_ESCALATION_MS } from '../../electron/core/runner/runManager.js';
import { tempCore, type TempCore } from '../helpers/tempCore.js';

let harness: TempCore;
afterEach(async () => harness?.cleanup());

async function startShell(h: TempCore, script: string, timeoutSeconds?: number) {
  const workload = h.core.store.workloads.create({ name: 'script', cwd: h.dir, mode: 'shell', command: [script], env: {}, variables: [] });
  const run = h.core.runner.start({ workload, values: {}, timeoutSeconds });
  const ready = async () => {
    await h.core.store.flush();
    return h.core.store.runs.outputPage(run.id, { afterSeq: -1, maxBytes: 4096, fromEnd: false }).chunks.some((c) => c.data.includes('ready'));
  };
  await expect.poll(ready, { timeout: 10_000 }).toBe(true);
  return run;
}

describe('Stop', () => {
  it('escalates to SIGTERM for a program that ignores SIGINT', async () => {
    harness = tempCore();
    const run = await startShell(harness, 'trap "" INT; echo ready; while :; do sleep 0.05; done');
    const stoppedAt = Date.now();
    harness.core.runner.stop(run.id);
    const finished = await harness.core.runner.waitForExit(run.id);
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(STOP_ESCALATION_MS - 100);
    expect(finished).toMatchObject({ status: 'stopped', exitClass: 'killed', signal: 'SIGTERM' });
  });

  it('escalates to SIGKILL for a program that ignores SIGINT and SIGTERM', async () => {
    harness = tempCore();
    const run = await startShell(harness, 'trap "" INT TERM; echo ready; while :; do sleep 0.05; done');
    harness.core.runner.stop(run.id);
    const finished = await harness.core.runner.waitForExit(run.id);
    expect(finished).toMatchObject({ status: 'stopped', exitClass: 'killed', signal: 'SIGKILL' });
  }, 20_000);

  it('ends a run that never exits at its time limit, as timed_out', async () => {
    harness = tempCore();
    const run = await startShell(harness, 'echo ready; exec sleep 600', 1);
    const finished = await harness.core.runner.waitForExit(run.id);
    expect(finished).toMatchObject({ status: 'timed_out', exitClass: 'timeout' });
  });

  it('answers a stop of a run that is not running with a conflict, not a crash', async () => {
    harness = tempCore();
    const run = await startShell(harness, 'echo ready');
    await harness.core.runner.waitForExit(run.id);
    expect(() => harness.core.runner.stop(run.id)).toThrow(/is not running/);
  });
});

describe('a shell-mode workload', () => {
  it('passes a value with quotes and $() to the program as plain text', async () => {
    harness = tempCore();
    const workload = harness.core.store.workloads.create({
      name: 'echo',
      cwd: harness.dir,
      mode: 'shell',
      command: ['printf "%s|" {word} ready; echo'],
      env: {},
      variables: [{ name: 'word', default: 'x', description: '' }],
    });
    const run = harness.core.runner.start({ workload, values: { word: `it's $(echo pwned)` } });
    await harness.core.runner.waitForExit(run.id);
    const text = Buffer.concat(harness.core.store.runs.outputAfter(run.id, -1).map((c) => c.data)).toString();
    expect(text).toBe(`it's $(echo pwned)|ready|\n`);
  });
});
