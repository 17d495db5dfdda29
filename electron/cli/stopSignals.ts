// The CLI's stop signals, listened for before anything is applied or started: a signal in the first seconds is held until there is something to stop, never the CLI's death with GPU settings applied.

/** What each signal means for what the CLI is running: it is stopped cleanly, GPU settings put back, and the CLI exits. */
export const STOP_SIGNALS = {
  SIGINT: 'stopped by Ctrl-C (SIGINT)',
  SIGTERM: 'stopped by SIGTERM sent to tuning-bench',
  SIGHUP: 'stopped because the terminal closed (SIGHUP, e.g. a dropped SSH session); use nohup or tmux for runs that must outlive it',
} as const;

/**
 * Listens from its creation. Until `onStop` names what to stop, a signal aborts `signal` (a start under way checks
 * it, and puts back what it applied) and is kept; `onStop` then acts on it at once. Node's default for these
 * signals (exit at once) is never taken while this listens.
 */
export class StopSignals {
  private readonly controller = new AbortController();
  private target: ((reason: string) => void) | null = null;
  private pendingReason: string | null = null;
  private readonly listeners: Array<[NodeJS.Signals, () => void]>;

  constructor() {
    this.listeners = (Object.entries(STOP_SIGNALS) as Array<[NodeJS.Signals, string]>).map(([signal, reason]) => {
      const listener = () => this.receive(reason);
      process.on(signal, listener);
      return [signal, listener];
    });
  }

  /** Aborted by a signal that came before there was anything to stop (its reason is the abort's). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** From now on a signal does `stop`; one that came before does it at once. */
  onStop(stop: (reason: string) => void): void {
    this.target = stop;
    if (this.pendingReason !== null) stop(this.pendingReason);
  }

  dispose(): void {
    for (const [signal, listener] of this.listeners) process.off(signal, listener);
  }

  private receive(reason: string): void {
    if (this.target) return this.target(reason);
    this.pendingReason ??= reason;
    this.controller.abort(reason);
  }
}
