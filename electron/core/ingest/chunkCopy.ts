// A chunk of output copied to another thread: the copy's memory moves with the message, so its size is taken first.
import type { MessagePort } from 'node:worker_threads';

/**
 * Sends a copy of `data` (the original stays with the caller, who stores it) as `message(copy)`, the copy's memory
 * moved, not cloned; returns the bytes sent. After the move the copy reads as empty (its buffer is detached), so a
 * size taken afterwards is 0: that is how the parser's backlog once went uncounted and grew to 150 MiB and more.
 */
export function sendChunkCopy<Message>(port: Pick<MessagePort, 'postMessage'>, data: Uint8Array, message: (copy: Uint8Array) => Message): number {
  const copy = new Uint8Array(data);
  const bytes = copy.byteLength;
  port.postMessage(message(copy), [copy.buffer]);
  return bytes;
}
