// A timeout of any length: Node clamps a delay above 2^31-1 ms (about 24.8 days) to 1 ms, so longer ones are chained.
import { MAX_TIMER_DELAY_MS, systemClock, type Clock, type Timer } from '../clock.js';

export { MAX_TIMER_DELAY_MS };

export type LongTimer = Timer;

/**
 * Calls `fire` once after `delayMs` (any finite length), re-arming in steps of at most MAX_TIMER_DELAY_MS. The
 * due time is on the monotonic reading, so a wall-clock step during a month-long wait neither fires it early nor late.
 */
export function setLongTimeout(fire: () => void, delayMs: number, clock: Clock = systemClock): LongTimer {
  if (!Number.isFinite(delayMs) || delayMs < 0) throw new RangeError(`a timeout is a finite number of milliseconds >= 0, got ${delayMs}`);
  const due = clock.monotonicMs() + delayMs;
  let timer: Timer;
  const arm = () => {
    const left = due - clock.monotonicMs();
    timer = left > MAX_TIMER_DELAY_MS ? clock.setTimeout(arm, MAX_TIMER_DELAY_MS) : clock.setTimeout(fire, Math.max(0, left));
  };
  arm();
  return { cancel: () => timer.cancel() };
}
