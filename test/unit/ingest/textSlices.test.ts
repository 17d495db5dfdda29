import { describe, expect, it } from 'vitest';
import { decodedSlices, TEXT_SLICE_BYTES } from '../../../electron/core/ingest/textSlices.js';

describe('decodedSlices', () => {
  it('decodes a chunk slice by slice into the same text, characters split at slice and chunk edges kept whole', () => {
    // Lines ending in 3- and 4-byte characters: slice edges (every 32 KiB) fall inside them.
    const text = Array.from({ length: 20_000 }, (_, i) => `step ${i}: loss 0.${i} — ok 🙂\n`).join('');
    const bytes = Buffer.from(text);
    const decoder = new TextDecoder('utf-8');
    // Two chunks cut inside a character, as a pty's reads are.
    const cut = bytes.indexOf('—', 50_000) + 1;
    const slices = [...decodedSlices(decoder, bytes.subarray(0, cut)), ...decodedSlices(decoder, bytes.subarray(cut))];
    expect(slices.join('') + decoder.decode()).toBe(text);
    expect(slices.length).toBe(Math.ceil(cut / TEXT_SLICE_BYTES) + Math.ceil((bytes.length - cut) / TEXT_SLICE_BYTES));
    // A slice's text: its bytes and at most the three of a character the slice before began.
    expect(Math.max(...slices.map((slice) => Buffer.byteLength(slice)))).toBeLessThanOrEqual(TEXT_SLICE_BYTES + 3);
    expect(slices.join('')).not.toContain('\uFFFD');
  });
});
