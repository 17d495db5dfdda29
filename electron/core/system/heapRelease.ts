// Hands a thread's idle JavaScript heap back to the system between two phases of long work (an import's parse, then
// its summary), so the second does not stack its memory on top of the first's.
import v8 from 'node:v8';
import vm from 'node:vm';

/** V8's collection hook with the options Node passes through (`--expose-gc`): 'last-resort' also shrinks the young generation. */
type CollectGarbage = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

let collect: CollectGarbage | null | undefined;

/**
 * V8 grows a thread's young generation to 64 MiB while it parses a dense log (a stream of short-lived samples), and
 * keeps it resident after: no ordinary collection shrinks it. A last-resort collection does (to 1 MiB): about 17 ms,
 * and RSS falls by the young generation's pages. `--expose-gc` is set only to reach that hook from a fresh context, as
 * test runners measuring leaks do; it adds nothing to the heap or to ordinary collections.
 * Returns whether a collection was made (false where the hook cannot be had, an embedder refusing the flag).
 */
export function releaseIdleHeap(): boolean {
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
