// 100 MB of output as fast as a program can write it: every byte stored, in order, and paged back out.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../electron/shared/api.js';
import { tempCore } from '../helpers/tempCore.js';

const MIB = 1024 * 1024;
const harness = tempCore();
afterAll(() => harness.cleanup());

describe('100 MB of output', () => {
  it('is stored byte for byte, and read back in bounded pages', async () => {
    const file = path.join(harness.dir, 'producer.bin');
    // Random bytes: invalid UTF-8, NULs, escape bytes and bare newlines, all of which must pass untouched.
    const handle = fs.openSync(file, 'w');
    const expected = crypto.createHash('sha256');
    for (let i = 0; i < 100; i++) {
      const block = crypto.randomBytes(MIB);
      expected.update(block);
      fs.writeSync(handle, block);
    }
    fs.closeSync(handle);

    const run = harness.core.startCommand({ adHoc: { command: ['cat', file], cwd: harness.dir } });
    const finished = await harness.core.runner.waitForExit(run.id);
    expect(finished).toMatchObject({ status: 'succeeded', outputBytes: 100 * MIB });

    const stored = crypto.createHash('sha256');
    let bytes = 0;
    for (const chunk of harness.core.store.runs.storedOutput(run.id)) {
      stored.update(chunk.data);
      bytes += chunk.data.length;
    }
    expect(bytes).toBe(100 * MIB);
    expect(stored.digest('hex')).toBe(expected.digest('hex'));

    const page = await harness.core.handlers['runs.output'](
      { id: run.id, afterSeq: -1, maxBytes: LIMITS.outputPageBytes, fromEnd: true },
      { subscriberId: null },
    );
    expect(page.skippedBytes).toBeGreaterThan(90 * MIB);
    expect(page.complete).toBe(true);
    expect(page.chunks.at(-1)!.seq).toBe(page.lastSeq);
    const first = await harness.core.handlers['runs.output']({ id: run.id, afterSeq: -1, maxBytes: MIB, fromEnd: false }, { subscriberId: null });
    expect(first.complete).toBe(false);
    expect(first.chunks[0]!.seq).toBe(0);
  }, 120_000);
});
