// Frees memory V8 holds for buffers nobody uses any more, when a read churns through them faster than V8 looks.
//
// SQLite hands each BLOB to JavaScript as a new Buffer: its bytes live outside V8's heap, behind a wrapper of a few
// dozen bytes. A long read of sample blocks (a run's summary, its charts, a reparse) makes little else, so V8's young
// generation fills slowly and no collection runs while tens of megabytes of blocks already read wait to be freed:
// a 1 M-step run's summary peaked 48 MiB higher for it (bench/dense.ts, docs/performance.md). A young-generation
// collection every few megabytes read frees them; it costs well under a millisecond, since almost nothing survives.
import v8 from 'node:v8';
import vm from 'node:vm';

type Collect = (options: { type: 'minor' | 'major' }) => void;

/** V8's own collector, taken once; null where it is not taken (nothing is collected early then). */
let collector: Collect | null | undefined;

function youngCollector(): Collect | null {
  if (collector !== undefined) return collector;
  // Node leaves V8's flags open after start; a runtime that froze them would abort on the flag, not throw, so inside
  // Electron (not tested here: no Electron binary on the build machines) the collector is not taken.
  if (process.versions.electron !== undefined) return (collector = null);
  try {
    // Node's documented way to reach the collector without starting the process with --expose-gc.
    v8.setFlagsFromString('--expose-gc');
    collector = vm.runInNewContext('gc') as Collect;
  } catch {
    collector = null;
  }
  return collector;
}

/** Counts bytes handed out as Buffers the caller drops soon after, and collects the young generation every `everyBytes`. */
export class ExternalChurn {
  private sinceCollection = 0;

  constructor(private readonly everyBytes: number) {}

  note(bytes: number): void {
    this.sinceCollection += bytes;
    if (this.sinceCollection < this.everyBytes) return;
    this.sinceCollection = 0;
    youngCollector()?.({ type: 'minor' });
  }
}
