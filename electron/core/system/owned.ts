// Resources owned together and released once each, last registered first: one list, whichever way the owner ends.

/** One resource in an Owned: released early through it, or with the rest. */
export interface Held {
  release(): void;
  readonly released: boolean;
}

interface Entry {
  what: string;
  release: () => void;
  released: boolean;
}

export class Owned {
  private readonly entries: Entry[] = [];

  /** `onFault` hears a release that threw (what, and the error); the others are still released. */
  constructor(private readonly onFault: (what: string, error: unknown) => void) {}

  /** Registers a resource by how it is released; the handle lets it go early, once. */
  hold(what: string, release: () => void): Held {
    const entry: Entry = { what, release, released: false };
    this.entries.push(entry);
    const releaseOne = () => this.releaseOne(entry);
    return {
      release: releaseOne,
      get released() {
        return entry.released;
      },
    };
  }

  /** Everything not yet released, the last registered first. */
  releaseAll(): void {
    for (const entry of [...this.entries].reverse()) this.releaseOne(entry);
  }

  private releaseOne(entry: Entry): void {
    if (entry.released) return;
    entry.released = true;
    try {
      entry.release();
    } catch (error) {
      this.onFault(entry.what, error);
    }
  }
}
