// Runs and their stored output: the record of what ran, how it ended, and every byte it wrote.
import type { ExitClass, OutputChunk, Run, RunCheckout, RunStatus, RunSummary, RunTypedCommand } from '../../shared/api.js';
import type { SummaryHistoryEntry } from '../../shared/api.js';
import { runCheckout, runSummary, runTypedCommand } from '../../shared/api.js';
import { runKnobs, type RunKnobs } from '../../shared/knobs.js';
import { BUSY_TIMEOUT_MS, type Db } from './open.js';
import { MAX_RECORDING_NOTES } from './recordingState.js';

interface RunRow {
  id: number;
  workload_id: number | null;
  workload_name: string | null;
  status: RunStatus;
  exit_code: number | null;
  signal: string | null;
  exit_class: ExitClass | null;
  exit_reason: string | null;
  started_at: string;
  ended_at: string | null;
  command_json: string;
  cwd: string;
  config_json: string;
  env_json: string;
  pid: number | null;
  pid_start_ticks: number | null;
  engine_pid: number | null;
  engine_start_ticks: number | null;
  process_marker: string | null;
  output_bytes: number;
  output_dropped_bytes: number;
  summary_json: string | null;
  gpu_settings_json: string | null;
  fingerprint_json: string | null;
  sweep_id: number | null;
  config_index: number | null;
  repeat_index: number | null;
  wait_json: string | null;
  notes: string;
  tags_json: string;
  units_per_step_json: string | null;
  step_choices_json: string | null;
  git_json: string | null;
  checkout_json: string | null;
  typed_command_json: string | null;
  knobs_json: string | null;
  replaces_run_id: number | null;
  origin_json: string | null;
  telemetry_notes_json: string | null;
  parsing_notes_json: string | null;
  survivor_pids_json: string | null;
  orphaned: 0 | 1;
  /** Not a column: the run that replaced this one, found by RUN_COLUMNS' subquery. */
  replaced_by_run_id: number | null;
}

/**
 * Every stored column, and the run that replaced this one (the first whose replaces_run_id names it), so a
 * replacement is recorded once, on the new run, and both runs can point at each other.
 */
const RUN_COLUMNS = 'runs.*, (SELECT later.id FROM runs AS later WHERE later.replaces_run_id = runs.id ORDER BY later.id LIMIT 1) AS replaced_by_run_id';

export interface NewRun {
  workloadId: number | null;
  workloadName: string | null;
  command: string[];
  cwd: string;
  config: Record<string, string>;
  env: Record<string, string>;
  startedAt: Date;
  enginePid: number;
  /** The engine's /proc start time, so a reused pid is never taken for it (null: unknown, no /proc). */
  engineStartTicks?: number | null;
  /** The token in every one of the run's processes' environment (see runner/processMarker). */
  processMarker?: string | null;
  /** Where the run sits in a sweep, if it belongs to one. */
  sweep?: RunPlacement | null | undefined;
  /** Tokens or samples in one step as the user stated them. */
  unitsPerStep?: UnitsPerStep | null | undefined;
  /** Warm-up and left-out steps set by hand for it (or by its sweep). */
  steps?: Run['steps'] | undefined;
  /** The temporary worktree it runs in (a before/after side). */
  checkout?: RunCheckout | null | undefined;
  /** The command as typed, with its {variables} and their values (a run of a typed command). */
  typedCommand?: RunTypedCommand | null | undefined;
  /** The knobs it asked for (each not yet reported on). */
  knobs?: RunKnobs | null | undefined;
}

export interface UnitsPerStep {
  tokens: number | null;
  samples: number | null;
}

/** Chart series by name, each [x, y] points: metrics by step, telemetry by seconds since the start. */
export interface StoredSeries {
  metrics: Record<string, Array<[number, number]>>;
  telemetry: Record<string, Array<[number, number]>>;
}

export interface RunPlacement {
  sweepId: number;
  configIndex: number;
  repeatIndex: number;
  /** The interrupted run at this place that this run is started to replace (a resumed sweep's re-run). */
  replacesRunId?: number | null | undefined;
}

export interface RunEnding {
  status: Exclude<RunStatus, 'running'>;
  exitCode: number | null;
  signal: string | null;
  exitClass: ExitClass | null;
  exitReason: string | null;
  endedAt: Date;
}

/** One stored chunk of a run's output, as the program wrote it. */
export interface StoredChunk {
  seq: number;
  tMs: number;
  data: Buffer;
}

/** Chunks read at once by a paged read: a live chunk is at most 256 KiB, so a page is at most 4 MiB. */
const OUTPUT_PAGE_CHUNKS = 16;

export interface OutputPage {
  chunks: OutputChunk[];
  skippedBytes: number;
  lastSeq: number;
  reachedEnd: boolean;
}

/** A run still marked running: its engine may have died; found at the next start. */
export interface OrphanCandidate {
  id: number;
  startedAt: string;
  pid: number | null;
  pidStartTicks: number | null;
  enginePid: number | null;
  engineStartTicks: number | null;
  processMarker: string | null;
}

export const EMPTY_SUMMARY: RunSummary = {
  steps: null,
  throughput: { median: null, iqr: null, unit: null, blocks: [], resolution: null, overall: null, overallResolution: null, uneven: false },
  steadySteps: null,
  steadyFromMs: null,
  stepTimeMs: { median: null, medianWithOutliers: null, betweenLines: null },
  finalLoss: null,
  bestLoss: null,
  evalLoss: null,
  nanDetected: null,
  lossFell: null,
  warmup: null,
  slowStretches: [],
  outlierSteps: 0,
  profiledSteps: 0,
  outliers: null,
  metricsSource: null,
  hints: [],
  notes: [],
  gpu: null,
  host: null,
  fairness: null,
  tokensPerStep: null,
  samplesPerStep: null,
  lossCurve: [],
  evalCurve: [],
  finalMetrics: {},
};

export class RunStore {
  private readonly statements;

  constructor(private readonly db: Db) {
    this.statements = {
      insert: db.prepare(
        `INSERT INTO runs (workload_id, workload_name, status, started_at, command_json, cwd, config_json, env_json, engine_pid,
           engine_start_ticks, process_marker, sweep_id, config_index, repeat_index, replaces_run_id, units_per_step_json, step_choices_json, checkout_json,
           typed_command_json, knobs_json)
         VALUES (@workloadId, @workloadName, 'running', @startedAt, @command, @cwd, @config, @env, @enginePid,
           @engineStartTicks, @processMarker, @sweepId, @configIndex, @repeatIndex, @replacesRunId, @unitsPerStep, @stepChoices, @checkout,
           @typedCommand, @knobs)`,
      ),
      setPid: db.prepare('UPDATE runs SET pid = ?, pid_start_ticks = ? WHERE id = ?'),
      end: db.prepare(
        `UPDATE runs SET status = @status, exit_code = @exitCode, signal = @signal, exit_class = @exitClass,
           exit_reason = @exitReason, ended_at = @endedAt WHERE id = @id`,
      ),
      get: db.prepare<[number], RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`),
      list: db.prepare<[number], RunRow>(`SELECT ${RUN_COLUMNS} FROM runs ORDER BY id DESC LIMIT ?`),
      running: db.prepare<[], RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE status = 'running'`),
      lastOutputMs: db.prepare<[number], { tMs: number | null }>('SELECT max(t_ms) AS tMs FROM run_output WHERE run_id = ?'),
      since: db.prepare<[number], RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id > ? OR status = 'running' ORDER BY id`),
      markedOrphans: db.prepare<[], RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE status = 'interrupted' AND orphaned = 1`),
      chunksAfter: db.prepare<[number, number], { seq: number; t_ms: number; data: Buffer }>(
        'SELECT seq, t_ms, data FROM run_output WHERE run_id = ? AND seq > ? ORDER BY seq',
      ),
      chunkPage: db.prepare<[number, number, number, number], { seq: number; t_ms: number; data: Buffer }>(
        'SELECT seq, t_ms, data FROM run_output WHERE run_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?',
      ),
      chunksFromEnd: db.prepare<[number], { seq: number; t_ms: number; data: Buffer }>(
        'SELECT seq, t_ms, data FROM run_output WHERE run_id = ? ORDER BY seq DESC',
      ),
      lastSeq: db.prepare<[number], { seq: number | null }>('SELECT MAX(seq) AS seq FROM run_output WHERE run_id = ?'),
      storedBytes: db.prepare<[number], { bytes: number | null }>('SELECT SUM(length(data)) AS bytes FROM run_output WHERE run_id = ?'),
      setOutputBytes: db.prepare('UPDATE runs SET output_bytes = ? WHERE id = ?'),
      setSummary: db.prepare('UPDATE runs SET summary_json = ? WHERE id = ?'),
      setFingerprint: db.prepare('UPDATE runs SET fingerprint_json = ? WHERE id = ?'),
      // Appended in SQL, so two writers (the session and its samplers' callbacks) never drop each other's note.
      addTelemetryNote: db.prepare<[string, number, number]>(
        `UPDATE runs SET telemetry_notes_json = json_insert(COALESCE(telemetry_notes_json, '[]'), '$[#]', ?)
           WHERE id = ? AND json_array_length(COALESCE(telemetry_notes_json, '[]')) < ?`,
      ),
      addParsingNote: db.prepare<[string, number, number]>(
        `UPDATE runs SET parsing_notes_json = json_insert(COALESCE(parsing_notes_json, '[]'), '$[#]', ?)
           WHERE id = ? AND json_array_length(COALESCE(parsing_notes_json, '[]')) < ?`,
      ),
      setSurvivors: db.prepare<[string, number]>('UPDATE runs SET survivor_pids_json = ? WHERE id = ?'),
      markOrphaned: db.prepare<[number]>('UPDATE runs SET orphaned = 1 WHERE id = ?'),
      setGpuSettings: db.prepare('UPDATE runs SET gpu_settings_json = ? WHERE id = ?'),
      setWait: db.prepare('UPDATE runs SET wait_json = ? WHERE id = ?'),
      setStepChoices: db.prepare<[string | null, number]>('UPDATE runs SET step_choices_json = ? WHERE id = ?'),
      setNotes: db.prepare<[string, number]>('UPDATE runs SET notes = ? WHERE id = ?'),
      setTags: db.prepare<[string, number]>('UPDATE runs SET tags_json = ? WHERE id = ?'),
      getSeries: db.prepare<[number], { series_json: string }>('SELECT series_json FROM run_series WHERE run_id = ?'),
      setSeries: db.prepare<[number, string]>('INSERT OR REPLACE INTO run_series (run_id, series_json) VALUES (?, ?)'),
      forSweep: db.prepare<[number], RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE sweep_id = ? ORDER BY id`),
      remove: db.prepare<[number]>('DELETE FROM runs WHERE id = ?'),
      setGit: db.prepare<[string, number]>('UPDATE runs SET git_json = ? WHERE id = ?'),
      setCheckout: db.prepare<[string, number]>('UPDATE runs SET checkout_json = ? WHERE id = ?'),
      setKnobs: db.prepare<[string, number]>('UPDATE runs SET knobs_json = ? WHERE id = ?'),
      addDiff: db.prepare<[string, Buffer]>('INSERT OR IGNORE INTO code_diffs (sha256, diff) VALUES (?, ?)'),
      getDiff: db.prepare<[string], { diff: Buffer }>('SELECT diff FROM code_diffs WHERE sha256 = ?'),
      setWorkload: db.prepare<[number, string, number]>('UPDATE runs SET workload_id = ?, workload_name = ? WHERE id = ?'),
      addHistory: db.prepare<[string, string, number]>(
        'INSERT INTO run_summary_history (run_id, replaced_at, reason, summary_json) SELECT id, ?, ?, summary_json FROM runs WHERE id = ? AND summary_json IS NOT NULL',
      ),
      history: db.prepare<[number], { replaced_at: string; reason: string; summary_json: string }>(
        'SELECT replaced_at, reason, summary_json FROM run_summary_history WHERE run_id = ? ORDER BY id',
      ),
    };
  }

  insert(run: NewRun): Run {
    const result = this.statements.insert.run({
      workloadId: run.workloadId,
      workloadName: run.workloadName,
      startedAt: run.startedAt.toISOString(),
      command: JSON.stringify(run.command),
      cwd: run.cwd,
      config: JSON.stringify(run.config),
      env: JSON.stringify(run.env),
      enginePid: run.enginePid,
      engineStartTicks: run.engineStartTicks ?? null,
      processMarker: run.processMarker ?? null,
      sweepId: run.sweep?.sweepId ?? null,
      configIndex: run.sweep?.configIndex ?? null,
      repeatIndex: run.sweep?.repeatIndex ?? null,
      replacesRunId: run.sweep?.replacesRunId ?? null,
      unitsPerStep: run.unitsPerStep ? JSON.stringify(run.unitsPerStep) : null,
      stepChoices: run.steps ? JSON.stringify(run.steps) : null,
      checkout: run.checkout ? JSON.stringify(run.checkout) : null,
      typedCommand: run.typedCommand ? JSON.stringify(run.typedCommand) : null,
      knobs: run.knobs ? JSON.stringify(run.knobs) : null,
    });
    return this.get(Number(result.lastInsertRowid))!;
  }

  setPid(id: number, pid: number, startTicks: number | null): void {
    this.statements.setPid.run(pid, startTicks, id);
  }

  /**
   * Runs `write` on this connection without waiting for another process's lock (it fails at once instead): a
   * retry from a timer must not hold the engine's thread for the whole busy timeout.
   */
  withoutWaiting<T>(write: () => T): T {
    this.db.pragma('busy_timeout = 0');
    try {
      return write();
    } finally {
      this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  /** Records how a run ended; whoever wrote its output (ingest's OutputWriter) has committed it first. */
  recordEnding(id: number, ending: RunEnding): Run {
    this.statements.end.run({ id, ...ending, endedAt: ending.endedAt.toISOString() });
    return this.get(id)!;
  }

  setSummary(id: number, summary: RunSummary): void {
    this.statements.setSummary.run(JSON.stringify(summary), id);
  }

  /** The code the run ran; the diff is stored once per distinct content. */
  setGit(id: number, provenance: NonNullable<Run['git']>, diff: Buffer | null): void {
    this.db.transaction(() => {
      if (diff !== null && provenance.diffSha256 !== null) this.statements.addDiff.run(provenance.diffSha256, diff);
      this.statements.setGit.run(JSON.stringify(provenance), id);
    })();
  }

  /** Where a before/after side ran; updated with what it missed when it failed. */
  setCheckout(id: number, checkout: RunCheckout): void {
    this.statements.setCheckout.run(JSON.stringify(checkout), id);
  }

  /** What the run's knobs did, as its Python processes reported at its end. */
  setKnobs(id: number, knobs: RunKnobs): void {
    this.statements.setKnobs.run(JSON.stringify(knobs), id);
  }

  /** A stored uncommitted diff by its hash (null when it was too large to keep, or is unknown). */
  codeDiff(sha256: string): Buffer | null {
    return this.statements.getDiff.get(sha256)?.diff ?? null;
  }

  /** Files a run under a workload (an import or an ad-hoc run the user says is one), so its regex applies. */
  setWorkload(id: number, workload: { id: number; name: string }): void {
    this.statements.setWorkload.run(workload.id, workload.name, id);
  }

  /** Deletes a run with everything stored for it (an import that failed half-way). */
  remove(id: number): void {
    this.statements.remove.run(id);
  }

  /** Keeps the run's current summary in its history (before it is replaced), with why and when. */
  keepSummaryInHistory(id: number, reason: string, at: Date): void {
    this.statements.addHistory.run(at.toISOString(), reason, id);
  }

  /** The summaries a run had before it was parsed again, oldest first. */
  summaryHistory(id: number): SummaryHistoryEntry[] {
    return this.statements.history.all(id).map((row) => ({
      replacedAt: row.replaced_at,
      reason: row.reason,
      summary: runSummary.parse(JSON.parse(row.summary_json)),
    }));
  }

  /** Merges facts into the run's fingerprint (the GPU's at start, Python's once known): what it ran on, nothing else. */
  addFingerprint(id: number, facts: Record<string, unknown>): void {
    const current = this.get(id)?.fingerprint ?? {};
    this.statements.setFingerprint.run(JSON.stringify({ ...current, ...facts }), id);
  }

  /**
   * Keeps a note about the run's recording with it (the first MAX_RECORDING_NOTES of each kind): `telemetry`, why GPU
   * data is missing or failed; `parsing`, why a pattern was switched off. A view opened later can still say why.
   */
  addRecordingNote(id: number, kind: 'telemetry' | 'parsing', note: string): void {
    const statement = kind === 'telemetry' ? this.statements.addTelemetryNote : this.statements.addParsingNote;
    statement.run(note, id, MAX_RECORDING_NOTES);
  }

  /** The run's processes still alive after it ended or was stopped. */
  setSurvivors(id: number, pids: readonly number[]): void {
    this.statements.setSurvivors.run(JSON.stringify(pids), id);
  }

  /** An interrupted run whose processes outlived its engine: every face that opens the database lists it, not only the one that found it. */
  markOrphaned(id: number): void {
    this.statements.markOrphaned.run(id);
  }

  /** The GPU settings in force for the run (and, once it ended, whether the app's own changes were put back). */
  setGpuSettings(id: number, settings: Record<string, unknown> | null): void {
    this.statements.setGpuSettings.run(settings === null ? null : JSON.stringify(settings), id);
  }

  /** Warm-up and left-out steps set by hand for the run (null: none of its own). */
  setSteps(id: number, steps: Run['steps']): void {
    this.statements.setStepChoices.run(steps === null ? null : JSON.stringify(steps), id);
  }

  /** How long the run waited for fair conditions before it started. */
  setWait(id: number, wait: Record<string, unknown>): void {
    this.statements.setWait.run(JSON.stringify(wait), id);
  }

  annotate(id: number, annotation: { notes?: string | undefined; tags?: string[] | undefined }): void {
    if (annotation.notes !== undefined) this.statements.setNotes.run(annotation.notes, id);
    if (annotation.tags !== undefined) this.statements.setTags.run(JSON.stringify([...new Set(annotation.tags)]), id);
  }

  /** The run's decimated chart series, stored when it ended (null for runs from before that). */
  series(id: number): StoredSeries | null {
    const row = this.statements.getSeries.get(id);
    return row ? (JSON.parse(row.series_json) as StoredSeries) : null;
  }

  setSeries(id: number, series: StoredSeries): void {
    this.statements.setSeries.run(id, JSON.stringify(series));
  }

  /** A sweep's runs in the order they started. */
  forSweep(sweepId: number): Run[] {
    return this.statements.forSweep.all(sweepId).map(toRun);
  }

  get(id: number): Run | undefined {
    const row = this.statements.get.get(id);
    return row && toRun(row);
  }

  list(limit: number): Run[] {
    return this.statements.list.all(limit).map(toRun);
  }

  /** Stored output after `afterSeq`, as raw bytes (the record is exactly what the program wrote). */
  outputAfter(id: number, afterSeq: number): StoredChunk[] {
    return this.statements.chunksAfter.all(id, afterSeq).map((row) => ({ seq: row.seq, tMs: row.t_ms, data: row.data }));
  }

  /** The last stored chunk's number, -1 when there is none: where a read of "the output so far" stops. */
  lastOutputSeq(id: number): number {
    return this.statements.lastSeq.get(id)?.seq ?? -1;
  }

  /**
   * Stored chunks after `afterSeq` up to `throughSeq`, at most `maxChunks` of them, read at once: each page
   * is its own short read, so nothing holds the connection (or a snapshot of the file) between pages.
   */
  outputChunkPage(id: number, afterSeq: number, throughSeq: number, maxChunks = OUTPUT_PAGE_CHUNKS): StoredChunk[] {
    return this.statements.chunkPage.all(id, afterSeq, throughSeq, maxChunks).map((row) => ({ seq: row.seq, tMs: row.t_ms, data: row.data }));
  }

  /**
   * Every chunk stored when the call was made, in order, a page at a time (see outputChunkPage): memory stays
   * bounded, and the caller may pause between chunks (await a slow client) without holding the database.
   */
  *storedOutput(id: number, throughSeq = this.lastOutputSeq(id)): Generator<StoredChunk> {
    let afterSeq = -1;
    for (;;) {
      const page = this.outputChunkPage(id, afterSeq, throughSeq);
      if (page.length === 0) return;
      yield* page;
      afterSeq = page.at(-1)!.seq;
    }
  }

  /**
   * One page of stored output for a view, decoded (invalid UTF-8 becomes U+FFFD there; the stored
   * bytes stay as written): the chunks after `afterSeq`, or with `fromEnd` the last ones, up to
   * `maxBytes` (always at least one chunk, so a page never comes back empty while output remains).
   */
  outputPage(id: number, page: { afterSeq: number; maxBytes: number; fromEnd: boolean }): OutputPage {
    const lastSeq = this.statements.lastSeq.get(id)?.seq ?? -1;
    const rows: Array<{ seq: number; t_ms: number; data: Buffer }> = [];
    let bytes = 0;
    const source = page.fromEnd ? this.statements.chunksFromEnd.iterate(id) : this.statements.chunksAfter.iterate(id, page.afterSeq);
    for (const row of source) {
      if (rows.length > 0 && bytes + row.data.length > page.maxBytes) break;
      rows.push(row);
      bytes += row.data.length;
    }
    if (page.fromEnd) rows.reverse();
    let skippedBytes = 0;
    if (page.fromEnd) {
      skippedBytes = (this.statements.storedBytes.get(id)?.bytes ?? 0) - bytes;
    }
    const decoder = new TextDecoder('utf-8', { fatal: false });
    const chunks = rows.map((row) => ({ seq: row.seq, tMs: row.t_ms, data: decoder.decode(row.data, { stream: true }) }));
    const last = chunks.at(-1)?.seq ?? page.afterSeq;
    return { chunks, skippedBytes, lastSeq, reachedEnd: last >= lastSeq };
  }

  runningRuns(): OrphanCandidate[] {
    return this.statements.running.all().map(toCandidate);
  }

  /** Interrupted runs whose processes were still alive when found (marked by recovery), as candidates to look at again. */
  markedOrphanCandidates(): OrphanCandidate[] {
    return this.statements.markedOrphans.all().map(toCandidate);
  }

  /** When the run last wrote output, as milliseconds after its start; null if it wrote nothing. */
  lastOutputMs(id: number): number | null {
    return this.statements.lastOutputMs.get(id)?.tMs ?? null;
  }

  /** Runs after `afterId`, and every run still running: what another process may have added or changed. */
  newOrRunning(afterId: number): Run[] {
    return this.statements.since.all(afterId).map((row) => toRun(row));
  }

  /** Interrupted runs whose processes were still alive when found (marked by recovery), whoever found them. */
  markedOrphans(): Run[] {
    return this.statements.markedOrphans.all().map((row) => toRun(row));
  }

  markInterrupted(id: number, reason: string, endedAt: Date): Run {
    this.db.transaction(() => {
      const stored = this.statements.storedBytes.get(id)?.bytes ?? 0;
      this.statements.setOutputBytes.run(stored, id);
      this.statements.end.run({
        id,
        status: 'interrupted',
        exitCode: null,
        signal: null,
        exitClass: null,
        exitReason: reason,
        endedAt: endedAt.toISOString(),
      });
    })();
    return this.get(id)!;
  }
}

function toCandidate(row: RunRow): OrphanCandidate {
  return {
    id: row.id,
    startedAt: row.started_at,
    pid: row.pid,
    pidStartTicks: row.pid_start_ticks,
    enginePid: row.engine_pid,
    engineStartTicks: row.engine_start_ticks,
    processMarker: row.process_marker,
  };
}

function toRun(row: RunRow): Run {
  return {
    id: row.id,
    workloadId: row.workload_id,
    workloadName: row.workload_name,
    status: row.status,
    exitCode: row.exit_code,
    signal: row.signal,
    exitClass: row.exit_class,
    exitReason: row.exit_reason,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    command: JSON.parse(row.command_json) as string[],
    cwd: row.cwd,
    config: JSON.parse(row.config_json) as Record<string, string>,
    env: JSON.parse(row.env_json) as Record<string, string>,
    pid: row.pid,
    outputBytes: row.output_bytes,
    outputDroppedBytes: row.output_dropped_bytes,
    git: row.git_json ? (JSON.parse(row.git_json) as Run['git']) : null,
    checkout: row.checkout_json ? runCheckout.parse(JSON.parse(row.checkout_json)) : null,
    typedCommand: row.typed_command_json ? runTypedCommand.parse(JSON.parse(row.typed_command_json)) : null,
    knobs: row.knobs_json ? runKnobs.parse(JSON.parse(row.knobs_json)) : null,
    unitsPerStep: row.units_per_step_json ? (JSON.parse(row.units_per_step_json) as UnitsPerStep) : null,
    steps: row.step_choices_json ? (JSON.parse(row.step_choices_json) as Run['steps']) : null,
    // Through the schema, so summaries stored before a field existed read with its default.
    summary: row.summary_json ? runSummary.parse(JSON.parse(row.summary_json)) : EMPTY_SUMMARY,
    gpuSettings: row.gpu_settings_json ? (JSON.parse(row.gpu_settings_json) as Record<string, unknown>) : null,
    fingerprint: row.fingerprint_json ? (JSON.parse(row.fingerprint_json) as Record<string, unknown>) : null,
    sweepId: row.sweep_id,
    configIndex: row.config_index,
    repeatIndex: row.repeat_index,
    replacesRunId: row.replaces_run_id,
    replacedByRunId: row.replaced_by_run_id,
    origin: row.origin_json ? (JSON.parse(row.origin_json) as Run['origin']) : null,
    telemetryNotes: row.telemetry_notes_json ? (JSON.parse(row.telemetry_notes_json) as string[]) : [],
    parsingNotes: row.parsing_notes_json ? (JSON.parse(row.parsing_notes_json) as string[]) : [],
    survivorPids: row.survivor_pids_json ? (JSON.parse(row.survivor_pids_json) as number[]) : [],
    wait: row.wait_json ? (JSON.parse(row.wait_json) as Run['wait']) : null,
    notes: row.notes,
    tags: JSON.parse(row.tags_json) as string[],
  };
}
