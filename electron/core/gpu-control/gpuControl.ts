// The one owner of GPU setting changes: reads the state, checks a change against it, journals it,
// applies it through the allowlist with the least privilege that works, and puts it back.
import fs from 'node:fs';
import type { GpuControlState, GpuJournalEntry, MethodOutput } from '../../shared/api.js';
import { ApiFailure } from '../../shared/api.js';
import { describeOperation, runSettingsOperations, type ClockRange, type GpuOperation, type GpuRunSettings } from '../../shared/gpuSettings.js';
import type { GpuJournalStore, JournalScope, StoredJournalEntry } from '../store/gpuJournalStore.js';
import { isStillRunning, sameProcess, type ProcessIdentity } from '../system/processIdentity.js';
import type { RunGpuLease } from '../runner/collaborators.js';
import { operationArgs } from './allowlist.js';
import { interpretControlAnswer, type ControlAnswer } from './answers.js';
import { ManualCommandRequired, type Elevation, type ElevationMode } from './elevation.js';
import { checkAgainstState, gpuProfiles, readGpuState, type KnownLocks } from './state.js';
import type { Clock } from '../clock.js';

export interface GpuControlOptions {
  journal: GpuJournalStore;
  /** null: no nvidia-smi here, so nothing to control. */
  nvidiaSmi: string | null;
  elevation: Elevation | null;
  defaultGpu: string;
  env: Record<string, string>;
  /** When each journal entry was made and restored. */
  clock: Clock;
  /** This engine, recorded as the owner of the changes it journals. */
  owner: ProcessIdentity;
}

export interface GpuSettingsRecord extends Record<string, unknown> {
  gpu: string;
  uuid: string | null;
  name: string | null;
  persistenceMode: boolean | null;
  powerLimitW: number | null;
  clockLock: ClockRange | null;
  memoryClockLock: ClockRange | null;
  /** Who set these for the run: the run itself, its sweep, or nobody (what was in force anyway). */
  setBy: 'run' | 'sweep' | null;
  requested: GpuRunSettings | null;
}

export interface RestoreOutcome {
  ok: boolean;
  errors: string[];
}

type StatusOutput = MethodOutput<'gpu.status'>;
type ApplyOutput = MethodOutput<'gpu.apply'>;

/** Changes for a run or sweep, held until `release()` puts the prior state back. */
export class GpuLease implements RunGpuLease {
  private released: Promise<RestoreOutcome> | null = null;

  constructor(
    readonly key: string,
    readonly record: GpuSettingsRecord,
    readonly journalIds: number[],
    private readonly restore: () => Promise<RestoreOutcome>,
    private readonly attach: (runId: number) => void,
    readonly label: string,
  ) {}

  attachRun(runId: number): void {
    this.attach(runId);
  }

  /** Idempotent: a run's end and the app's quit may both ask. */
  release(): Promise<RestoreOutcome> {
    this.released ??= this.restore();
    return this.released;
  }
}

/** When this boot began (/proc/stat btime): manual clock locks from before it are gone. */
function bootTime(): Date | null {
  try {
    const btime = /^btime (\d+)$/mu.exec(fs.readFileSync('/proc/stat', 'utf8'))?.[1];
    return btime === undefined ? null : new Date(Number(btime) * 1000);
  } catch {
    return null;
  }
}

export function describeEntry(entry: StoredJournalEntry): GpuJournalEntry {
  const op = appliedOperation(entry);
  // A run's settings are set just before the run is recorded: one killed in between owns them without a number.
  const owner =
    entry.runId !== null
      ? ` (run ${entry.runId})`
      : entry.scope === 'manual'
        ? ' (manual)'
        : entry.scope === 'run'
          ? ' (a run stopped before it was recorded)'
          : ` (${entry.scope})`;
  return { ...entry, description: `${entry.gpu.startsWith('GPU-') ? entry.gpu : `GPU ${entry.gpu}`}: ${op ? describeOperation(op) : entry.operation}${owner}` };
}

function appliedOperation(entry: StoredJournalEntry): GpuOperation | null {
  const applied = entry.applied;
  switch (entry.operation) {
    case 'persistence':
      return { kind: 'persistence', enabled: applied.enabled === true };
    case 'lockClocks':
    case 'lockMemoryClocks':
      return isRange(applied.range) ? { kind: entry.operation, range: applied.range } : null;
    case 'powerLimit':
      return typeof applied.watts === 'number' ? { kind: 'powerLimit', watts: applied.watts } : null;
    case 'resetClocks':
    case 'resetMemoryClocks':
      return { kind: entry.operation };
  }
}

function isRange(value: unknown): value is ClockRange {
  const range = value as ClockRange | null;
  return typeof range?.minMHz === 'number' && typeof range.maxMHz === 'number';
}

/** What puts the state before `entry` back; null when there is nothing to undo (the prior was unknown). */
export function restoreOperation(entry: StoredJournalEntry): GpuOperation | null {
  const prior = entry.prior;
  switch (entry.operation) {
    case 'persistence':
      return typeof prior.enabled === 'boolean' ? { kind: 'persistence', enabled: prior.enabled } : null;
    case 'lockClocks':
    case 'resetClocks':
      return isRange(prior.range) ? { kind: 'lockClocks', range: prior.range } : { kind: 'resetClocks' };
    case 'lockMemoryClocks':
    case 'resetMemoryClocks':
      return isRange(prior.range) ? { kind: 'lockMemoryClocks', range: prior.range } : { kind: 'resetMemoryClocks' };
    case 'powerLimit':
      return typeof prior.watts === 'number' ? { kind: 'powerLimit', watts: prior.watts } : null;
  }
}

function priorOf(op: GpuOperation, state: GpuControlState): Record<string, unknown> {
  switch (op.kind) {
    case 'persistence':
      return { enabled: state.persistenceMode };
    case 'lockClocks':
    case 'resetClocks':
      return { range: state.locks.clocks };
    case 'lockMemoryClocks':
    case 'resetMemoryClocks':
      return { range: state.locks.memoryClocks };
    case 'powerLimit':
      return { watts: state.power.requestedLimitW ?? state.power.limitW };
  }
}

function appliedOf(op: GpuOperation): Record<string, unknown> {
  switch (op.kind) {
    case 'persistence':
      return { enabled: op.enabled };
    case 'lockClocks':
    case 'lockMemoryClocks':
      return { range: op.range };
    case 'powerLimit':
      return { watts: op.watts };
    case 'resetClocks':
    case 'resetMemoryClocks':
      return {};
  }
}

const CLOCK_GROUP: Record<string, 'clocks' | 'memoryClocks' | null> = {
  lockClocks: 'clocks',
  resetClocks: 'clocks',
  lockMemoryClocks: 'memoryClocks',
  resetMemoryClocks: 'memoryClocks',
};

export class GpuControl {
  private readonly leases = new Map<string, GpuLease>();
  /**
   * GPUs whose settings a call is changing right now (between its holder check and its lease, across several
   * awaits): a second caller meets the holder instead of racing it.
   */
  private readonly changing = new Map<string, string>();

  constructor(private readonly options: GpuControlOptions) {}

  get available(): boolean {
    return this.options.nvidiaSmi !== null;
  }

  async status(gpu = this.options.defaultGpu): Promise<StatusOutput> {
    const abandoned = this.abandoned().map(describeEntry);
    const elevation = this.options.elevation ? await this.options.elevation.describe() : { mode: 'manual' as const, detail: 'no nvidia-smi on this machine' };
    const read = await this.readState(gpu);
    const base = { gpu, elevation, abandoned, manual: [] as GpuJournalEntry[], heldBy: null as string | null };
    if (!read.ok) return { ...base, available: false, reason: read.reason, state: null, profiles: [] };
    const { state, key } = read;
    return {
      ...base,
      available: true,
      reason: null,
      state,
      profiles: gpuProfiles(state),
      manual: this.manualInForce(key, state.index).map(describeEntry),
      heldBy: this.holder(key, state.index),
    };
  }

  /** A manual change: it stays after the app exits, and is journaled so runs can restore to it. */
  async apply(op: GpuOperation, options: { gpu?: string | undefined; confirmOtherProcesses: boolean }): Promise<ApplyOutput> {
    const gpu = options.gpu ?? this.options.defaultGpu;
    const { state, key } = await this.requireState(gpu);
    const holder = this.holder(key, state.index);
    if (holder !== null && op.kind !== 'persistence') {
      throw new ApiFailure('conflict', `GPU ${state.index}'s settings are held by ${holder} until it ends; change them after it`);
    }
    this.checkAll([op], state, options.confirmOtherProcesses);
    const reserved = op.kind !== 'persistence' && this.reserve(key, 'a manual change');
    let applied: Awaited<ReturnType<GpuControl['applyOne']>>;
    try {
      applied = await this.applyOne(op, state, key, { scope: 'manual', runId: null });
    } finally {
      if (reserved) this.changing.delete(key);
    }
    const after = await this.readState(gpu);
    return {
      message: `GPU ${state.index}: ${applied.answer.detail}`,
      via: applied.via,
      warnings: applied.answer.warnings,
      state: after.ok ? after.state : null,
    };
  }

  /**
   * Puts a run's or sweep's settings in force. Every value is checked before any command runs; if one
   * change fails, the ones already made are put back and the failure says why.
   */
  async acquire(
    settings: GpuRunSettings,
    options: { scope: Exclude<JournalScope, 'manual'>; gpu?: string | undefined; confirmOtherProcesses: boolean; label: string },
  ): Promise<GpuLease> {
    const ops = runSettingsOperations(settings);
    const gpu = options.gpu ?? this.options.defaultGpu;
    const { state, key } = await this.requireState(gpu);
    const holder = this.holder(key, state.index);
    if (holder !== null) {
      throw new ApiFailure('conflict', `GPU ${state.index}'s settings are held by ${holder} until it ends; run this without GPU settings, or after it`);
    }
    this.checkAll(ops, state, options.confirmOtherProcesses);
    // Held from the check to the lease: everything below awaits, and another run must not slip in between.
    const reservedKey = key;
    this.reserve(reservedKey, options.label);
    try {
      return await this.acquireReserved(ops, settings, gpu, state, key, options);
    } finally {
      this.changing.delete(reservedKey);
    }
  }

  /** Marks a GPU as being changed; false if it already was (then the holder check has already answered). */
  private reserve(key: string, label: string): boolean {
    if (this.changing.has(key)) return false;
    this.changing.set(key, label);
    return true;
  }

  private async acquireReserved(
    ops: GpuOperation[],
    settings: GpuRunSettings,
    gpu: string,
    initialState: Awaited<ReturnType<GpuControl['requireState']>>['state'],
    initialKey: string,
    options: { scope: Exclude<JournalScope, 'manual'>; confirmOtherProcesses: boolean; label: string },
  ): Promise<GpuLease> {
    let state = initialState;
    let key = initialKey;
    // A crashed engine's changes would otherwise be taken for the state to restore to.
    if (this.abandoned().some((e) => this.matches(e, key, state.index))) {
      await this.restoreAbandoned();
      ({ state, key } = await this.requireState(gpu));
    }

    const ids: number[] = [];
    const done: StoredJournalEntry[] = [];
    const echoed: Partial<Record<'clocks' | 'memoryClocks', ClockRange>> = {};
    try {
      for (const op of ops) {
        const { id, answer } = await this.applyOne(op, state, key, { scope: options.scope, runId: null });
        ids.push(id);
        done.push(this.options.journal.get(id)!);
        const group = CLOCK_GROUP[op.kind];
        if (group && answer.echoedRange) echoed[group] = answer.echoedRange;
      }
    } catch (error) {
      for (const entry of done.reverse()) await this.restoreEntry(entry);
      throw error;
    }

    const record: GpuSettingsRecord = {
      gpu,
      uuid: state.uuid,
      name: state.name,
      persistenceMode: settings.persistence ?? state.persistenceMode,
      powerLimitW: settings.powerLimitW ?? state.power.requestedLimitW ?? state.power.limitW,
      clockLock: echoed.clocks ?? settings.lockClocks ?? state.locks.clocks,
      memoryClockLock: echoed.memoryClocks ?? settings.lockMemoryClocks ?? state.locks.memoryClocks,
      setBy: options.scope,
      requested: settings,
    };
    const lease: GpuLease = new GpuLease(
      key,
      record,
      ids,
      async () => {
        // Only its own entry: a lease released late must not free a GPU another run holds now.
        if (this.leases.get(key) === lease) this.leases.delete(key);
        const errors: string[] = [];
        for (const id of [...ids].reverse()) {
          const entry = this.options.journal.get(id);
          if (!entry || entry.state !== 'applied') continue;
          const error = await this.restoreEntry(entry);
          if (error) errors.push(error);
        }
        return { ok: errors.length === 0, errors };
      },
      (runId) => this.options.journal.attachRun(ids, runId),
      options.label,
    );
    this.leases.set(key, lease);
    return lease;
  }

  /** The settings in force on the GPU a run uses, for runs that asked for none. Null without a GPU. */
  async settingsInForce(gpu = this.options.defaultGpu): Promise<GpuSettingsRecord | null> {
    const read = await this.readState(gpu);
    if (!read.ok) return null;
    const { state } = read;
    return {
      gpu,
      uuid: state.uuid,
      name: state.name,
      persistenceMode: state.persistenceMode,
      powerLimitW: state.power.requestedLimitW ?? state.power.limitW,
      clockLock: state.locks.clocks,
      memoryClockLock: state.locks.memoryClocks,
      setBy: null,
      requested: null,
    };
  }

  /** Run and sweep changes whose engine died before putting them back, newest first. */
  abandoned(): StoredJournalEntry[] {
    return this.options.journal.open().filter((e) => !this.heldByAnotherLiveEngine(e) && !this.isOwn(e));
  }

  private isOwn(entry: StoredJournalEntry): boolean {
    return entry.ownerPid !== null && sameProcess({ pid: entry.ownerPid, startTicks: entry.ownerStartTicks }, this.options.owner);
  }

  /**
   * The entry's engine is another one, still running: the same process (pid and start time), not merely a live
   * process that got its pid after it died.
   */
  private heldByAnotherLiveEngine(entry: StoredJournalEntry): boolean {
    if (entry.ownerPid === null || this.isOwn(entry)) return false;
    return isStillRunning({ pid: entry.ownerPid, startTicks: entry.ownerStartTicks }, new Date(entry.createdAt));
  }

  /** Undoes every abandoned change, newest first; the ones that fail stay open for the next try. */
  async restoreAbandoned(): Promise<{ restored: GpuJournalEntry[]; failed: GpuJournalEntry[] }> {
    const restored: GpuJournalEntry[] = [];
    const failed: GpuJournalEntry[] = [];
    for (const entry of this.abandoned()) {
      const error = await this.restoreEntry(entry);
      const after = this.options.journal.get(entry.id) ?? entry;
      (error ? failed : restored).push(describeEntry(after));
    }
    return { restored, failed };
  }

  /** On quit: every run's or sweep's changes put back. Manual changes stay, as asked. */
  async close(): Promise<RestoreOutcome> {
    const errors: string[] = [];
    for (const lease of [...this.leases.values()]) errors.push(...(await lease.release()).errors);
    return { ok: errors.length === 0, errors };
  }

  private async readState(gpu: string): Promise<{ ok: true; state: GpuControlState; key: string } | { ok: false; reason: string }> {
    if (this.options.nvidiaSmi === null) return { ok: false, reason: 'no nvidia-smi found: no NVIDIA GPU or driver on this machine' };
    const read = await readGpuState(this.options.nvidiaSmi, gpu, this.options.env, { clocks: null, memoryClocks: null });
    if (!read.ok) return read;
    const key = read.state.uuid ?? String(read.state.index);
    return { ok: true, state: { ...read.state, locks: this.knownLocks(key, read.state.index) }, key };
  }

  private async requireState(gpu: string): Promise<{ state: GpuControlState; key: string }> {
    const read = await this.readState(gpu);
    if (!read.ok) throw new ApiFailure('unavailable', `cannot change GPU ${gpu}: ${read.reason}`);
    return read;
  }

  private matches(entry: StoredJournalEntry, key: string, index: number): boolean {
    return entry.gpu === key || entry.gpu === String(index);
  }

  /** Every value checked, and other processes on the GPU named, before any command runs. */
  private checkAll(ops: readonly GpuOperation[], state: GpuControlState, confirmed: boolean): void {
    for (const op of ops) {
      const problem = checkAgainstState(op, state);
      if (problem) throw new ApiFailure('invalid_input', problem);
    }
    const changesSpeed = ops.some((op) => op.kind !== 'persistence');
    if (changesSpeed && state.processes.length > 0 && !confirmed) {
      const list = state.processes.map((p) => `${p.name ?? 'unknown'} (pid ${p.pid}${p.usedMemoryMiB === null ? '' : `, ${p.usedMemoryMiB} MiB`})`);
      throw new ApiFailure(
        'conflict',
        `other processes use GPU ${state.index}: ${list.join(', ')}. Changing clocks or power changes their speed too; confirm to go ahead (CLI: --yes)`,
      );
    }
  }

  private async applyOne(
    op: GpuOperation,
    state: GpuControlState,
    key: string,
    owner: { scope: JournalScope; runId: number | null },
  ): Promise<{ id: number; answer: ControlAnswer; via: ElevationMode }> {
    const elevation = this.options.elevation!;
    const args = operationArgs(op, key);
    const id = this.options.journal.begin({
      createdAt: this.options.clock.now(),
      gpu: key,
      operation: op.kind,
      prior: priorOf(op, state),
      applied: appliedOf(op),
      scope: owner.scope,
      ownerPid: this.options.owner.pid,
      ownerStartTicks: this.options.owner.startTicks,
      runId: owner.runId,
    });
    let result;
    try {
      result = await elevation.run(args);
    } catch (error) {
      const message = error instanceof ManualCommandRequired ? `cannot ${describeOperation(op)} on GPU ${state.index}: ${error.message}` : String(error);
      this.options.journal.markFailed(id, message);
      throw new ApiFailure('unavailable', message);
    }
    const answer = interpretControlAnswer(op, result.code, result.output);
    if (!answer.ok) {
      const message = this.explainFailure(op, state, answer, result.via, elevation.manualCommand(args));
      this.options.journal.markFailed(id, message);
      throw new ApiFailure(answer.outcome === 'invalid-value' ? 'invalid_input' : 'unavailable', message);
    }
    this.options.journal.markApplied(id, { ...appliedOf(op), ...(answer.echoedRange ? { echoed: answer.echoedRange } : {}), via: result.via });
    return { id, answer, via: result.via };
  }

  private explainFailure(op: GpuOperation, state: GpuControlState, answer: ControlAnswer, via: ElevationMode, manual: string): string {
    const what = `cannot ${describeOperation(op)} on GPU ${state.index}`;
    switch (answer.outcome) {
      case 'permission':
        return via === 'root'
          ? `${what}: nvidia-smi refused although Tuning Bench runs as root ("${answer.detail}"). The GPU itself refuses changes here: a container without CAP_SYS_ADMIN, WSL, or a virtual GPU. On the host, run: ${manual}`
          : `${what}: nvidia-smi refused ("${answer.detail}"). Run this in a terminal: ${manual}`;
      case 'not-supported':
        return `${what}: this GPU does not support it ("${answer.detail}"); nothing was changed`;
      case 'invalid-value':
        return `${what}: nvidia-smi refused the value ("${answer.detail}")`;
      default:
        return `${what}: ${answer.detail}`;
    }
  }

  /** Puts back one change; returns the error, or null once it is restored. */
  private async restoreEntry(entry: StoredJournalEntry): Promise<string | null> {
    const op = restoreOperation(entry);
    if (op === null || this.options.elevation === null) {
      this.options.journal.markRestored(entry.id, this.options.clock.now());
      return null;
    }
    const args = operationArgs(op, entry.gpu);
    let error: string | null;
    try {
      const result = await this.options.elevation.run(args);
      const answer = interpretControlAnswer(op, result.code, result.output);
      error = answer.ok ? null : `could not ${describeOperation(op)} on GPU ${entry.gpu}: ${answer.detail}. Run: ${this.options.elevation.manualCommand(args)}`;
    } catch (caught) {
      error = `could not ${describeOperation(op)} on GPU ${entry.gpu}: ${caught instanceof Error ? caught.message : String(caught)}`;
    }
    if (error) this.options.journal.noteRestoreError(entry.id, error);
    else this.options.journal.markRestored(entry.id, this.options.clock.now());
    return error;
  }

  /** Who holds this GPU's settings now: a lease here, or a live engine's open entries. */
  private holder(key: string, index: number): string | null {
    const lease = this.leases.get(key);
    if (lease) return lease.label;
    const changing = this.changing.get(key);
    if (changing !== undefined) return changing;
    const other = this.options.journal.open().find((e) => this.matches(e, key, index) && this.heldByAnotherLiveEngine(e));
    if (!other) return null;
    return other.runId !== null ? `run ${other.runId} (process ${other.ownerPid})` : `a ${other.scope} in process ${other.ownerPid}`;
  }

  /** The clock locks in force as the journal knows them: a live run's or sweep's, else a manual one since boot. */
  private knownLocks(key: string, index: number): KnownLocks {
    const locks: KnownLocks = { clocks: null, memoryClocks: null };
    const seen = new Set<string>();
    const booted = bootTime();
    const open = this.options.journal.open().filter((e) => this.matches(e, key, index) && e.state === 'applied');
    const manual = this.options.journal.manual().filter((e) => this.matches(e, key, index) && (booted === null || new Date(e.createdAt) >= booted));
    for (const entry of [...open, ...manual]) {
      const group = CLOCK_GROUP[entry.operation];
      if (!group || seen.has(group)) continue;
      seen.add(group);
      const op = appliedOperation(entry);
      locks[group] = op && (op.kind === 'lockClocks' || op.kind === 'lockMemoryClocks') ? op.range : null;
    }
    return locks;
  }

  /** The latest manual change per setting, where it still holds (a reset is not listed). */
  private manualInForce(key: string, index: number): StoredJournalEntry[] {
    const booted = bootTime();
    const seen = new Set<string>();
    const result: StoredJournalEntry[] = [];
    for (const entry of this.options.journal.manual()) {
      if (!this.matches(entry, key, index)) continue;
      const group = CLOCK_GROUP[entry.operation] ?? entry.operation;
      if (seen.has(group)) continue;
      seen.add(group);
      const lostAtBoot = booted !== null && new Date(entry.createdAt) < booted;
      if (entry.operation !== 'resetClocks' && entry.operation !== 'resetMemoryClocks' && !lostAtBoot) result.push(entry);
    }
    return result;
  }
}
