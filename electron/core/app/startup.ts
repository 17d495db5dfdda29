// What the engine has opened while it starts, closed again (last first) if a later step fails.
import { explainCorruption } from '../store/open.js';

/**
 * A file SQLite could open but not read (a damaged page met by recovery, a sweep or the runs list) must end the
 * process with a clear message, never leave the writer threads keeping it alive for good.
 */
export class Startup {
  private readonly closers: Array<() => unknown> = [];

  constructor(private readonly dbPath: string) {}

  /** `close` runs if a later step fails. */
  opened<T>(resource: T, close: (resource: T) => unknown): T {
    this.closers.push(() => close(resource));
    return resource;
  }

  /** A step of the start: when it throws, everything opened so far closes and the error names the file. */
  step<T>(step: () => T): T {
    try {
      return step();
    } catch (error) {
      const closers = this.closers.reverse();
      void closers.reduce<Promise<unknown>>((previous, close) => previous.then(close).catch(() => undefined), Promise.resolve());
      throw explainCorruption(error, this.dbPath);
    }
  }
}
