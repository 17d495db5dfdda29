import { describe, expect, it } from 'vitest';
import { COMMIT_INTERVAL_MS, COMMIT_MAX_BYTES, CommitPolicy } from '../../../electron/core/ingest/commitPolicy.js';
import { LIVE_SAMPLES_PER_MESSAGE, liveView } from '../../../electron/core/ingest/liveSamples.js';

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
  it('passes a few samples as they are, and thins a flood keeping each metric’s newest', () => {
    const few = [{ name: 'loss', kind: 'train', step: 1 }];
    expect(liveView(few)).toEqual(few);
    const flood = Array.from({ length: 50_000 }, (_, i) => ({ name: i % 2 ? 'loss' : 'lr', kind: 'train', step: i >> 1 }));
    const view = liveView(flood);
    expect(view.length).toBeLessThanOrEqual(LIVE_SAMPLES_PER_MESSAGE + 2);
    expect(view.at(-1)).toBe(flood.at(-1));
    expect(view).toContain(flood.at(-2));
  });
});
