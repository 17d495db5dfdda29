// The engine's one source of time: wall-clock readings for what is recorded, a monotonic one for waits, and timers.
//
// Why injected: a test moves time by hand (a watchdog's limit, a retry deadline, a month-long timeout) instead
// of sleeping through it, and everything the engine records takes its time from the same place.
//
// Two readings, on purpose:
// - `now()` / `wallMs()`: the wall clock, for dates (a run's start and end, a row's created_at) and for times
//   on a run's time axis (a sample's `tMs`, measured from the run's recorded start), so output, telemetry and
//   the metrics channel (whose lines carry the trainer's own epoch stamps) line up with each other and with
//   the start. A monotonic reading would drift from those stamps after a clock step.
// - `monotonicMs()`: for durations (a watchdog, a retry deadline, a rate's interval, a long timeout's due
//   time, how long a sweep waited for a cool GPU): a wall-clock step (NTP, a resumed laptop) cannot stretch
//   or shrink them. Node's own timers run on a monotonic clock too, so a due time computed from it agrees.

/** Largest delay setTimeout honours (a signed 32-bit millisecond count, per the HTML timers spec Node follows). */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

export interface Timer {
  cancel(): void;
}

export interface TimerOptions {
  /** A timer that does not keep the process alive by itself (Node's `unref`): samplers, pollers, watchdogs. */
  background?: boolean;
}

export interface Clock {
  /** Wall-clock time, for the dates that are recorded. */
  now(): Date;
  /** The wall clock in epoch milliseconds: a time on a run's axis is one of these minus the run's start. */
  wallMs(): number;
  /** Milliseconds from an arbitrary origin that only moves forward: for durations (waits, deadlines, rates). */
  monotonicMs(): number;
  /** Calls `fire` once after `delayMs` (as Node does: a delay above MAX_TIMER_DELAY_MS, below 1 or NaN is 1 ms). */
  setTimeout(fire: () => void, delayMs: number, options?: TimerOptions): Timer;
  /** Calls `fire` every `intervalMs` until cancelled. */
  setInterval(fire: () => void, intervalMs: number, options?: TimerOptions): Timer;
}

/** The real clock: Date for the wall, performance.now() for the monotonic reading, Node's timers. */
export const systemClock: Clock = {
  now: () => new Date(),
  wallMs: () => Date.now(),
  monotonicMs: () => performance.now(),
  setTimeout(fire, delayMs, options = {}) {
    const handle = setTimeout(fire, delayMs);
    if (options.background) handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
  setInterval(fire, intervalMs, options = {}) {
    const handle = setInterval(fire, intervalMs);
    if (options.background) handle.unref();
    return { cancel: () => clearInterval(handle) };
  },
};

interface ManualTimer {
  id: number;
  dueMs: number;
  /** Null for a one-shot timer. */
  intervalMs: number | null;
  fire: () => void;
}

/**
 * A clock for tests: time stands still until `advance` moves it, firing the timers that fall due on the way,
 * in due order, each with the clock reading its own due time. `setWall` steps the wall clock alone, as NTP or
 * a resumed laptop would, leaving the monotonic reading and the timers where they were.
 */
export class ManualClock implements Clock {
  private monotonic = 0;
  private wall: number;
  private nextId = 1;
  private timers: ManualTimer[] = [];

  constructor(start: Date = new Date('2026-01-01T00:00:00Z')) {
    this.wall = start.getTime();
  }

  now(): Date {
    return new Date(this.wall);
  }

  wallMs(): number {
    return this.wall;
  }

  monotonicMs(): number {
    return this.monotonic;
  }

  setTimeout(fire: () => void, delayMs: number): Timer {
    return this.schedule(fire, nodeDelay(delayMs), null);
  }

  setInterval(fire: () => void, intervalMs: number): Timer {
    const every = nodeDelay(intervalMs);
    return this.schedule(fire, every, every);
  }

  /** Timers not yet fired or cancelled (an interval counts until cancelled). */
  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Steps the wall clock to `to` without moving the monotonic reading or firing anything. */
  setWall(to: Date): void {
    this.wall = to.getTime();
  }

  /** Moves both readings forward by `ms`, firing every timer due by then, synchronously. */
  advance(ms: number): void {
    const target = this.target(ms);
    for (let timer = this.nextDue(target); timer; timer = this.nextDue(target)) this.fire(timer);
    this.moveTo(target);
  }

  /**
   * As `advance`, but lets promise continuations run after each timer (one macrotask turn, no real waiting),
   * so code that awaits a timer and then sets the next one (a retry loop) is driven all the way.
   */
  async advanceAsync(ms: number): Promise<void> {
    const target = this.target(ms);
    await settle();
    for (let timer = this.nextDue(target); timer; timer = this.nextDue(target)) {
      this.fire(timer);
      await settle();
    }
    this.moveTo(target);
  }

  private target(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`time moves forward by a finite number of ms >= 0, got ${ms}`);
    return this.monotonic + ms;
  }

  private schedule(fire: () => void, delayMs: number, intervalMs: number | null): Timer {
    const timer: ManualTimer = { id: this.nextId++, dueMs: this.monotonic + delayMs, intervalMs, fire };
    this.timers.push(timer);
    return { cancel: () => (this.timers = this.timers.filter((t) => t !== timer)) };
  }

  private nextDue(target: number): ManualTimer | undefined {
    let next: ManualTimer | undefined;
    for (const timer of this.timers) {
      if (timer.dueMs > target) continue;
      if (!next || timer.dueMs < next.dueMs || (timer.dueMs === next.dueMs && timer.id < next.id)) next = timer;
    }
    return next;
  }

  private fire(timer: ManualTimer): void {
    this.moveTo(timer.dueMs);
    if (timer.intervalMs === null) this.timers = this.timers.filter((t) => t !== timer);
    else timer.dueMs += timer.intervalMs;
    timer.fire();
  }

  private moveTo(monotonic: number): void {
    if (monotonic <= this.monotonic) return;
    this.wall += monotonic - this.monotonic;
    this.monotonic = monotonic;
  }
}

/** Node's reading of a delay: outside 1..MAX_TIMER_DELAY_MS (or not a number) it is 1 ms, with a warning. */
function nodeDelay(delayMs: number): number {
  return Number.isFinite(delayMs) && delayMs >= 1 && delayMs <= MAX_TIMER_DELAY_MS ? delayMs : 1;
}

/** One turn of the event loop: every queued promise continuation has run by the time it resolves. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

// Real time, whatever clock the engine was given: the few waits on something outside the engine (a process dying,
// a file lock another process holds, a pty's next bytes, a regex on a worker), where a test's ManualClock has
// nothing to say about when they are due. These and the worker threads (which no clock crosses) are the only
// users of Node's timers in electron/core; ESLint refuses them anywhere else (REAL_TIME_FILES in eslint.config.js).

/** A pause of real time: a process's exit settling, another process's write lock, a server's recovery. */
export function realDelay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `fire` after `ms` of real time: the pty output's merge window, a regex's time limit, a process's answer. */
export function realTimeout(fire: () => void, ms: number, options: TimerOptions = {}): Timer {
  const handle = setTimeout(fire, ms);
  if (options.background) handle.unref();
  return { cancel: () => clearTimeout(handle) };
}

/** `fire` every `ms` of real time: sampling a run's process tree, which lives on real time. */
export function realInterval(fire: () => void, ms: number, options: TimerOptions = {}): Timer {
  const handle = setInterval(fire, ms);
  if (options.background) handle.unref();
  return { cancel: () => clearInterval(handle) };
}
