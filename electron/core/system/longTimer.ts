// A timeout of any length: Node clamps a delay above 2^31-1 ms (about 24.8 days) to 1 ms, so longer ones are chained.

/** Largest delay setTimeout honours (a signed 32-bit millisecond count, per the HTML timers spec Node follows). */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

export interface LongTimer {
  cancel(): void;
}

/** The clock and timers, injected so a test can drive months in microseconds. */
export interface TimerClock {
  now(): number;
  setTimeout(fire: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

const SYSTEM_CLOCK: TimerClock = {
  now: () => Date.now(),
  setTimeout: (fire, delayMs) => setTimeout(fire, delayMs),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Calls `fire` once after `delayMs` (any finite length), re-arming in steps of at most MAX_TIMER_DELAY_MS. */
export function setLongTimeout(fire: () => void, delayMs: number, clock: TimerClock = SYSTEM_CLOCK): LongTimer {
  if (!Number.isFinite(delayMs) || delayMs < 0) throw new RangeError(`a timeout is a finite number of milliseconds >= 0, got ${delayMs}`);
  const due = clock.now() + delayMs;
  let handle: unknown;
  const arm = () => {
    const left = due - clock.now();
    handle = left > MAX_TIMER_DELAY_MS ? clock.setTimeout(arm, MAX_TIMER_DELAY_MS) : clock.setTimeout(fire, Math.max(0, left));
  };
  arm();
  return { cancel: () => clock.clearTimeout(handle) };
}
