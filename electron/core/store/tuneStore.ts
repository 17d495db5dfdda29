// Tunes: the request, the steps decided so far and the status, written after each step (see migration 0017).
import type { TuneRecord, TuneRequest, TuneResult } from '../../shared/api.js';
import type { Db } from './open.js';

export type TuneStatus = TuneRecord['status'];

interface TuneRow {
  id: number;
  created_at: string;
  ended_at: string | null;
  status: TuneStatus;
  source_run_id: number | null;
  request_json: string;
  result_json: string;
  owner_pid: number | null;
  owner_start_ticks: number | null;
}

export interface StoredTune extends TuneRecord {
  ownerPid: number | null;
  ownerStartTicks: number | null;
}

function toRecord(row: TuneRow): StoredTune {
  return {
    id: row.id,
    createdAt: row.created_at,
    endedAt: row.ended_at,
    status: row.status,
    sourceRunId: row.source_run_id,
    request: JSON.parse(row.request_json) as TuneRequest,
    result: JSON.parse(row.result_json) as TuneResult,
    ownerPid: row.owner_pid,
    ownerStartTicks: row.owner_start_ticks,
  };
}

export class TuneStore {
  private readonly statements;

  constructor(db: Db) {
    this.statements = {
      insert: db.prepare(
        `INSERT INTO tunes (created_at, status, source_run_id, request_json, result_json, owner_pid, owner_start_ticks)
         VALUES (@createdAt, 'running', @sourceRunId, @request, @result, @ownerPid, @ownerStartTicks)`,
      ),
      get: db.prepare<[number], TuneRow>('SELECT * FROM tunes WHERE id = ?'),
      list: db.prepare<[number], TuneRow>('SELECT * FROM tunes ORDER BY id DESC LIMIT ?'),
      listOfRun: db.prepare<[number, number], TuneRow>('SELECT * FROM tunes WHERE source_run_id = ? ORDER BY id DESC LIMIT ?'),
      running: db.prepare<[], TuneRow>("SELECT * FROM tunes WHERE status = 'running'"),
      setResult: db.prepare<[string, number]>('UPDATE tunes SET result_json = ? WHERE id = ?'),
      setStatus: db.prepare<[TuneStatus, string | null, number]>('UPDATE tunes SET status = ?, ended_at = ? WHERE id = ?'),
      setOwner: db.prepare<[number, number | null, number]>(
        "UPDATE tunes SET owner_pid = ?, owner_start_ticks = ?, status = 'running', ended_at = NULL WHERE id = ?",
      ),
    };
  }

  insert(tune: {
    createdAt: Date;
    sourceRunId: number | null;
    request: TuneRequest;
    result: TuneResult;
    owner: { pid: number; startTicks: number | null };
  }): StoredTune {
    const inserted = this.statements.insert.run({
      createdAt: tune.createdAt.toISOString(),
      sourceRunId: tune.sourceRunId,
      request: JSON.stringify(tune.request),
      result: JSON.stringify(tune.result),
      ownerPid: tune.owner.pid,
      ownerStartTicks: tune.owner.startTicks,
    });
    return this.get(Number(inserted.lastInsertRowid))!;
  }

  get(id: number): StoredTune | null {
    const row = this.statements.get.get(id);
    return row ? toRecord(row) : null;
  }

  list(limit: number, sourceRunId?: number): StoredTune[] {
    const rows = sourceRunId === undefined ? this.statements.list.all(limit) : this.statements.listOfRun.all(sourceRunId, limit);
    return rows.map(toRecord);
  }

  /** Tunes that say they are running: at a start, the ones whose engine is gone were interrupted. */
  running(): StoredTune[] {
    return this.statements.running.all().map(toRecord);
  }

  setResult(id: number, result: TuneResult): void {
    this.statements.setResult.run(JSON.stringify(result), id);
  }

  setStatus(id: number, status: TuneStatus, endedAt: Date | null): void {
    this.statements.setStatus.run(status, endedAt?.toISOString() ?? null, id);
  }

  /** Taken up again by this engine (a resume): running, owned by it. */
  takeOver(id: number, owner: { pid: number; startTicks: number | null }): void {
    this.statements.setOwner.run(owner.pid, owner.startTicks, id);
  }
}
