// Output decoded for parsing a slice at a time, so the text of a large chunk never outlives its parse.

/**
 * Bytes decoded into one string. A string past V8's large-object size (128 KiB; a 256 KiB stored chunk as one string)
 * is born in the old generation and stays there until a full collection: on a dense import those were a third of
 * the parsing thread's heap. A slice's string (32 K characters, 64 KiB at most) is born young and dies in the next
 * cheap collection.
 */
export const TEXT_SLICE_BYTES = 32 * 1024;

/** A TextDecoder: the global one or node:util's, which TypeScript types apart. */
interface StreamDecoder {
  decode(input: Uint8Array, options: { stream: boolean }): string;
}

/** The text of `data`, slice by slice, through a streaming decoder (a character split between slices or chunks stays whole). */
export function* decodedSlices(decoder: StreamDecoder, data: Uint8Array): Generator<string> {
  for (let at = 0; at < data.length; at += TEXT_SLICE_BYTES) yield decoder.decode(data.subarray(at, at + TEXT_SLICE_BYTES), { stream: true });
}
