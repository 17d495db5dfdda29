// Stopping and limits against a real pty: escalation for programs that ignore signals, time limits.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, realDelay } from '../../electron/core/clock.js';
import { STOP_ESCALATION_MS } from '../../electron/core/runner/runManager.js';
import { tempCore, type TempCore } from '../helpers/tempCore.js';

let harness: TempCore;
/** Long enough for a signal sent by mistake to end the shell, so "still running" means something. */
const LANDING_MS = 300;
afterEach(async () => harness?.cleanup());

async function startShell(h: TempCore, script: string, timeoutSeconds?: number) {
  const workload = h.core.store.workloads.create({ name: 'script', cwd: h.dir, mode: 'shell', command: [script], env: {}, variables: [] });
  const run = h.core.runner.start({ workload, values: {}, timeoutSeconds });
  const ready = async () => {
    await h.core.recording.flush();
    return h.core.store.runs.outputPage(run.id, { afterSeq: -1, maxBytes: 4096, fromEnd: false }).chunks.some((c) => c.data.includes('ready'));
  };
  await expect.poll(ready, { timeout: 10_000 }).toBe(true);
  return run;
}

describe('Stop', () => {
  // Escalation is due by the engine's clock, so a ManualClock says exactly when; the real waits only let a wrongly
  // sent signal land before the run is checked still alive.
  it('escalates to SIGTERM for a program that ignores SIGINT, when the clock reaches the escalation', async () => {
    const clock = new ManualClock();
    harness = tempCore({ clock });
    const run = await startShell(harness, 'trap "" INT; echo ready; while :; do sleep 0.05; done');
    harness.core.runner.stop(run.id);
    await realDelay(LANDING_MS);
    clock.advance(STOP_ESCALATION_MS - 1);
    await realDelay(LANDING_MS);
    expect(harness.core.runner.isActive(run.id)).toBe(true);
    clock.advance(1);
    const finished = await harness.core.runner.waitForExit(run.id);
    expect(finished).toMatchObject({ status: 'stopped', exitClass: 'killed', signal: 'SIGTERM' });
  });

  it(
    'escalates to SIGKILL for a program that ignores SIGINT and SIGTERM, one escalation later',
    async () => {
      const clock = new ManualClock();
      harness = tempCore({ clock });
      const run = await startShell(harness, 'trap "" INT TERM; echo ready; while :; do sleep 0.05; done');
      harness.core.runner.stop(run.id);
      clock.advance(STOP_ESCALATION_MS);
      await realDelay(LANDING_MS);
      clock.advance(STOP_ESCALATION_MS - 1);
      await realDelay(LANDING_MS);
      expect(harness.core.runner.isActive(run.id)).toBe(true);
      clock.advance(1);
      const finished = await harness.core.runner.waitForExit(run.id);
      expect(finished).toMatchObject({ status: 'stopped', exitClass: 'killed', signal: 'SIGKILL' });
      // Escalation on real timers would send SIGKILL only two real escalations after the stop: past this test's limit.
    },
    2 * STOP_ESCALATION_MS - 1000,
  );

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
