// Hands a thread's idle JavaScript heap back to the system between two phases of long work (an import's parse, then
// its summary), so the second does not stack its memory on top of the first's.
import v8 from 'node:v8';
import vm from 'node:vm';

/** V8's collection hook with the options Node passes through (`--expose-gc`): 'last-resort' also shrinks the young generation. */
type CollectGarbage = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

let collect: CollectGarbage | null | undefined;

/**
 * Below this resident size the process holds too little for the release to matter (a short run's CLI peaks at
 * 125-140 MiB; a dense log's at 220-300), and each collection is a pause of 17-55 ms (measured) on the way to the
 * run's summary: it is skipped. The threads share the figure: it is the process's, as the bound on it is.
 */
export const RELEASE_ABOVE_RSS_BYTES = 160 * 1024 * 1024;

/**
 * V8 grows a thread's young generation to 64 MiB while it parses a dense log (a stream of short-lived samples), and
 * keeps it resident after: no ordinary collection shrinks it. A last-resort collection does (to 1 MiB): about 17 ms,
 * and RSS falls by the young generation's pages. `--expose-gc` is set only to reach that hook from a fresh context, as
 * test runners measuring leaks do; it adds nothing to the heap or to ordinary collections.
 * Returns whether a collection was made (false in a process too small for it to matter, or where the hook cannot be
 * had, an embedder refusing the flag).
 */
export function releaseIdleHeap(aboveRssBytes: number = RELEASE_ABOVE_RSS_BYTES): boolean {
  if (process.memoryUsage.rss() < aboveRssBytes) return false;
  if (collect === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc');
      const hook: unknown = vm.runInNewContext('gc');
      collect = typeof hook === 'function' ? (hook as CollectGarbage) : null;
    } catch {
      collect = null;
    }
  }
  if (collect === null) return false;
  collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return true;
}
