// The GPU settings journal: every change is written here before nvidia-smi runs, so whatever happens to
// the engine, the next start knows what to put back.
import type { GpuJournalEntry } from '../../shared/api.js';
import type { GpuOperationKind } from '../../shared/gpuSettings.js';
import type { Db } from './open.js';

export type JournalScope = GpuJournalEntry['scope'];
export type JournalState = GpuJournalEntry['state'];
/** An entry as stored: with its owner's start time, which the API does not carry. */
export type StoredJournalEntry = Omit<GpuJournalEntry, 'description'> & { ownerStartTicks: number | null };

interface JournalRow {
  id: number;
  created_at: string;
  gpu: string;
  operation: GpuOperationKind;
  prior_json: string;
  applied_json: string;
  scope: JournalScope;
  owner_pid: number | null;
  owner_start_ticks: number | null;
  run_id: number | null;
  state: JournalState;
  restored_at: string | null;
  error: string | null;
}

export interface NewJournalEntry {
  createdAt: Date;
  gpu: string;
  operation: GpuOperationKind;
  prior: Record<string, unknown>;
  applied: Record<string, unknown>;
  scope: JournalScope;
  ownerPid: number;
  /** The owner's /proc start time, so a reused pid is never taken for it (null: unknown). */
  ownerStartTicks?: number | null;
  runId: number | null;
}

function toEntry(row: JournalRow): StoredJournalEntry {
  return {
    id: row.id,
    createdAt: row.created_at,
    gpu: row.gpu,
    operation: row.operation,
    prior: JSON.parse(row.prior_json) as Record<string, unknown>,
    applied: JSON.parse(row.applied_json) as Record<string, unknown>,
    scope: row.scope,
    ownerPid: row.owner_pid,
    ownerStartTicks: row.owner_start_ticks,
    runId: row.run_id,
    state: row.state,
    restoredAt: row.restored_at,
    error: row.error,
  };
}

export class GpuJournalStore {
  private readonly insertEntry;
  private readonly setState;
  private readonly setRestored;
  private readonly setError;
  private readonly setRun;
  private readonly setApplied;
  private readonly selectOpen;
  private readonly selectManual;
  private readonly selectById;

  constructor(db: Db) {
    this.insertEntry = db.prepare(
      `INSERT INTO gpu_settings_journal (created_at, gpu, operation, prior_json, applied_json, scope, owner_pid, owner_start_ticks, run_id, state)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')`,
    );
    this.setState = db.prepare<[JournalState, string | null, number]>('UPDATE gpu_settings_journal SET state = ?, error = ? WHERE id = ?');
    this.setRestored = db.prepare<[string, number]>("UPDATE gpu_settings_journal SET state = 'restored', restored_at = ?, error = NULL WHERE id = ?");
    this.setError = db.prepare<[string, number]>('UPDATE gpu_settings_journal SET error = ? WHERE id = ?');
    this.setRun = db.prepare<[number, number]>('UPDATE gpu_settings_journal SET run_id = ? WHERE id = ?');
    this.setApplied = db.prepare<[string, number]>("UPDATE gpu_settings_journal SET state = 'applied', applied_json = ?, error = NULL WHERE id = ?");
    // Run and sweep changes not yet put back, newest first (the order to undo them in).
    this.selectOpen = db.prepare<[], JournalRow>(
      "SELECT * FROM gpu_settings_journal WHERE scope IN ('run', 'sweep') AND state IN ('pending', 'applied') ORDER BY id DESC",
    );
    this.selectManual = db.prepare<[], JournalRow>("SELECT * FROM gpu_settings_journal WHERE scope = 'manual' AND state = 'applied' ORDER BY id DESC");
    this.selectById = db.prepare<[number], JournalRow>('SELECT * FROM gpu_settings_journal WHERE id = ?');
  }

  /** Written before the change is tried: a crash between this and nvidia-smi still leaves a record to undo. */
  begin(entry: NewJournalEntry): number {
    const result = this.insertEntry.run(
      entry.createdAt.toISOString(),
      entry.gpu,
      entry.operation,
      JSON.stringify(entry.prior),
      JSON.stringify(entry.applied),
      entry.scope,
      entry.ownerPid,
      entry.ownerStartTicks ?? null,
      entry.runId,
    );
    return Number(result.lastInsertRowid);
  }

  markApplied(id: number, applied: Record<string, unknown>): void {
    this.setApplied.run(JSON.stringify(applied), id);
  }

  markFailed(id: number, error: string): void {
    this.setState.run('failed', error, id);
  }

  markRestored(id: number, at: Date): void {
    this.setRestored.run(at.toISOString(), id);
  }

  /** A restore that did not work: the entry stays open so the next start tries again. */
  noteRestoreError(id: number, error: string): void {
    this.setError.run(error, id);
  }

  attachRun(ids: readonly number[], runId: number): void {
    for (const id of ids) this.setRun.run(runId, id);
  }

  get(id: number): StoredJournalEntry | null {
    const row = this.selectById.get(id);
    return row ? toEntry(row) : null;
  }

  /** Run and sweep changes still pending or applied, newest first. */
  open(): StoredJournalEntry[] {
    return this.selectOpen.all().map(toEntry);
  }

  /** Manual changes recorded as in force, newest first. */
  manual(): StoredJournalEntry[] {
    return this.selectManual.all().map(toEntry);
  }
}
