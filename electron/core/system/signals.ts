// Signal numbers as the kernel reports them, by name: a run's end is told in names (SIGKILL), not numbers.
import os from 'node:os';

const SIGNAL_NAMES = new Map<number, string>(Object.entries(os.constants.signals).map(([name, number]) => [number, name]));

/** `SIGKILL` for 9; undefined for a number this system has no signal for. */
export function signalName(signalNumber: number): string | undefined {
  return SIGNAL_NAMES.get(signalNumber);
}
