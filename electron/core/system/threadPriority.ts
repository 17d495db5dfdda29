// Lowers the calling thread's CPU priority: work that may lag (parsing, summaries of stored runs) yields the cores to the threads that must not (the pty reader, the writer of the bytes).
import os from 'node:os';

/**
 * A nice value of 10: on a busy box (two cores, a training flooding its terminal, a client flooding the API) the
 * parser took a core the engine's thread needed to read the pty, and a live run's output waited for seconds. Linux
 * keeps the nice value per thread, so `setPriority(0, …)` from a worker lowers only that worker.
 */
const BACKGROUND_NICE = 10;

export function runInBackground(): void {
  try {
    if (os.getPriority(0) < BACKGROUND_NICE) os.setPriority(0, BACKGROUND_NICE);
  } catch {
    // Not allowed here (a sandbox): the thread runs at the engine's priority, as before.
  }
}
