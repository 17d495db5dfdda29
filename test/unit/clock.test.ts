// The injected clock: a ManualClock moves time by hand as Node's timers would, and a long timeout chains on it.
import { describe, expect, it } from 'vitest';
import { ManualClock, MAX_TIMER_DELAY_MS, systemClock } from '../../electron/core/clock.js';
import { setLongTimeout } from '../../electron/core/system/longTimer.js';

describe('ManualClock', () => {
  it('stands still until advanced, then fires what fell due in due order, each at its own time', () => {
    const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
    const fired: Array<[string, number, string]> = [];
    const note = (name: string) => () => fired.push([name, clock.monotonicMs(), clock.now().toISOString()]);
    clock.setTimeout(note('late'), 300);
    clock.setTimeout(note('early'), 100);
    clock.setTimeout(note('tie'), 100);
    clock.setTimeout(note('beyond'), 1000);
    expect(fired).toEqual([]);
    clock.advance(300);
    expect(fired).toEqual([
      ['early', 100, '2026-03-01T12:00:00.100Z'],
      ['tie', 100, '2026-03-01T12:00:00.100Z'],
      ['late', 300, '2026-03-01T12:00:00.300Z'],
    ]);
    expect(clock.pendingTimers).toBe(1);
    expect(clock.wallMs()).toBe(Date.parse('2026-03-01T12:00:00.300Z'));
  });

  it('repeats an interval until it is cancelled, and a cancelled timeout never fires', () => {
    const clock = new ManualClock();
    let ticks = 0;
    let timeouts = 0;
    const interval = clock.setInterval(() => (ticks += 1), 250);
    clock.setTimeout(() => (timeouts += 1), 500).cancel();
    clock.advance(1000);
    expect(ticks).toBe(4);
    interval.cancel();
    clock.advance(1000);
    expect(ticks).toBe(4);
    expect(timeouts).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('steps the wall clock alone: the monotonic reading and the timers stay where they were', () => {
    const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
    let fired = 0;
    clock.setTimeout(() => (fired += 1), 1000);
    clock.setWall(new Date('2026-03-01T13:00:00Z'));
    expect(fired).toBe(0);
    expect(clock.monotonicMs()).toBe(0);
    clock.advance(1000);
    expect(fired).toBe(1);
    expect(clock.now().toISOString()).toBe('2026-03-01T13:00:01.000Z');
  });

  it('reads a delay as Node does: past 2^31-1 ms, below 1 ms or not a number, it is 1 ms', () => {
    const clock = new ManualClock();
    const firedAt: number[] = [];
    for (const delay of [MAX_TIMER_DELAY_MS + 1, 0, Number.NaN]) clock.setTimeout(() => firedAt.push(clock.monotonicMs()), delay);
    clock.advance(1);
    expect(firedAt).toEqual([1, 1, 1]);
  });

  it('advanceAsync drives code that awaits one timer and then sets the next', async () => {
    const clock = new ManualClock();
    const seen: number[] = [];
    const loop = (async () => {
      for (let i = 0; i < 3; i += 1) {
        await new Promise<void>((resolve) => clock.setTimeout(resolve, 100));
        seen.push(clock.monotonicMs());
      }
    })();
    await clock.advanceAsync(1000);
    await loop;
    expect(seen).toEqual([100, 200, 300]);
    expect(clock.monotonicMs()).toBe(1000);
  });
});

describe('systemClock', () => {
  it('reads the wall clock and a monotonic one, and its timers fire', async () => {
    const before = Date.now();
    expect(Math.abs(systemClock.wallMs() - before)).toBeLessThan(1000);
    expect(Math.abs(systemClock.now().getTime() - before)).toBeLessThan(1000);
    const start = systemClock.monotonicMs();
    await new Promise<void>((resolve) => systemClock.setTimeout(resolve, 5, { background: true }));
    expect(systemClock.monotonicMs()).toBeGreaterThanOrEqual(start + 4);
  });
});

describe('setLongTimeout', () => {
  it('is re-armed in steps Node honours, and fires once when due', () => {
    // On a ManualClock, as in Node, a single delay past MAX_TIMER_DELAY_MS would fire after 1 ms.
    const clock = new ManualClock();
    let fired = 0;
    setLongTimeout(() => (fired += 1), 3 * MAX_TIMER_DELAY_MS + 5, clock);
    clock.advance(1);
    expect(fired).toBe(0);
    clock.advance(3 * MAX_TIMER_DELAY_MS + 3);
    expect(fired).toBe(0);
    clock.advance(1);
    expect(fired).toBe(1);
    clock.advance(4 * MAX_TIMER_DELAY_MS);
    expect(fired).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('is due on the monotonic reading: a wall-clock step does not fire it early', () => {
    const clock = new ManualClock();
    let fired = 0;
    setLongTimeout(() => (fired += 1), 2 * MAX_TIMER_DELAY_MS, clock);
    clock.setWall(new Date(clock.wallMs() + 3 * MAX_TIMER_DELAY_MS));
    // Past the first link: a due time on the wall clock would now look overdue and fire 1 ms later.
    clock.advance(MAX_TIMER_DELAY_MS + 1);
    expect(fired).toBe(0);
    clock.advance(MAX_TIMER_DELAY_MS - 1);
    expect(fired).toBe(1);
  });

  it('cancels between links of the chain', () => {
    const clock = new ManualClock();
    let fired = 0;
    const timer = setLongTimeout(() => (fired += 1), 2 * MAX_TIMER_DELAY_MS, clock);
    clock.advance(MAX_TIMER_DELAY_MS + 1);
    timer.cancel();
    clock.advance(2 * MAX_TIMER_DELAY_MS);
    expect(fired).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('refuses a delay that is not a finite number of milliseconds', () => {
    expect(() => setLongTimeout(() => undefined, -1, new ManualClock())).toThrow(RangeError);
    expect(() => setLongTimeout(() => undefined, Number.POSITIVE_INFINITY, new ManualClock())).toThrow(RangeError);
  });
});
