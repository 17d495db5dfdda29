// Sweeps: the plan as asked, its configs, its status and what was skipped; runs point back to them.
import type { Sweep, SweepConfig } from '../../shared/api.js';
import type { Db } from './open.js';

export type SweepStatus = Sweep['status'];
export type SweepKind = Sweep['kind'];

export interface SkippedPosition {
  configIndex: number;
  repeatIndex: number;
  reason: 'person' | 'oom';
}

export interface SweepRecord {
  id: number;
  createdAt: string;
  name: string;
  kind: SweepKind;
  workloadId: number | null;
  workloadName: string;
  plan: string;
  request: Record<string, unknown>;
  configs: SweepConfig[];
  status: SweepStatus;
  skipped: SkippedPosition[];
  ownerPid: number | null;
  /** The owner's /proc start time (null in rows from before it was kept). */
  ownerStartTicks: number | null;
  endedAt: string | null;
  result: Sweep['result'];
  error: string | null;
  /** Why it ended before its plan when no person cancelled it (see Sweep.endedNote). */
  endedNote: string | null;
}

interface SweepRow {
  id: number;
  created_at: string;
  name: string;
  kind: SweepKind;
  workload_id: number | null;
  workload_name: string;
  plan: string;
  request_json: string;
  configs_json: string;
  status: SweepStatus;
  skipped_json: string;
  owner_pid: number | null;
  owner_start_ticks: number | null;
  ended_at: string | null;
  result_json: string | null;
  error: string | null;
  ended_note: string | null;
}

function toRecord(row: SweepRow): SweepRecord {
  return {
    id: row.id,
    createdAt: row.created_at,
    name: row.name,
    kind: row.kind,
    workloadId: row.workload_id,
    workloadName: row.workload_name,
    plan: row.plan,
    request: JSON.parse(row.request_json) as Record<string, unknown>,
    configs: JSON.parse(row.configs_json) as SweepConfig[],
    status: row.status,
    skipped: JSON.parse(row.skipped_json) as SkippedPosition[],
    ownerPid: row.owner_pid,
    ownerStartTicks: row.owner_start_ticks,
    endedAt: row.ended_at,
    result: row.result_json ? (JSON.parse(row.result_json) as Sweep['result']) : null,
    error: row.error,
    endedNote: row.ended_note,
  };
}

export interface NewSweep {
  createdAt: Date;
  name: string;
  kind: SweepKind;
  workloadId: number | null;
  workloadName: string;
  plan: string;
  request: Record<string, unknown>;
  configs: SweepConfig[];
  ownerPid: number;
  ownerStartTicks: number | null;
}

export class SweepStore {
  private readonly statements;

  constructor(db: Db) {
    this.statements = {
      insert: db.prepare(
        `INSERT INTO sweeps (created_at, name, kind, workload_id, workload_name, plan, request_json, configs_json, status, owner_pid, owner_start_ticks)
         VALUES (@createdAt, @name, @kind, @workloadId, @workloadName, @plan, @request, @configs, 'queued', @ownerPid, @ownerStartTicks)`,
      ),
      get: db.prepare<[number], SweepRow>('SELECT * FROM sweeps WHERE id = ?'),
      list: db.prepare<[number], SweepRow>('SELECT * FROM sweeps ORDER BY id DESC LIMIT ?'),
      unfinished: db.prepare<[], SweepRow>("SELECT * FROM sweeps WHERE status IN ('queued', 'running', 'paused')"),
      setStatus: db.prepare<[SweepStatus, string | null, number]>('UPDATE sweeps SET status = ?, ended_at = ? WHERE id = ?'),
      setOwner: db.prepare<[number, number | null, number]>('UPDATE sweeps SET owner_pid = ?, owner_start_ticks = ? WHERE id = ?'),
      setSkipped: db.prepare<[string, number]>('UPDATE sweeps SET skipped_json = ? WHERE id = ?'),
      setConfigs: db.prepare<[string, number]>('UPDATE sweeps SET configs_json = ? WHERE id = ?'),
      setResult: db.prepare<[string, number]>('UPDATE sweeps SET result_json = ? WHERE id = ?'),
      setError: db.prepare<[string | null, number]>('UPDATE sweeps SET error = ? WHERE id = ?'),
      setEndedNote: db.prepare<[string, number]>('UPDATE sweeps SET ended_note = ? WHERE id = ?'),
      remove: db.prepare<[number]>('DELETE FROM sweeps WHERE id = ?'),
    };
  }

  insert(sweep: NewSweep): SweepRecord {
    const result = this.statements.insert.run({
      createdAt: sweep.createdAt.toISOString(),
      name: sweep.name,
      kind: sweep.kind,
      workloadId: sweep.workloadId,
      workloadName: sweep.workloadName,
      plan: sweep.plan,
      request: JSON.stringify(sweep.request),
      configs: JSON.stringify(sweep.configs),
      ownerPid: sweep.ownerPid,
      ownerStartTicks: sweep.ownerStartTicks,
    });
    return this.get(Number(result.lastInsertRowid))!;
  }

  get(id: number): SweepRecord | null {
    const row = this.statements.get.get(id);
    return row ? toRecord(row) : null;
  }

  list(limit: number): SweepRecord[] {
    return this.statements.list.all(limit).map(toRecord);
  }

  /** Queued, running or paused: at a start, the ones whose engine is gone were interrupted. */
  unfinished(): SweepRecord[] {
    return this.statements.unfinished.all().map(toRecord);
  }

  setStatus(id: number, status: SweepStatus, endedAt: Date | null = null): void {
    this.statements.setStatus.run(status, endedAt?.toISOString() ?? null, id);
  }

  setOwner(id: number, owner: { pid: number; startTicks: number | null }): void {
    this.statements.setOwner.run(owner.pid, owner.startTicks, id);
  }

  setSkipped(id: number, skipped: readonly SkippedPosition[]): void {
    this.statements.setSkipped.run(JSON.stringify(skipped), id);
  }

  setConfigs(id: number, configs: readonly SweepConfig[]): void {
    this.statements.setConfigs.run(JSON.stringify(configs), id);
  }

  setResult(id: number, result: NonNullable<Sweep['result']>): void {
    this.statements.setResult.run(JSON.stringify(result), id);
  }

  setError(id: number, error: string | null): void {
    this.statements.setError.run(error, id);
  }

  setEndedNote(id: number, note: string): void {
    this.statements.setEndedNote.run(note, id);
  }

  remove(id: number): void {
    this.statements.remove.run(id);
  }
}
