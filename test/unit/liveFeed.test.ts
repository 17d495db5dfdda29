// A run's chart data (renderer/src/liveFeed.ts): stored points fetched, live ones held meanwhile and put on top,
// overlapping reloads, failures, and redraws throttled to REDRAW_INTERVAL_MS.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveFeed, REDRAW_INTERVAL_MS, type FeedSnapshot, type LiveFeedSource } from '../../renderer/src/runs/liveFeed.js';

/** A series is the steps it holds; a step that comes twice (live and fetched) replaces itself, as in the real feeds. */
type Series = Map<number, number>;
type Ready = { steps: number[] };

interface PendingFetch {
  resolve: (steps: number[]) => void;
  reject: (error: Error) => void;
}

/** Fetches wait for the test to answer them, and live points are pushed by it. */
class FakeSource implements LiveFeedSource<Series, number, Ready> {
  readonly fetches: PendingFetch[] = [];
  private take: ((step: number) => void) | null = null;
  unsubscribed = false;

  subscribe(take: (step: number) => void): () => void {
    this.take = take;
    return () => {
      this.unsubscribed = true;
    };
  }

  fetch(): Promise<Series> {
    return new Promise<Series>((resolve, reject) => {
      this.fetches.push({ resolve: (steps) => resolve(new Map(steps.map((step) => [step, step]))), reject });
    });
  }

  add(series: Series, step: number): void {
    series.set(step, step);
  }

  view(series: Series): Ready {
    return { steps: [...series.keys()].sort((a, b) => a - b) };
  }

  push(step: number): void {
    this.take?.(step);
  }
}

function makeFeed() {
  const source = new FakeSource();
  const snapshots: Array<FeedSnapshot<Ready>> = [];
  const feed = new LiveFeed(source, (snapshot) => snapshots.push(snapshot));
  return { source, snapshots, feed };
}

/** Lets a fetch's answer reach the feed. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('LiveFeed', () => {
  it('puts the points that came live during the fetch on top of the stored ones, a point in both once', async () => {
    const { source, snapshots, feed } = makeFeed();
    feed.reload();
    source.push(3);
    source.push(4);
    source.fetches[0]!.resolve([1, 2, 3]);
    await settle();
    expect(snapshots).toEqual([{ status: 'ready', steps: [1, 2, 3, 4] }]);
  });

  it('redraws live points at most once per REDRAW_INTERVAL_MS', async () => {
    const { source, snapshots, feed } = makeFeed();
    feed.reload();
    source.fetches[0]!.resolve([1]);
    await settle();
    expect(snapshots).toHaveLength(1);
    source.push(2);
    source.push(3);
    vi.advanceTimersByTime(REDRAW_INTERVAL_MS - 1);
    expect(snapshots).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(snapshots).toHaveLength(2);
    expect(snapshots.at(-1)).toEqual({ status: 'ready', steps: [1, 2, 3] });
    source.push(4);
    vi.advanceTimersByTime(REDRAW_INTERVAL_MS);
    expect(snapshots).toEqual([
      { status: 'ready', steps: [1] },
      { status: 'ready', steps: [1, 2, 3] },
      { status: 'ready', steps: [1, 2, 3, 4] },
    ]);
  });

  it('uses only the latest of overlapping reloads', async () => {
    const { source, snapshots, feed } = makeFeed();
    feed.reload();
    feed.reload();
    source.fetches[1]!.resolve([1, 2]);
    await settle();
    // The first answer is older than the second: it comes late and is ignored.
    source.fetches[0]!.resolve([1]);
    await settle();
    expect(snapshots).toEqual([{ status: 'ready', steps: [1, 2] }]);
    source.push(3);
    vi.advanceTimersByTime(REDRAW_INTERVAL_MS);
    expect(snapshots.at(-1)).toEqual({ status: 'ready', steps: [1, 2, 3] });
  });

  it('says why a first load failed', async () => {
    const { source, snapshots, feed } = makeFeed();
    feed.reload();
    source.fetches[0]!.reject(new Error('database is locked'));
    await settle();
    expect(snapshots).toEqual([{ status: 'failed', error: 'database is locked' }]);
  });

  it('keeps what it showed, with the points that came meanwhile, when a reload fails', async () => {
    const { source, snapshots, feed } = makeFeed();
    feed.reload();
    source.fetches[0]!.resolve([1, 2]);
    await settle();
    feed.reload();
    source.push(3);
    source.fetches[1]!.reject(new Error('connection lost'));
    await settle();
    expect(snapshots).toEqual([
      { status: 'ready', steps: [1, 2] },
      { status: 'ready', steps: [1, 2, 3] },
    ]);
  });

  it('stops listening and redrawing when disposed', async () => {
    const { source, snapshots, feed } = makeFeed();
    feed.reload();
    source.fetches[0]!.resolve([1]);
    await settle();
    source.push(2);
    feed.dispose();
    vi.advanceTimersByTime(REDRAW_INTERVAL_MS);
    feed.reload();
    source.fetches[1]!.resolve([1, 2]);
    await settle();
    expect(source.unsubscribed).toBe(true);
    expect(snapshots).toEqual([{ status: 'ready', steps: [1] }]);
  });
});
