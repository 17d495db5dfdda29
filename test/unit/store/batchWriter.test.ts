// The batch writer retries a refused batch from its timer with backoff, on a clock the test moves.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../electron/core/clock.js';
import { BatchWriter, FLUSH_INTERVAL_MS } from '../../../electron/core/store/batchWriter.js';
import type { WriterStatus } from '../../../electron/core/store/writeFaults.js';
import { openDatabase, type Db } from '../../../electron/core/store/open.js';
import { makeTempDir } from '../../helpers/tempCore.js';

let dir: string | null = null;
let db: Db | null = null;
afterEach(() => {
  db?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  db = null;
  dir = null;
});

describe('BatchWriter on a manual clock', () => {
  it('retries a busy file after 250, 500, 1000, 2000 ms, says it paused once it has refused writes for a second, and resumes once the file is free', () => {
    dir = makeTempDir();
    db = openDatabase(path.join(dir, 'runs.db'));
    db.exec('CREATE TABLE t (x)');
    const clock = new ManualClock();
    const writer = new BatchWriter(db, FLUSH_INTERVAL_MS, clock);
    const statuses: WriterStatus['state'][] = [];
    writer.onStatus((status) => statuses.push(status.state));
    let busy = true;
    const tries: number[] = [];
    writer.enqueue(() => {
      tries.push(clock.monotonicMs());
      if (busy) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      db!.prepare('INSERT INTO t VALUES (1)').run();
    });

    expect(writer.flush()).toBe(false);
    clock.advance(1000);
    expect(tries).toEqual([0, 250, 750]);
    // Under a second of turns at the lock (the engine's own threads take them) is not a pause worth telling.
    expect(statuses).toEqual([]);
    clock.advance(750);
    expect(tries).toEqual([0, 250, 750, 1750]);
    expect(statuses).toEqual(['paused']);
    busy = false;
    clock.advance(1999);
    expect(tries).toEqual([0, 250, 750, 1750]);
    clock.advance(1);
    expect(tries).toEqual([0, 250, 750, 1750, 3750]);
    expect(db.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(1);
    expect(statuses).toEqual(['paused', 'writing']);
    expect(writer.close()).toBe(0);
  });
});
