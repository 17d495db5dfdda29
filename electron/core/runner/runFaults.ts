// Faults in the runner's own bookkeeping, shown on the run's page and never thrown into a timer or the event loop; and the work runs leave behind.
import type { EventHub } from '../events.js';

export class RunFaults {
  /** Work a run left running after it ended (restoring a never-started run's GPU settings): awaited by settled(). */
  private readonly background = new Set<Promise<void>>();

  constructor(private readonly events: EventHub) {}

  /** A fault in the engine's own bookkeeping: shown on the run's page, never thrown into a timer or the event loop. */
  report(runId: number, what: string, error: unknown): void {
    const message = `${what}: ${error instanceof Error ? error.message : String(error)}`;
    console.error(`tuning-bench: run ${runId}: ${message}`);
    this.events.emit('runs.onTelemetryStatus', { runId, level: 'error', message });
  }

  /**
   * Wraps a callback that runs from a timer or a child's event: a fault is reported (once per kind and run),
   * never thrown into the event loop, where it would end the process and every run it records.
   */
  guarded<A extends unknown[]>(runId: number, what: string, callback: (...args: A) => void): (...args: A) => void {
    let reported = false;
    return (...args: A) => {
      try {
        callback(...args);
      } catch (error) {
        if (reported) return;
        reported = true;
        this.report(runId, what, error);
      }
    };
  }

  /** Keeps a promise a run left behind until it settles, so settled() waits for it and its failure is reported, not thrown. */
  track(runId: number, work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => this.report(runId, 'finishing the run failed', error));
    this.background.add(tracked);
    void tracked.finally(() => this.background.delete(tracked));
  }

  /** Resolves once everything tracked so far has settled. */
  async settled(): Promise<void> {
    await Promise.all([...this.background]);
  }
}
