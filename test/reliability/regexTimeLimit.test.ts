// A person's metric pattern that backtracks without end answers with an error in the tester; the engine and a run it records go on meanwhile.
import { afterEach, describe, expect, it } from 'vitest';
import { REGEX_TEST_TIME_LIMIT_MS, testUserRegex } from '../../electron/core/metrics/userRegex.js';
import { tempCore, type TempCore } from '../helpers/tempCore.js';

let harness: TempCore | null = null;
afterEach(async () => {
  await harness?.cleanup();
  harness = null;
});

describe('the regex tester', () => {
  it('stops a catastrophic pattern at its time limit while the engine keeps answering and recording', async () => {
    harness = tempCore();
    const h = harness;
    const run = h.core.startCommand({ adHoc: { command: ['sh', '-c', 'for i in 1 2 3 4 5 6 7 8; do echo "tick $i"; sleep 0.25; done'], cwd: h.dir } });
    // 40 a's then a mismatch: (a+)+$ tries about 2^40 ways before failing.
    const text = `${'a'.repeat(40)}!\nstep 1 loss 2.5`;
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 50);
    const answer = await h.core.handlers['metrics.testRegex']({ pattern: '(?<loss>(a+)+$)', text }, { subscriberId: null });
    clearInterval(ticker);
    expect(answer.error).toMatch(/did not finish within 2 s.*backtracks/u);
    // The engine's thread ran its timers throughout: the pattern ran elsewhere.
    expect(ticks).toBeGreaterThanOrEqual(REGEX_TEST_TIME_LIMIT_MS / 50 / 2);
    const ended = await h.core.runner.waitForExit(run.id);
    expect(ended.status).toBe('succeeded');
  }, 30_000);

  it('answers a sound pattern the same as the direct test does', async () => {
    harness = tempCore();
    const text = 'step 1 loss 2.5\nnoise\nstep 2 loss nan\n';
    const pattern = 'step (?<step>\\d+) loss (?<loss>\\S+)';
    const answer = await harness.core.handlers['metrics.testRegex']({ pattern, text }, { subscriberId: null });
    expect(answer).toEqual(testUserRegex(pattern, text));
    expect(answer.matchCount).toBe(2);
  });
});
