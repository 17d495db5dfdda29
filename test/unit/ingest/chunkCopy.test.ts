// A chunk copied to the parser thread counts the bytes it sends: the writer's cap on the parser's backlog rests on it.
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { sendChunkCopy } from '../../../electron/core/ingest/chunkCopy.js';

describe('a chunk copied to another thread', () => {
  it('counts its bytes, though the copy is empty once moved, and leaves the original whole', async () => {
    const { port1, port2 } = new MessageChannel();
    const received = new Promise<{ data: Uint8Array }>((resolve) => port2.once('message', resolve));
    const original = new Uint8Array(256 * 1024).fill(7);
    let sent: Uint8Array | null = null;
    const bytes = sendChunkCopy(port1, original, (copy) => {
      sent = copy;
      return { data: copy };
    });
    expect(bytes).toBe(256 * 1024);
    // Moved, not cloned: the sender's copy is detached; the original is the caller's to store.
    expect(sent!.byteLength).toBe(0);
    expect(original.byteLength).toBe(256 * 1024);
    const message = await received;
    expect(message.data.byteLength).toBe(256 * 1024);
    expect(message.data[1000]).toBe(7);
    port1.close();
    port2.close();
  });
});
