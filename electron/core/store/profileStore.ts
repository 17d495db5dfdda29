// Step profiles of runs: stored, read back, and the latest one made from a run's command.
import { runProfile, type RunProfile } from '../../shared/profile.js';
import type { Db } from './open.js';

interface ProfileRow {
  profile_json: string;
}

export class ProfileStore {
  private readonly upsert;
  private readonly selectByRun;
  private readonly selectLatestFromSource;

  constructor(db: Db) {
    this.upsert = db.prepare(
      `INSERT INTO run_profiles (run_id, source_run_id, tool, profile_json, trace_path, created_at)
       VALUES (@run_id, @source_run_id, @tool, @profile_json, @trace_path, @created_at)
       ON CONFLICT (run_id) DO UPDATE SET source_run_id = excluded.source_run_id, tool = excluded.tool,
         profile_json = excluded.profile_json, trace_path = excluded.trace_path, created_at = excluded.created_at`,
    );
    this.selectByRun = db.prepare<[number], ProfileRow>('SELECT profile_json FROM run_profiles WHERE run_id = ?');
    this.selectLatestFromSource = db.prepare<[number], ProfileRow>(
      'SELECT profile_json FROM run_profiles WHERE source_run_id = ? ORDER BY run_id DESC LIMIT 1',
    );
  }

  save(profile: RunProfile): void {
    this.upsert.run({
      run_id: profile.runId,
      source_run_id: profile.sourceRunId,
      tool: profile.tool,
      profile_json: JSON.stringify(profile),
      trace_path: profile.tracePath,
      created_at: profile.createdAt,
    });
  }

  /**
   * When the profiler was on during this run itself (not a re-run of it), in epoch ms: what a summary of the
   * run, made again later (a re-parse), must leave out as `profiledSpan`.
   */
  ownSpan(runId: number): { startedAtMs: number; endedAtMs: number } | null {
    const row = this.selectByRun.get(runId);
    return row ? runProfile.parse(JSON.parse(row.profile_json)).span : null;
  }

  /** The run's own profile, else the newest profile made by running its command again. */
  forRun(runId: number): RunProfile | null {
    const row = this.selectByRun.get(runId) ?? this.selectLatestFromSource.get(runId);
    return row ? runProfile.parse(JSON.parse(row.profile_json)) : null;
  }
}
