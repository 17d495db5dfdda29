// Input the engine's thread takes between pieces of long work, without waiting for the event loop: live runs' terminals.

/**
 * A reader of one source that reads only what is there now (never blocks) and hands it on as its own event would.
 * Returns false once the source is gone, so it is dropped.
 */
export type WaitingInputReader = () => boolean;

const readers = new Set<WaitingInputReader>();

/**
 * How often, at most, long work stops to read: each read of an empty terminal is one system call (a few µs), and a
 * terminal holds only a few KB, so a 4 MB/s flood needs reading about every millisecond to never fill it.
 */
const READ_EVERY_MS = 0.25;
let lastReadAt = 0;

/** Adds a source; the returned function removes it. */
export function addWaitingInputReader(reader: WaitingInputReader): () => void {
  readers.add(reader);
  return () => readers.delete(reader);
}

/**
 * Reads every source once, if the last read was a while ago. Long work on the engine's thread (a burst of calls, a
 * download) calls it between its pieces: yielding to the event loop every few ms read a terminal too seldom, and a
 * training writing a flood waited on its terminal for most of a burst (its pace fell to 5-20 %).
 */
export function readWaitingInput(): void {
  if (readers.size === 0) return;
  const now = performance.now();
  if (now - lastReadAt < READ_EVERY_MS) return;
  lastReadAt = now;
  for (const reader of readers) if (!reader()) readers.delete(reader);
}
