// A write refused by a busy or full file is retried with backoff until its budget runs out, on a clock the test moves.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../electron/core/clock.js';
import { BUSY_REPORT_AFTER_MS, nextRetryDelayMs, retryWrite, WriteRetry, type WriterStatus } from '../../../electron/core/store/writeFaults.js';

const sqliteError = (code: string, message: string) => Object.assign(new Error(message), { code });
const busy = () => sqliteError('SQLITE_BUSY', 'database is locked');

/** A write that fails with `fault` until the clock reads `healedAtMs`, noting the monotonic time of each try. */
function flakyWrite(clock: ManualClock, fault: () => Error, healedAtMs: number) {
  const tries: number[] = [];
  return {
    tries,
    write: () => {
      tries.push(clock.monotonicMs());
      if (clock.monotonicMs() < healedAtMs) throw fault();
      return 'stored';
    },
  };
}

describe('retryWrite', () => {
  it('backs off 250 ms, doubling to at most 5 s, and stores once the file is free', async () => {
    const clock = new ManualClock();
    const { tries, write } = flakyWrite(clock, busy, 9_000);
    const faults: string[] = [];
    const stored = retryWrite(write, (message) => faults.push(message), { clock });
    await clock.advanceAsync(20_000);
    await expect(stored).resolves.toBe('stored');
    expect(tries).toEqual([0, 250, 750, 1750, 3750, 7750, 12750]);
    expect(faults).toHaveLength(6);
    expect(faults[0]).toMatch(/Another process is holding the database/u);
    expect([1, 2, 3, 4, 5, 6, 7].map(nextRetryDelayMs)).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000]);
  });

  it('gives up with the fault itself once the budget is spent', async () => {
    const clock = new ManualClock();
    const { tries, write } = flakyWrite(clock, () => sqliteError('SQLITE_FULL', 'database or disk is full'), Infinity);
    const stored = retryWrite(write, () => undefined, { clock, budgetMs: 10_000 });
    const outcome = stored.then(
      () => 'stored',
      (error: unknown) => (error as { code?: string }).code,
    );
    await clock.advanceAsync(60_000);
    expect(await outcome).toBe('SQLITE_FULL');
    // Tries at 0, 0.25, 0.75, 1.75, 3.75, 7.75 s, then 12.75 s, which is past the 10 s budget.
    expect(tries).toEqual([0, 250, 750, 1750, 3750, 7750, 12750]);
  });

  it('does not wait out a wall-clock step: the deadline is monotonic', async () => {
    const clock = new ManualClock();
    const { tries, write } = flakyWrite(clock, busy, Infinity);
    const outcome = retryWrite(write, () => undefined, { clock, budgetMs: 1_000 }).catch(() => 'gave up');
    clock.setWall(new Date(clock.wallMs() + 3_600_000));
    await clock.advanceAsync(5_000);
    expect(await outcome).toBe('gave up');
    expect(tries).toEqual([0, 250, 750, 1750]);
  });

  it('throws any other fault at once, without waiting', async () => {
    const clock = new ManualClock();
    const { tries, write } = flakyWrite(clock, () => sqliteError('SQLITE_CONSTRAINT', 'UNIQUE constraint failed'), Infinity);
    await expect(retryWrite(write, () => undefined, { clock })).rejects.toThrow(/UNIQUE/u);
    expect(tries).toEqual([0]);
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('WriteRetry, the write policy of every batching connection', () => {
  const full = () => sqliteError('SQLITE_FULL', 'database or disk is full');

  function policy() {
    const clock = new ManualClock();
    const told: WriterStatus[] = [];
    const retry = new WriteRetry(
      () => clock.monotonicMs(),
      (status) => told.push(status),
      '/data/runs.db',
    );
    return { clock, told, retry };
  }

  it('says a full disk at once, once, with the file; backs off doubling; resumes at the first commit that succeeds', () => {
    const { clock, told, retry } = policy();
    retry.failed(full(), 3);
    expect(told).toEqual([expect.objectContaining({ state: 'paused', fault: 'full', pendingWrites: 3 })]);
    expect((told[0] as { message: string }).message).toContain('/data/runs.db');
    expect(retry.diskFull).toBe(true);
    expect(retry.retryAt).toBe(clock.monotonicMs() + nextRetryDelayMs(1));
    expect(retry.mayRetry()).toBe(false);
    clock.advance(nextRetryDelayMs(1));
    expect(retry.mayRetry()).toBe(true);
    retry.failed(full(), 4);
    expect(retry.retryAt - clock.monotonicMs()).toBe(2 * nextRetryDelayMs(1));
    expect(told).toHaveLength(1);
    retry.succeeded();
    expect(told.at(-1)).toEqual({ state: 'writing' });
    expect([retry.retryAt, retry.lastFault, retry.diskFull]).toEqual([0, null, false]);
    retry.succeeded();
    expect(told).toHaveLength(2);
  });

  it("keeps a busy file's short turns quiet, and says it once it has lasted", () => {
    const { clock, told, retry } = policy();
    retry.failed(busy(), 1);
    clock.advance(BUSY_REPORT_AFTER_MS - 1);
    retry.failed(busy(), 1);
    expect(told).toEqual([]);
    expect(retry.lastFault).toBe('busy');
    clock.advance(1);
    retry.failed(busy(), 2);
    expect(told).toEqual([expect.objectContaining({ state: 'paused', fault: 'busy' })]);
    // Another fault while paused is said as the new fault.
    retry.failed(full(), 2);
    expect(told.map((status) => (status.state === 'paused' ? status.fault : status.state))).toEqual(['busy', 'full']);
  });
});
