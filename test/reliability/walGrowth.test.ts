// The WAL file stays bounded however many small commits a run's output makes: with 64 KiB pages each commit of
// a few hundred bytes adds whole pages, and SQLite's default checkpoint (every 1,000 pages) let the WAL reach
// 64 MiB, 30 times the output, so freeing a few MB on a full disk did not last.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { tempCore, type TempCore } from '../helpers/tempCore.js';

let harness: TempCore | null = null;
afterEach(async () => {
  await harness?.cleanup();
  harness = null;
});

/** The bound the WAL is held to (WAL_LIMIT_BYTES in store/open.ts), with a commit's pages of slack. */
const WAL_BOUND_BYTES = 5 * 1024 * 1024;

describe('the write-ahead log', () => {
  it('stays under a few MiB through many small output commits, as a live run at ~30 KB/s makes them', async () => {
    harness = tempCore();
    const { core, dbPath } = harness;
    const run = core.store.runs.insert({
      workloadId: null,
      workloadName: 'trickle',
      command: ['x'],
      cwd: '/',
      config: {},
      env: {},
      startedAt: new Date(),
      enginePid: process.pid,
    });
    let largestWal = 0;
    // 400 commits of one 300-byte line each: what 40 s of a run printing a line every 100 ms commits.
    for (let seq = 0; seq < 400; seq++) {
      core.recording.output.append(run.id, seq, seq, Buffer.from(`step ${seq} loss 0.5 ${'x'.repeat(280)}\n`));
      await core.recording.output.flush();
      largestWal = Math.max(largestWal, fs.statSync(`${dbPath}-wal`).size);
    }
    expect(core.store.runs.get(run.id)!.outputBytes).toBeGreaterThan(100_000);
    expect(largestWal).toBeLessThan(WAL_BOUND_BYTES);
  }, 60_000);
});
