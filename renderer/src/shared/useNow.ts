// A clock that ticks only while something on screen needs it (a running run's duration).
import { useEffect, useState } from 'react';

/** Once a second: durations are shown to the second. */
const TICK_MS = 1000;

export function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}
