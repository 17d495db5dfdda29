// A person's metric pattern never stalls the engine or a run it records: catastrophic backtracking falls back to V8's linear engine, patterns that cannot are refused on save, and the tester has a time limit.
import { afterEach, describe, expect, it } from 'vitest';
import { testUserRegex, testUserRegexSafely } from '../../electron/core/metrics/userRegex.js';
import { tempCore, type TempCore } from '../helpers/tempCore.js';

let harness: TempCore | null = null;
afterEach(async () => {
  await harness?.cleanup();
  harness = null;
});

describe('the regex tester', () => {
  it('answers a catastrophic pattern at once while the engine keeps recording, and never blocks the engine', async () => {
    harness = tempCore();
    const h = harness;
    const run = h.core.startCommand({ adHoc: { command: ['sh', '-c', 'for i in 1 2 3 4; do echo "tick $i"; sleep 0.25; done'], cwd: h.dir } });
    // 40 a's then a mismatch: (a+)+$ tries about 2^40 ways before failing on a backtracking engine.
    const text = `${'a'.repeat(40)}!\nstep 1 loss 2.5`;
    const answer = await h.core.handlers['metrics.testRegex']({ pattern: '(?<loss>(a+)+$)', text }, { subscriberId: null });
    expect(answer).toMatchObject({ error: null, matchCount: 0 });
    const ended = await h.core.runner.waitForExit(run.id);
    expect(ended.status).toBe('succeeded');
  }, 30_000);

  it('ends a test that outruns its time limit with an error, off the engine thread', async () => {
    // A sound pattern over a long text with a 1 ms limit: the limit, not the pattern, decides.
    const text = Array.from({ length: 200_000 }, (_, i) => `step ${i} loss 2.5`).join('\n');
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 1);
    const answer = await testUserRegexSafely('step (?<step>\\d+) loss (?<loss>\\S+)', text, 1);
    clearInterval(ticker);
    expect(answer.error).toMatch(/did not finish within 0.001 s/u);
    expect(ticks).toBeGreaterThan(0);
  });

  it('answers a sound pattern the same as the direct test does', async () => {
    harness = tempCore();
    const text = 'step 1 loss 2.5\nnoise\nstep 2 loss nan\n';
    const pattern = 'step (?<step>\\d+) loss (?<loss>\\S+)';
    const answer = await harness.core.handlers['metrics.testRegex']({ pattern, text }, { subscriberId: null });
    expect(answer).toEqual(testUserRegex(pattern, text));
    expect(answer.matchCount).toBe(2);
  });
});

describe("a workload's metric pattern on a live run", () => {
  it('parses every line in bounded time even when the pattern backtracks catastrophically on some', async () => {
    harness = tempCore();
    const h = harness;
    // `(\d+)+` nested: on "v=" and 40 digits then "!" a backtracking engine tries about 2^40 splits (hours).
    const workload = await h.core.handlers['workloads.create'](
      {
        name: 'nested repeats',
        description: '',
        cwd: h.dir,
        mode: 'shell',
        command: [`for i in 1 2 3; do echo "v=$i$i"; echo "v=${'1'.repeat(40)}!"; done; echo done`],
        tokensPerStep: '',
        metricRegex: '^v=(?<loss>(\\d+)+)$',
        steps: null,
        env: {},
        variables: [],
      },
      { subscriberId: null },
    );
    const run = h.core.runner.start({ workload, values: {} });
    const ended = await h.core.runner.waitForExit(run.id);
    expect(ended.status).toBe('succeeded');
    const samples = h.core.store.metrics.forRun(run.id).filter((sample) => sample.name === 'loss');
    expect(samples.map((sample) => sample.value)).toEqual([11, 22, 33]);
    expect(Buffer.concat(h.core.store.runs.outputAfter(run.id, -1).map((chunk) => chunk.data)).toString()).toContain('done\n');
  }, 60_000);

  it('refuses, on save, a pattern only the backtracking engine can run, and says what to write instead', async () => {
    harness = tempCore();
    const h = harness;
    const input = {
      name: 'lookaround',
      description: '',
      cwd: h.dir,
      mode: 'argv' as const,
      command: ['true'],
      tokensPerStep: '',
      steps: null,
      env: {},
      variables: [],
    };
    // async: a handler may throw as it is called; the faces see a rejection either way.
    const create = async (metricRegex: string) => h.core.handlers['workloads.create']({ ...input, metricRegex }, { subscriberId: null });
    await expect(create('loss=(?<loss>[\\d.]+)(?! \\(eval\\))')).rejects.toThrow(
      /metric pattern: this pattern cannot run in linear time.*lookaheads.*match the text around the number instead/u,
    );
    await expect(create('(?<q>[\'"])loss\\k<q>=(?<loss>[\\d.]+)')).rejects.toThrow(/cannot run in linear time.*Back-references/u);
    await expect(create('(?<w>\\p{L}+)=(?<loss>[\\d.]+)')).rejects.toThrow(/\\p\{…\} and \\u\{…\} escapes are not supported/u);
    expect(h.core.store.workloads.getByName('lookaround')).toBeUndefined();
    const saved = await create('loss=(?<loss>[\\d.]+)');
    expect(saved.metricRegex).toBe('loss=(?<loss>[\\d.]+)');
  });
});
