// Tunes as the engine keeps them: started in the background and written after each step, so a page that reloads
// finds its tune, Cancel stops it between steps as well as in one, and a tune its engine left part way is resumed
// from the step it reached. One owner of the `tunes` table and of the ladders under way.
import type { TuneRecord, TuneRequest, TuneResult } from '../../shared/api.js';
import { ApiFailure } from '../../shared/api.js';
import type { Clock } from '../clock.js';
import type { EventHub } from '../events.js';
import { renderTuneReport } from '../export/tuneReport.js';
import type { StoredTune, TuneStatus, TuneStore } from '../store/tuneStore.js';
import { isStillRunning, sameProcess, type ProcessIdentity } from '../system/processIdentity.js';
import { batchPlaceholder, emptyResult, ladderRungs, TuneError, type TuneLadder } from './ladder.js';

export interface TuneServiceDeps {
  store: TuneStore;
  ladder: TuneLadder;
  events: EventHub;
  clock: Clock;
  owner: ProcessIdentity;
  /** Cancels a sweep (the step under way when a tune is cancelled). */
  cancelSweep: (id: number) => void;
}

interface Live {
  controller: AbortController;
  /** The step's sweep under way, cancelled with the tune. */
  sweepId: number | null;
  ended: Promise<TuneRecord>;
}

export class TuneService {
  private readonly live = new Map<number, Live>();
  private closed = false;

  constructor(private readonly deps: TuneServiceDeps) {}

  /** Marks the tunes of engines that died as interrupted (they can be resumed); returns their ids. */
  recoverInterrupted(): number[] {
    const interrupted: number[] = [];
    for (const tune of this.deps.store.running()) {
      if (this.ownedElsewhere(tune)) continue;
      this.deps.store.setStatus(tune.id, 'interrupted', null);
      interrupted.push(tune.id);
    }
    return interrupted;
  }

  /** Starts a tune and answers at once; `say` gets its lines of progress (the CLI's stderr). */
  start(request: TuneRequest, sourceRunId: number | null, say?: (line: string) => void): TuneRecord {
    this.refuseWhenClosed();
    try {
      ladderRungs(request);
      batchPlaceholder(request);
    } catch (error) {
      if (error instanceof TuneError) throw new ApiFailure('invalid_input', error.message);
      throw error;
    }
    const stored = this.deps.store.insert({ createdAt: this.deps.clock.now(), sourceRunId, request, result: emptyResult(request), owner: this.deps.owner });
    return this.follow(stored, undefined, say);
  }

  /** Goes on with a cancelled or interrupted tune from the first step it did not decide. */
  resume(id: number, say?: (line: string) => void): TuneRecord {
    this.refuseWhenClosed();
    const stored = this.require(id);
    if (this.live.has(id) || (stored.status === 'running' && this.ownedElsewhere(stored)))
      throw new ApiFailure('conflict', `tune ${id} is running; wait for it to end, or cancel it first`);
    if (stored.status === 'succeeded')
      throw new ApiFailure('conflict', `tune ${id} has ended (succeeded): there is nothing left to run; start a new tune to measure again`);
    this.deps.store.takeOver(id, this.deps.owner);
    return this.follow(this.require(id), stored.result, say);
  }

  /** Stops a tune: no further step starts, and the step's sweep is cancelled. */
  cancel(id: number): TuneRecord {
    const stored = this.require(id);
    const live = this.live.get(id);
    if (!live) {
      if (stored.status === 'running')
        throw new ApiFailure(
          'conflict',
          `tune ${id} is run by another Tuning Bench process (pid ${stored.ownerPid}); cancel it there (Ctrl-C in its terminal)`,
        );
      return this.record(stored);
    }
    live.controller.abort();
    if (live.sweepId !== null) this.deps.cancelSweep(live.sweepId);
    return this.record(this.require(id));
  }

  get(id: number): TuneRecord {
    return this.record(this.require(id));
  }

  /** The tune as a report (`tuning-bench-tune-ID.md` / `.html`), as far as it has come. */
  export(id: number, format: 'md' | 'html'): { content: string; filename: string; mimeType: string } {
    const tune = this.require(id);
    const content = renderTuneReport(tune.result, format, { generatedAt: this.deps.clock.now() });
    return { content, filename: `tuning-bench-tune-${id}.${format}`, mimeType: format === 'md' ? 'text/markdown' : 'text/html' };
  }

  list(limit: number, sourceRunId?: number): TuneRecord[] {
    return this.deps.store.list(limit, sourceRunId).map((tune) => this.record(tune));
  }

  /** The tune's final record, once its ladder has ended. */
  waitForEnd(id: number): Promise<TuneRecord> {
    return this.live.get(id)?.ended ?? Promise.resolve(this.get(id));
  }

  /** The engine is stopping: tunes under way are kept as interrupted (resumable); nothing more is written for them. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const [id, live] of this.live) {
      live.controller.abort();
      this.deps.store.setStatus(id, 'interrupted', null);
    }
  }

  private follow(stored: StoredTune, resumeFrom: TuneResult | undefined, say?: (line: string) => void): TuneRecord {
    const controller = new AbortController();
    const live: Live = { controller, sweepId: null, ended: Promise.resolve(this.record(stored)) };
    this.live.set(stored.id, live);
    const write = (result: TuneResult, status: TuneStatus, ended: boolean) => {
      if (this.closed) return;
      this.deps.store.setResult(stored.id, result);
      this.deps.store.setStatus(stored.id, status, ended ? this.deps.clock.now() : null);
      this.deps.events.emit('tunes.onDidChange', this.get(stored.id));
    };
    live.ended = this.deps.ladder
      .run(stored.request, say, {
        resumeFrom,
        signal: controller.signal,
        onProgress: (result) => write(result, 'running', false),
        onSweep: (sweepId) => {
          live.sweepId = sweepId;
        },
      })
      .catch((error: unknown) => ({
        ...(resumeFrom ?? emptyResult(stored.request)),
        status: 'failed' as const,
        error: error instanceof Error ? error.message : String(error),
      }))
      .then((result) => {
        this.live.delete(stored.id);
        write(result, result.status, true);
        return this.get(stored.id);
      });
    return this.record(this.require(stored.id));
  }

  private require(id: number): StoredTune {
    const stored = this.deps.store.get(id);
    if (!stored) throw new ApiFailure('not_found', `no tune ${id}: \`tuning-bench tune --list\` shows the tunes`);
    return stored;
  }

  private ownedElsewhere(tune: StoredTune): boolean {
    const owner = tune.ownerPid === null ? null : { pid: tune.ownerPid, startTicks: tune.ownerStartTicks };
    return owner !== null && !sameProcess(owner, this.deps.owner) && isStillRunning(owner, new Date(tune.createdAt));
  }

  private refuseWhenClosed(): void {
    if (this.closed) throw new ApiFailure('unavailable', 'the engine is closing: the tune was not started');
  }

  private record(tune: StoredTune): TuneRecord {
    const { ownerPid: _pid, ownerStartTicks: _ticks, ...record } = tune;
    return record;
  }
}
