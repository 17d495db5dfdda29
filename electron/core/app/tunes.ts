// The tune service and its ladder, over sweeps and comparisons through the contract's own schemas.
import fs from 'node:fs';
import { compareRequest, methods, sweepRequest, type TuneRequest, type TuneResult } from '../../shared/api.js';
import type { Clock } from '../clock.js';
import type { CompareService } from '../compare/compareService.js';
import type { EventHub } from '../events.js';
import type { SweepQueue } from '../experiments/sweepQueue.js';
import type { Store } from '../store/store.js';
import type { ProcessIdentity } from '../system/processIdentity.js';
import { TuneLadder } from '../tune/ladder.js';
import { TuneService } from '../tune/tuneService.js';
import { requireRun } from './lookups.js';

export interface TunesOptions {
  store: Store;
  sweeps: SweepQueue;
  compare: CompareService;
  events: EventHub;
  clock: Clock;
  owner: ProcessIdentity;
}

export function createTunes({ store, sweeps, compare, events, clock, owner }: TunesOptions): TuneService {
  /** A tune's step ends with its sweep: one already ended (or removed) has nothing left to cancel. */
  const cancelSweep = (id: number, note?: string) => {
    try {
      if (note === undefined) sweeps.control(id, 'cancel');
      else sweeps.endEarly(id, note);
    } catch {
      // Ended meanwhile.
    }
  };
  const ladder = new TuneLadder({
    startSweep: (request) => sweeps.start(sweepRequest.parse(request)),
    findBatch: (request) => sweeps.findBatch(methods['sweeps.findBatch'].input.parse(request)),
    waitForSweepEnd: (id, onChange) => sweeps.waitForEnd(id, onChange),
    cancelSweep,
    compare: (request) => compare.compare(compareRequest.parse(request)),
    getRun: (id) => requireRun(store, id),
    readFile: (file) => {
      try {
        return fs.readFileSync(file, 'utf8');
      } catch {
        return null;
      }
    },
  });
  return new TuneService({ store: store.tunes, ladder, events, clock, owner, cancelSweep });
}

/** `tune.run`: a tune started and followed to its end, each step said to `say` (the CLI's stderr). */
export async function tuneToEnd(tunes: TuneService, request: TuneRequest, say?: (line: string) => void): Promise<TuneResult> {
  return (await tunes.waitForEnd(tunes.start(request, null, say).id)).result;
}
