// MLflow's side of the database: this database's id, the record of what was published where, the setting, the
// streamed reads a publication sends (series, telemetry by the second) and the rows a run pulled back is written as.
import type { Publication, Run, RunOrigin } from '../../shared/api.js';
import type { MetricStore } from './metricStore.js';
import type { GpuSampleRecord, HostSample, MetricKind, MetricSource } from './records.js';

import type { Db } from './open.js';
import { splitLegacyFingerprint } from './recordingState.js';

/** Which thing a publication is of: a run, a sweep or a comparison (by the digest of what it compares). */
export type PublicationSubject = { kind: 'run'; runId: number } | { kind: 'sweep'; sweepId: number } | { kind: 'comparison'; key: string; request: unknown };

export interface PublicationTarget {
  /** Without credentials. */
  trackingUri: string;
  experimentName: string;
}

export interface StoredSettings {
  trackingUri: string | null;
  experimentName: string | null;
  autoPublish: boolean;
}

interface PublicationRow {
  tracking_uri: string;
  experiment_name: string;
  experiment_id: string | null;
  run_id: number | null;
  sweep_id: number | null;
  comparison_key: string | null;
  mlflow_run_id: string | null;
  state: Publication['state'];
  digest: string | null;
  requested_at: string;
  published_at: string | null;
  error: string | null;
}

/** A publication as stored, with the digest of what was sent (not part of the contract). */
export type StoredPublication = Omit<Publication, 'url'> & { digest: string | null };

/** One metric's value at one step: the last one the run logged there. */
export interface SeriesPoint {
  name: string;
  step: number;
  tMs: number;
  value: number;
}

/** A second of one GPU's samples, averaged. */
export interface GpuSecond {
  gpu: number;
  second: number;
  utilGpu: number | null;
  memUsedMiB: number | null;
  memPercent: number | null;
  powerW: number | null;
  powerPercent: number | null;
  tempC: number | null;
  smClockMHz: number | null;
  memClockMHz: number | null;
}

/** A second of host samples, averaged. */
export interface HostSecond {
  second: number;
  cpuTotal: number | null;
  iowait: number | null;
  memUsedMiB: number | null;
  swapUsedMiB: number | null;
  procCpu: number | null;
  procRssMiB: number | null;
}

/** A metric sample of a run pulled back from MLflow. */
export interface ImportedSample {
  step: number | null;
  tMs: number;
  name: string;
  value: number;
  kind: MetricKind;
  source: MetricSource;
}

const subjectColumn = { run: 'run_id', sweep: 'sweep_id', comparison: 'comparison_key' } as const;

function subjectValue(subject: PublicationSubject): number | string {
  return subject.kind === 'run' ? subject.runId : subject.kind === 'sweep' ? subject.sweepId : subject.key;
}

function toPublication(row: PublicationRow): StoredPublication {
  return {
    kind: row.run_id !== null ? 'run' : row.sweep_id !== null ? 'sweep' : 'comparison',
    runId: row.run_id,
    sweepId: row.sweep_id,
    comparisonKey: row.comparison_key,
    trackingUri: row.tracking_uri,
    experimentName: row.experiment_name,
    experimentId: row.experiment_id,
    mlflowRunId: row.mlflow_run_id,
    state: row.state,
    requestedAt: row.requested_at,
    publishedAt: row.published_at,
    error: row.error,
    digest: row.digest,
  };
}

export class MlflowStore {
  /** `metrics`: the store's, the one owner of the sample blocks' reads and writes. */
  constructor(
    private readonly db: Db,
    private readonly metrics: MetricStore,
  ) {}

  /** This database's random id (made by its migration): with a run's id, it names the run in MLflow. */
  databaseId(): string {
    return this.db.prepare<[], { uuid: string }>('SELECT uuid FROM database_identity WHERE singleton = 1').get()!.uuid;
  }

  settings(): StoredSettings {
    const row = this.db
      .prepare<[], { tracking_uri: string | null; experiment_name: string | null; auto_publish: number }>('SELECT * FROM mlflow_settings WHERE singleton = 1')
      .get();
    return { trackingUri: row?.tracking_uri ?? null, experimentName: row?.experiment_name ?? null, autoPublish: row?.auto_publish === 1 };
  }

  saveSettings(settings: StoredSettings): void {
    this.db
      .prepare(
        `INSERT INTO mlflow_settings (singleton, tracking_uri, experiment_name, auto_publish) VALUES (1, ?, ?, ?)
         ON CONFLICT (singleton) DO UPDATE SET tracking_uri = excluded.tracking_uri, experiment_name = excluded.experiment_name, auto_publish = excluded.auto_publish`,
      )
      .run(settings.trackingUri, settings.experimentName, settings.autoPublish ? 1 : 0);
  }

  publication(subject: PublicationSubject, target: PublicationTarget): StoredPublication | null {
    const row = this.db
      .prepare<[number | string, string, string], PublicationRow>(
        `SELECT * FROM mlflow_publications WHERE ${subjectColumn[subject.kind]} = ? AND tracking_uri = ? AND experiment_name = ?`,
      )
      .get(subjectValue(subject), target.trackingUri, target.experimentName);
    return row ? toPublication(row) : null;
  }

  /** Every publication of a run, a sweep or a comparison (every one there is with none), newest first. */
  publications(subject: PublicationSubject | null): StoredPublication[] {
    if (subject === null) return this.db.prepare<[], PublicationRow>('SELECT * FROM mlflow_publications ORDER BY id DESC').all().map(toPublication);
    return this.db
      .prepare<[number | string], PublicationRow>(`SELECT * FROM mlflow_publications WHERE ${subjectColumn[subject.kind]} = ? ORDER BY id DESC`)
      .all(subjectValue(subject))
      .map(toPublication);
  }

  /** Publications asked for while the run (or sweep) still ran: published when it ends. */
  pending(kind: 'run' | 'sweep', id: number): StoredPublication[] {
    return this.db
      .prepare<[number], PublicationRow>(`SELECT * FROM mlflow_publications WHERE ${subjectColumn[kind]} = ? AND state = 'pending' ORDER BY id`)
      .all(id)
      .map(toPublication);
  }

  /** Asks for a publication once its run or sweep has ended; one already made stays as it was until then. */
  markPending(subject: Exclude<PublicationSubject, { kind: 'comparison' }>, target: PublicationTarget, now: Date): void {
    this.db
      .prepare(
        `INSERT INTO mlflow_publications (tracking_uri, experiment_name, ${subjectColumn[subject.kind]}, state, requested_at) VALUES (?, ?, ?, 'pending', ?)
         ON CONFLICT DO UPDATE SET state = 'pending', requested_at = excluded.requested_at, error = NULL`,
      )
      .run(target.trackingUri, target.experimentName, subjectValue(subject), now.toISOString());
  }

  /** Records a publication that reached the server: where it went and the digest of what was sent. */
  recordPublished(
    subject: PublicationSubject,
    target: PublicationTarget,
    published: { experimentId: string; mlflowRunId: string; digest: string },
    now: Date,
  ): StoredPublication {
    const request = subject.kind === 'comparison' ? JSON.stringify(subject.request) : null;
    this.db
      .prepare(
        `INSERT INTO mlflow_publications (tracking_uri, experiment_name, experiment_id, ${subjectColumn[subject.kind]}, comparison_json, mlflow_run_id, state, digest,
           requested_at, published_at) VALUES (@uri, @experiment, @experimentId, @subject, @request, @mlflowRunId, 'published', @digest, @now, @now)
         ON CONFLICT DO UPDATE SET experiment_id = excluded.experiment_id, mlflow_run_id = excluded.mlflow_run_id, state = 'published',
           digest = excluded.digest, published_at = excluded.published_at, error = NULL`,
      )
      .run({
        uri: target.trackingUri,
        experiment: target.experimentName,
        experimentId: published.experimentId,
        subject: subjectValue(subject),
        request,
        mlflowRunId: published.mlflowRunId,
        digest: published.digest,
        now: now.toISOString(),
      });
    return this.publication(subject, target)!;
  }

  /**
   * A pending publication that could not be made: said on its record. Only a pending one changes: a failed
   * publish leaves a published record (and everything else) as it was.
   */
  recordPendingFailed(subject: PublicationSubject, target: PublicationTarget, error: string): StoredPublication | null {
    this.db
      .prepare(
        `UPDATE mlflow_publications SET state = 'failed', error = ? WHERE ${subjectColumn[subject.kind]} = ? AND tracking_uri = ? AND experiment_name = ? AND state = 'pending'`,
      )
      .run(error, subjectValue(subject), target.trackingUri, target.experimentName);
    return this.publication(subject, target);
  }

  /** The process that recorded a run (a live run ends there); null for an imported run. */
  runEnginePid(runId: number): number | null {
    return this.db.prepare<[number], { engine_pid: number | null }>('SELECT engine_pid FROM runs WHERE id = ?').get(runId)?.engine_pid ?? null;
  }

  sweepOwnerPid(sweepId: number): number | null {
    return this.db.prepare<[number], { owner_pid: number | null }>('SELECT owner_pid FROM sweeps WHERE id = ?').get(sweepId)?.owner_pid ?? null;
  }

  /**
   * A page of a run's metric series, one value per name and step (the last logged there), name by name in step
   * order, after the point given; from the run's sample blocks. Read in pages, never through an open
   * iterator: the connection must stay free for live runs while a page is being sent.
   */
  seriesPage(runId: number, after: { name: string; step: number } | null, limit: number): SeriesPoint[] {
    return this.metrics.seriesPage(runId, after, limit);
  }

  /**
   * A page of the samples without a step of names that have none with one, in the order they were logged: such a
   * name's values are numbered from 0 by the caller. `afterRowid` is the order of the last sample of the previous page.
   */
  unsteppedPage(runId: number, afterRowid: number, limit: number): Array<SeriesPoint & { rowid: number }> {
    return this.metrics
      .unsteppedPage(runId, afterRowid, limit)
      .map((point) => ({ rowid: point.order, name: point.name, step: 0, tMs: point.tMs, value: point.value }));
  }

  /** The kind each metric of a run was logged as (train, eval, progress, summary): the most common one per name. */
  metricKinds(runId: number): Record<string, MetricKind> {
    return this.metrics.kindsByName(runId);
  }

  /** The GPUs a run has samples of. */
  gpuIndexes(runId: number): number[] {
    return this.db.prepare<[number], number>('SELECT DISTINCT gpu_index FROM gpu_samples WHERE run_id = ? ORDER BY gpu_index').pluck().all(runId);
  }

  /** A page of one GPU's telemetry averaged over each second of the run, from `fromSecond` on (the store keeps 4 samples a second by default). */
  gpuSecondsPage(runId: number, gpu: number, fromSecond: number, limit: number): GpuSecond[] {
    return this.db
      .prepare<[number, number, number, number], GpuSecond>(
        `SELECT gpu_index AS gpu, CAST(t_ms / 1000 AS INTEGER) AS second, AVG(util_gpu) AS utilGpu, AVG(mem_used_mib) AS memUsedMiB,
           AVG(100.0 * mem_used_mib / NULLIF(mem_total_mib, 0)) AS memPercent, AVG(power_w) AS powerW,
           AVG(100.0 * power_w / NULLIF(json_extract(extra_json, '$.powerLimitW'), 0)) AS powerPercent, AVG(temp_c) AS tempC,
           AVG(sm_clock_mhz) AS smClockMHz, AVG(mem_clock_mhz) AS memClockMHz
         FROM gpu_samples WHERE run_id = ? AND gpu_index = ? AND t_ms >= ? GROUP BY second ORDER BY second LIMIT ?`,
      )
      .all(runId, gpu, fromSecond * 1000, limit);
  }

  /** A page of host telemetry averaged over each second of the run, from `fromSecond` on. */
  hostSecondsPage(runId: number, fromSecond: number, limit: number): HostSecond[] {
    return this.db
      .prepare<[number, number, number], HostSecond>(
        `SELECT CAST(t_ms / 1000 AS INTEGER) AS second, AVG(cpu_total) AS cpuTotal, AVG(cpu_iowait) AS iowait, AVG(mem_used_mib) AS memUsedMiB,
           AVG(swap_used_mib) AS swapUsedMiB, AVG(proc_cpu) AS procCpu, AVG(proc_rss_mib) AS procRssMiB
         FROM host_samples WHERE run_id = ? AND t_ms >= ? GROUP BY second ORDER BY second LIMIT ?`,
      )
      .all(runId, fromSecond * 1000, limit);
  }

  /** A page of a run's stored output, exactly as written, after `afterSeq`. */
  outputPage(runId: number, afterSeq: number, limit: number): Array<{ seq: number; data: Buffer }> {
    return this.db
      .prepare<[number, number, number], { seq: number; data: Buffer }>('SELECT seq, data FROM run_output WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?')
      .all(runId, afterSeq, limit);
  }

  /** A local run pulled back from this MLflow run, or from the same run of the same database. */
  importedRunId(origin: Pick<RunOrigin, 'mlflowRunId' | 'databaseId' | 'runId'>): number | null {
    const row = this.db
      .prepare<[string, string, number], { id: number }>(
        `SELECT id FROM runs WHERE origin_json IS NOT NULL AND (json_extract(origin_json, '$.mlflowRunId') = ?
           OR (json_extract(origin_json, '$.databaseId') = ? AND json_extract(origin_json, '$.runId') = ?)) ORDER BY id LIMIT 1`,
      )
      .get(origin.mlflowRunId, origin.databaseId, origin.runId);
    return row?.id ?? null;
  }

  /**
   * Writes the record of a run pulled back from MLflow; its samples follow page by page (appendImported*), as they
   * are read from the server, and a failed import removes the run with them (RunStore.remove). It keeps what it was
   * on its own box, but not its place in a sweep there.
   */
  insertImportedRun(record: Run, origin: RunOrigin): number {
    // A record published by an engine before schema 20 carries its recording notes in the fingerprint.
    const legacy = record.fingerprint === null ? null : splitLegacyFingerprint(record.fingerprint);
    const fingerprint = legacy?.fingerprint ?? null;
    const state = {
      telemetryNotes: [...record.telemetryNotes, ...(legacy?.state.telemetryNotes ?? [])],
      parsingNotes: [...record.parsingNotes, ...(legacy?.state.parsingNotes ?? [])],
      survivorPids: [...record.survivorPids, ...(legacy?.state.survivorPids ?? [])],
    };
    const result = this.db
      .prepare(
        `INSERT INTO runs (workload_id, workload_name, status, exit_code, signal, exit_class, exit_reason, started_at, ended_at, command_json, cwd,
           config_json, env_json, output_bytes, summary_json, gpu_settings_json, fingerprint_json, notes, tags_json, units_per_step_json, git_json, origin_json,
           telemetry_notes_json, parsing_notes_json, survivor_pids_json)
         VALUES (NULL, @workloadName, @status, @exitCode, @signal, @exitClass, @exitReason, @startedAt, @endedAt, @command, @cwd,
           @config, @env, 0, @summary, @gpuSettings, @fingerprint, @notes, @tags, @unitsPerStep, @git, @origin,
           @telemetryNotes, @parsingNotes, @survivorPids)`,
      )
      .run({
        workloadName: record.workloadName,
        status: record.status === 'running' ? 'interrupted' : record.status,
        exitCode: record.exitCode,
        signal: record.signal,
        exitClass: record.exitClass,
        exitReason: record.exitReason,
        startedAt: record.startedAt,
        endedAt: record.endedAt,
        command: JSON.stringify(record.command),
        cwd: record.cwd,
        config: JSON.stringify(record.config),
        env: JSON.stringify(record.env),
        summary: JSON.stringify(record.summary),
        gpuSettings: record.gpuSettings === null ? null : JSON.stringify(record.gpuSettings),
        fingerprint: fingerprint === null ? null : JSON.stringify(fingerprint),
        telemetryNotes: JSON.stringify(state.telemetryNotes),
        parsingNotes: JSON.stringify(state.parsingNotes),
        survivorPids: JSON.stringify(state.survivorPids),
        notes: record.notes,
        tags: JSON.stringify(record.tags),
        unitsPerStep: record.unitsPerStep === null ? null : JSON.stringify(record.unitsPerStep),
        git: record.git === null ? null : JSON.stringify(record.git),
        origin: JSON.stringify(origin),
      });
    return Number(result.lastInsertRowid);
  }

  /** One page of an imported run's metric samples, in one transaction. */
  appendImportedMetrics(runId: number, samples: readonly ImportedSample[]): void {
    this.metrics.writeNow(runId, samples);
  }

  /** An imported run's GPU samples (a second each), in one transaction; the whole sample is kept as JSON as the sampler's are. */
  appendImportedGpu(runId: number, samples: ReadonlyArray<GpuSampleRecord & { powerLimitW: number | null }>): void {
    const insert = this.db.prepare(
      `INSERT INTO gpu_samples (run_id, t_ms, gpu_index, util_gpu, util_mem, mem_used_mib, mem_total_mib, power_w, temp_c, sm_clock_mhz, mem_clock_mhz,
         throttle_reasons, extra_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.db.transaction(() => {
      for (const s of samples) {
        insert.run(
          runId,
          s.tMs,
          s.index ?? 0,
          s.utilGpu,
          s.utilMem,
          s.memUsedMiB,
          s.memTotalMiB,
          s.powerW,
          s.tempC,
          s.smClockMHz,
          s.memClockMHz,
          s.throttleReasons,
          JSON.stringify(s),
        );
      }
    })();
  }

  /** An imported run's host samples (a second each), in one transaction. */
  appendImportedHost(runId: number, samples: readonly HostSample[]): void {
    const insert = this.db.prepare(
      `INSERT INTO host_samples (run_id, t_ms, cpu_total, cpu_iowait, mem_used_mib, swap_used_mib, proc_cpu, proc_rss_mib, extra_json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.db.transaction(() => {
      for (const s of samples) {
        const extra = {
          cpuPerCore: s.cpuPerCore,
          threads: s.threads,
          readBytesPerSec: s.readBytesPerSec,
          writeBytesPerSec: s.writeBytesPerSec,
          busiestThreadCpu: s.busiestThreadCpu,
        };
        insert.run(runId, s.tMs, s.cpuTotal, s.iowait, s.memUsedMiB, s.swapUsedMiB, s.procCpu, s.procRssMiB, JSON.stringify(extra));
      }
    })();
  }
}
