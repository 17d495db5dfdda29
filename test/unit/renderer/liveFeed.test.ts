// One run's chart data: stored points fetched, live ones held meanwhile and put on top, redraws throttled.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveFeed, REDRAW_INTERVAL_MS, type FeedSnapshot } from '../../../renderer/src/runs/liveFeed.js';

type Ready = { points: number[] };

/** A source of numbered points: fetch() answers with what the test says is stored, when the test says so. */
function source() {
  let take: ((live: number) => void) | null = null;
  const fetches: Array<{ resolve: (points: number[]) => void; reject: (error: Error) => void }> = [];
  return {
    push: (live: number) => take?.(live),
    answer: (index: number, points: number[]) => fetches[index]!.resolve(points),
    fail: (index: number, message: string) => fetches[index]!.reject(new Error(message)),
    fetchCount: () => fetches.length,
    feedSource: {
      subscribe: (listener: (live: number) => void) => {
        take = listener;
        return () => (take = null);
      },
      fetch: () => new Promise<number[]>((resolve, reject) => fetches.push({ resolve, reject })),
      add: (series: number[], live: number) => {
        // A point that came live and is also stored replaces itself.
        if (!series.includes(live)) series.push(live);
      },
      view: (series: number[]): Ready => ({ points: [...series] }),
    },
  };
}

function snapshots() {
  const seen: Array<FeedSnapshot<Ready>> = [];
  return { seen, onChange: (snapshot: FeedSnapshot<Ready>) => seen.push(snapshot), last: () => seen.at(-1) };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('LiveFeed', () => {
  it('holds live points while the stored ones load, then shows both, each once', async () => {
    const src = source();
    const view = snapshots();
    const feed = new LiveFeed(src.feedSource, view.onChange);
    feed.reload();
    src.push(3);
    src.push(4);
    src.answer(0, [1, 2, 3]);
    await vi.runAllTimersAsync();
    expect(view.last()).toEqual({ status: 'ready', points: [1, 2, 3, 4] });
    feed.dispose();
  });

  it('redraws at most every REDRAW_INTERVAL_MS however fast points come', async () => {
    const src = source();
    const view = snapshots();
    const feed = new LiveFeed(src.feedSource, view.onChange);
    feed.reload();
    src.answer(0, []);
    await vi.runAllTimersAsync();
    const before = view.seen.length;
    for (let i = 0; i < 50; i += 1) {
      src.push(i);
      await vi.advanceTimersByTimeAsync(10);
    }
    // 500 ms of points every 10 ms: about one redraw, never one per point.
    expect(view.seen.length - before).toBeLessThanOrEqual(Math.ceil(500 / REDRAW_INTERVAL_MS) + 1);
    await vi.runAllTimersAsync();
    expect(view.last()).toEqual({ status: 'ready', points: Array.from({ length: 50 }, (_, i) => i) });
    feed.dispose();
  });

  it('says why when the first load fails, and keeps what it shows when a later one does', async () => {
    const src = source();
    const view = snapshots();
    const feed = new LiveFeed(src.feedSource, view.onChange);
    feed.reload();
    src.fail(0, 'the engine is gone');
    await vi.runAllTimersAsync();
    expect(view.last()).toEqual({ status: 'failed', error: 'the engine is gone' });

    feed.reload();
    src.answer(1, [1]);
    await vi.runAllTimersAsync();
    feed.reload();
    src.push(2);
    src.fail(2, 'reconnecting');
    await vi.runAllTimersAsync();
    expect(view.last()).toEqual({ status: 'ready', points: [1, 2] });
    feed.dispose();
  });

  it('uses only the newest of two loads in flight', async () => {
    const src = source();
    const view = snapshots();
    const feed = new LiveFeed(src.feedSource, view.onChange);
    feed.reload();
    feed.reload();
    src.answer(1, [1, 2, 3]);
    src.answer(0, [9]);
    await vi.runAllTimersAsync();
    expect(view.seen.filter((s) => s.status === 'ready')).toEqual([{ status: 'ready', points: [1, 2, 3] }]);
    feed.dispose();
  });

  it('draws nothing once disposed', async () => {
    const src = source();
    const view = snapshots();
    const feed = new LiveFeed(src.feedSource, view.onChange);
    feed.reload();
    feed.dispose();
    src.answer(0, [1]);
    src.push(2);
    await vi.runAllTimersAsync();
    expect(view.seen).toEqual([]);
  });
});
