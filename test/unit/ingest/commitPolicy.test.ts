import { describe, expect, it } from 'vitest';
import { COMMIT_INTERVAL_MS, COMMIT_MAX_BYTES, CommitPolicy } from '../../../electron/core/ingest/commitPolicy.js';
import { LIVE_SAMPLES_PER_MESSAGE, liveView } from '../../../electron/core/ingest/liveSamples.js';
import type { MetricSample } from '../../../electron/core/metrics/samples.js';
import { SampleColumns } from '../../../electron/core/store/sampleColumns.js';

describe('CommitPolicy', () => {
  it('is due once the oldest waiting item is an interval old, whatever came after it', () => {
    const policy = new CommitPolicy();
    expect(policy.isDue(0)).toBe(false);
    expect(policy.dueInMs(0)).toBeNull();
    policy.noteWaiting(1000, 10);
    policy.noteWaiting(1050, 10);
    expect(policy.isDue(1000 + COMMIT_INTERVAL_MS - 1)).toBe(false);
    expect(policy.dueInMs(1050)).toBe(COMMIT_INTERVAL_MS - 50);
    expect(policy.isDue(1000 + COMMIT_INTERVAL_MS)).toBe(true);
  });

  it('is due at once when a burst reaches the size limit', () => {
    const policy = new CommitPolicy();
    policy.noteWaiting(0, COMMIT_MAX_BYTES - 1);
    expect(policy.isDue(1)).toBe(false);
    policy.noteWaiting(1, 1);
    expect(policy.isDue(1)).toBe(true);
    expect(policy.dueInMs(1)).toBe(0);
  });

  it('after a commit waits for new items, unless some were left for the next transaction', () => {
    const policy = new CommitPolicy();
    policy.noteWaiting(0, 5);
    policy.committed(200, false);
    expect(policy.isDue(10_000)).toBe(false);
    policy.noteWaiting(300, 5);
    policy.committed(400, true);
    expect(policy.isDue(400)).toBe(true);
  });
});

describe('liveView', () => {
  const sample = (i: number, name: string): MetricSample => ({ step: i, tMs: i * 10, name, value: i / 7, source: 'text', kind: 'train' });

  it('passes a few samples as they are, and thins a flood keeping each metric’s newest', () => {
    const few = SampleColumns.from([sample(1, 'loss')]);
    expect(liveView([{ samples: few, from: 0, to: 1 }])).toEqual([sample(1, 'loss')]);
    // A commit of several parts, the flood's halves in two columns, the newest lr in the first and the newest loss in the second.
    const flood = Array.from({ length: 50_000 }, (_, i) => sample(i, i % 2 ? 'loss' : 'lr'));
    const first = SampleColumns.from(flood.slice(0, 25_000));
    const second = SampleColumns.from([...flood.slice(25_000).filter((s) => s.name === 'loss')]);
    const parts = [
      { samples: first, from: 0, to: first.length },
      { samples: second, from: 0, to: second.length },
    ];
    const view = liveView(parts);
    expect(view.length).toBeLessThanOrEqual(LIVE_SAMPLES_PER_MESSAGE + 2);
    expect(view.at(-1)).toEqual(flood.at(-1));
    expect(view).toContainEqual(flood[24_998]);
    expect(view.map((s) => s.step)).toEqual([...view.map((s) => s.step)].sort((a, b) => a! - b!));
  });

  it("sends the even spread and each metric's newest, in the commit's order, whatever the parts and metrics", () => {
    /** The rule spelled out over the whole commit at once. */
    const expected = (all: MetricSample[]) => {
      const stride = Math.max(1, Math.ceil(all.length / LIVE_SAMPLES_PER_MESSAGE));
      const newest = new Map<string, number>();
      if (stride > 1) all.forEach((s, at) => newest.set(`${s.kind} ${s.name}`, at));
      const kept = new Set(newest.values());
      return all.filter((_, at) => at % stride === 0 || kept.has(at));
    };
    let seed = 3;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const kinds = ['train', 'eval', 'progress'] as const;
    for (let round = 0; round < 40; round++) {
      const metrics = 1 + random(6);
      const all = Array.from({ length: random(3) === 0 ? random(3000) : random(60_000) }, (_, i) => ({
        step: i,
        tMs: i,
        name: `m${random(metrics)}`,
        value: i,
        source: 'text' as const,
        kind: kinds[random(3)]!,
      }));
      const parts = [];
      for (let from = 0; from < all.length;) {
        const to = Math.min(all.length, from + 1 + random(20_000));
        // Each part its own columns (its own name codes), taken from the middle of them.
        const columns = SampleColumns.from([sample(-1, 'pad'), ...all.slice(from, to)]);
        parts.push({ samples: columns, from: 1, to: columns.length });
        from = to;
      }
      expect(liveView(parts)).toEqual(expected(all));
    }
  });
});
