// A disk that stays full (or a lock held) past the end of a run: the ending waits in memory and is written once
// the file takes it, never lost, and whoever waits on the run is told it is not stored yet. Before, after a
// minute of retries the run stayed `running` in the file, became `interrupted` at the next start, and its exit
// code was lost while the CLI exited 0.
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempCore, type TempCore } from '../helpers/tempCore.js';

let harness: TempCore | null = null;
afterEach(async () => {
  await harness?.cleanup();
  harness = null;
});

describe('the end of a run while another process holds the database', () => {
  it('is kept in memory past the retry budget, said, and written once the file is free', async () => {
    // One second of retries instead of a minute, so the test need not wait out the real budget.
    harness = tempCore({ endingRetryMs: 1000 });
    const h = harness;
    const statuses: string[] = [];
    h.core.subscribe((event, payload) => {
      if (event === 'runs.onTelemetryStatus') statuses.push((payload as { message: string }).message);
    });
    // The run ends only once the lock is taken (the file `go` appears), however slow the machine.
    const go = path.join(h.dir, 'go');
    const script = 'for i in 1 2 3 4 5; do echo "step $i"; done; while [ ! -f "$0" ]; do sleep 0.05; done; exit 3';
    const run = h.core.startCommand({ adHoc: { command: ['sh', '-c', script, go], cwd: h.dir } });
    await expect.poll(() => h.core.store.runs.outputAfter(run.id, -1).length, { timeout: 10_000 }).toBeGreaterThan(0);
    // Another process takes the write lock and keeps it until the run's ending has been answered (at most 30 s).
    const other = new Database(h.dbPath);
    other.prepare('BEGIN IMMEDIATE').run();
    const release = () => {
      if (other.inTransaction) other.prepare('COMMIT').run();
      other.close();
    };
    const lockDeadline = setTimeout(release, 30_000);
    fs.writeFileSync(go, '');

    const ended = await h.core.waitForExit(run.id);
    // Answered while the lock is still held: not after it.
    expect(other.open).toBe(true);
    // Whoever waited learns how it ended, from memory...
    expect(ended).toMatchObject({ status: 'failed', exitCode: 3 });
    // ...and that the file does not have it yet.
    expect(h.core.runner.unstoredEndings()).toEqual([run.id]);
    expect(h.core.store.runs.get(run.id)!.status).toBe('running');
    expect(statuses.join('\n')).toMatch(/end of this run could not be written .*kept in memory/u);

    // The held ending is retried from a timer: no retry may hold the engine's thread for the busy timeout (5 s).
    const delay = monitorEventLoopDelay({ resolution: 20 });
    delay.enable();
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    delay.disable();
    expect(h.core.runner.unstoredEndings()).toEqual([run.id]);
    expect(delay.max / 1e6).toBeLessThan(1000);

    // The lock goes: the ending is written without anyone asking, exit code and all.
    clearTimeout(lockDeadline);
    if (other.open) release();
    await expect.poll(() => h.core.store.runs.get(run.id)!.status, { timeout: 15_000 }).toBe('failed');
    expect(h.core.store.runs.get(run.id)).toMatchObject({ exitCode: 3, exitClass: 'error' });
    expect(h.core.runner.unstoredEndings()).toEqual([]);
  }, 120_000);
});
