// Watches the engine's thread (this process's main thread, in a test) for long work: the most CPU time it spent between two turns of a 2 ms timer.

/**
 * Wall-clock gaps on a shared machine are mostly other processes taking the CPU; CPU time this thread spent
 * between two ticks is work it did without giving the event loop back. That is what keeps a live run's pty
 * unread, and it does not depend on how loaded the machine is.
 */
export class EngineThreadWatch {
  private last = cpuMs();
  private longest = 0;
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.timer = setInterval(() => {
      const now = cpuMs();
      this.longest = Math.max(this.longest, now - this.last);
      this.last = now;
    }, 2);
  }

  /** The most CPU time, in ms, the thread spent in one go since the watch began (or the last reset). */
  get longestTurnMs(): number {
    return Math.max(this.longest, cpuMs() - this.last);
  }

  reset(): void {
    this.last = cpuMs();
    this.longest = 0;
  }

  stop(): number {
    clearInterval(this.timer);
    return this.longestTurnMs;
  }
}

function cpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}
