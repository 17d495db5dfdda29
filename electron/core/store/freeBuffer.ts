// Frees a typed array's memory the moment its owner is done with it, instead of whenever its thread next collects.
/**
 * Frees a buffer's memory now, where this thread is done with it: a chunk stored, columns committed. Left to the
 * collector, such buffers pile up as garbage: V8 collects for them only after 64 MiB more external memory an isolate,
 * and each of the output path's threads was holding tens of MiB of them (a dense run's peak). Detaching the buffer
 * (ArrayBuffer.prototype.transfer to length 0) drops its memory at once. Only a view over a whole buffer of its own:
 * one sharing a larger buffer (a pool's slice, a subarray) is left to the collector, since others may read it.
 */
export function freeBuffer(view: ArrayBufferView): void {
  const buffer = view.buffer;
  if (!(buffer instanceof ArrayBuffer) || buffer.detached || view.byteOffset !== 0 || view.byteLength !== buffer.byteLength) return;
  buffer.transfer(0);
}
