// The UI's live lists (renderer/src/shared/liveList.ts): runs, sweeps and workloads listed on every (re)connect and
// kept by change events, where an event that arrives while a list is on its way is the newer state and stays.
import { describe, expect, it } from 'vitest';
import type { ConnectionState } from '../../renderer/src/bridge/types.js';
import { LiveList } from '../../renderer/src/shared/liveList.js';

interface Item {
  id: number;
  status: string;
}

/** Lists wait for the test to answer them. */
function pendingLists() {
  const answers: Array<{ resolve: (items: Item[]) => void; reject: (error: Error) => void }> = [];
  const list = () => new Promise<readonly Item[]>((resolve, reject) => answers.push({ resolve, reject }));
  return { answers, list };
}

class FakeConnection {
  state: ConnectionState = 'connecting';
  private readonly listeners = new Set<(state: ConnectionState) => void>();

  connectionState(): ConnectionState {
    return this.state;
  }

  onConnectionState(listener: (state: ConnectionState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  become(state: ConnectionState): void {
    this.state = state;
    for (const listener of this.listeners) listener(state);
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('a live list', () => {
  it('keeps an update that arrives while a reload is on its way, over the older state the list read', async () => {
    const { answers, list } = pendingLists();
    const runs = new LiveList<Item>(list);
    const reloading = runs.reload();
    // The run ends while the list (read when it was still running) is on its way.
    runs.put({ id: 7, status: 'done' });
    answers[0]!.resolve([
      { id: 8, status: 'running' },
      { id: 7, status: 'running' },
    ]);
    await reloading;
    expect(runs.get().items).toEqual([
      { id: 8, status: 'running' },
      { id: 7, status: 'done' },
    ]);
    expect(runs.get()).toMatchObject({ loaded: true, error: null });
  });

  it('takes what a later reload brings for an item no event touched meanwhile', async () => {
    const { answers, list } = pendingLists();
    const runs = new LiveList<Item>(list);
    runs.put({ id: 7, status: 'running' });
    const reloading = runs.reload();
    answers[0]!.resolve([{ id: 7, status: 'failed' }]);
    await reloading;
    expect(runs.find(7)).toEqual({ id: 7, status: 'failed' });
  });

  it('drops a list asked for before a whole new list came (workloads change as one list)', async () => {
    const { answers, list } = pendingLists();
    const workloads = new LiveList<Item>(list, (a, b) => a.id - b.id);
    const reloading = workloads.reload();
    workloads.replaceAll([
      { id: 1, status: 'kept' },
      { id: 3, status: 'new' },
    ]);
    answers[0]!.resolve([
      { id: 1, status: 'old' },
      { id: 2, status: 'removed since' },
    ]);
    await reloading;
    expect(workloads.get().items).toEqual([
      { id: 1, status: 'kept' },
      { id: 3, status: 'new' },
    ]);
  });

  it('adopts a call answer only when no event brought the item first', () => {
    const runs = new LiveList<Item>(pendingLists().list);
    runs.put({ id: 4, status: 'running' });
    runs.adopt({ id: 4, status: 'starting' });
    runs.adopt({ id: 5, status: 'starting' });
    expect(runs.get().items).toEqual([
      { id: 5, status: 'starting' },
      { id: 4, status: 'running' },
    ]);
  });

  it('lists when the connection opens and again on every reconnect, keeping what it held when a list fails', async () => {
    const { answers, list } = pendingLists();
    const runs = new LiveList<Item>(list);
    const connection = new FakeConnection();
    runs.follow(connection);
    expect(answers).toHaveLength(0);
    connection.become('open');
    answers[0]!.resolve([{ id: 1, status: 'done' }]);
    await settle();
    connection.become('reconnecting');
    connection.become('open');
    expect(answers).toHaveLength(2);
    answers[1]!.reject(new Error('socket closed'));
    await settle();
    expect(runs.get()).toMatchObject({ items: [{ id: 1, status: 'done' }], loaded: true, error: 'socket closed' });
  });

  it('tells its subscribers of each change, with a new snapshot each time', () => {
    const runs = new LiveList<Item>(pendingLists().list);
    const seen: unknown[] = [];
    const unsubscribe = runs.subscribe(() => seen.push(runs.get()));
    runs.put({ id: 1, status: 'running' });
    runs.put({ id: 1, status: 'done' });
    unsubscribe();
    runs.put({ id: 2, status: 'running' });
    expect(seen).toHaveLength(2);
    expect(seen[0]).not.toBe(seen[1]);
  });
});
