// One owner for a run session's resources (electron/core/system/owned.ts): each released once, last first, whatever throws.
import { describe, expect, it } from 'vitest';
import { Owned } from '../../electron/core/system/owned.js';

describe('resources owned together', () => {
  it('releases each once, the last registered first, and early ones not again', () => {
    const released: string[] = [];
    const owned = new Owned(() => undefined);
    owned.hold('the lease', () => released.push('lease'));
    const pty = owned.hold('the terminal', () => released.push('pty'));
    owned.hold('the samplers', () => released.push('samplers'));
    pty.release();
    pty.release();
    expect(pty.released).toBe(true);
    owned.releaseAll();
    owned.releaseAll();
    expect(released).toEqual(['pty', 'samplers', 'lease']);
  });

  it('goes on past a release that throws, and says which one failed', () => {
    const faults: string[] = [];
    const released: string[] = [];
    const owned = new Owned((what, error) => faults.push(`${what}: ${(error as Error).message}`));
    owned.hold('the lease', () => released.push('lease'));
    owned.hold('the sampler', () => {
      throw new Error('already gone');
    });
    owned.releaseAll();
    expect(released).toEqual(['lease']);
    expect(faults).toEqual(['the sampler: already gone']);
  });
});
