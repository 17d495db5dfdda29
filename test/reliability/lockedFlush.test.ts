// Another process holding the file's write lock must not hold the engine's thread: before, a flush (a log download's
// first step, an import, a run's end) waited inside SQLite for the whole busy timeout (5 s, then again), and a live
// run's terminal went unread that long (the soak saw 10 s).
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../electron/core/store/store.js';
import { makeTempDir } from '../helpers/tempCore.js';

let dir: string;
let store: Store | null = null;
afterEach(async () => {
  await store?.close();
  store = null;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The longest the event loop went without a turn while `work` ran (a 5 ms ticker's longest gap). */
async function longestTurnDuring(work: () => Promise<void>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(ticker);
  }
  return Math.max(longest, performance.now() - last);
}

describe('a flush while another connection holds the write lock', () => {
  it('waits for the lock between short tries, giving the event loop its turns, and commits once it is free', async () => {
    dir = makeTempDir('tb-locked-flush-');
    const file = path.join(dir, 'runs.db');
    store = new Store(file);
    store.db.exec('CREATE TABLE probe (x)');
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    let released = false;
    const release = setTimeout(() => {
      holder.exec('COMMIT');
      released = true;
    }, 1500);
    // A write queued on the engine's connection, as a telemetry sample is.
    store.writer.enqueue(() => store!.db.prepare("INSERT INTO probe (x) VALUES ('queued')").run());

    const longest = await longestTurnDuring(() => store!.flush());
    clearTimeout(release);
    holder.close();

    expect(released).toBe(true);
    expect(longest).toBeLessThan(250);
    expect(store.db.prepare('SELECT x FROM probe').all()).toEqual([{ x: 'queued' }]);
  }, 30_000);
});
