// Metric samples of runs: written in batches, read back for summaries, charts and the CLI.
import type { MetricKind, MetricSample, MetricSource } from './records.js';
import type { BatchWriter } from './batchWriter.js';
import type { Db } from './open.js';

interface SampleRow {
  step: number | null;
  t_ms: number;
  name: string;
  value: number | null;
  special: 'nan' | 'inf' | '-inf' | null;
  source: MetricSource;
  kind: MetricKind;
}

/** SQLite turns NaN into NULL; the special column keeps which non-finite value it was. */
export function toColumns(value: number): { value: number | null; special: 'nan' | 'inf' | '-inf' | null } {
  if (Number.isNaN(value)) return { value: null, special: 'nan' };
  if (value === Number.POSITIVE_INFINITY) return { value: null, special: 'inf' };
  if (value === Number.NEGATIVE_INFINITY) return { value: null, special: '-inf' };
  return { value, special: null };
}

export function fromColumns(value: number | null, special: SampleRow['special']): number {
  if (special === 'nan') return Number.NaN;
  if (special === 'inf') return Number.POSITIVE_INFINITY;
  if (special === '-inf') return Number.NEGATIVE_INFINITY;
  return value ?? Number.NaN;
}

export const INSERT_SAMPLE_SQL =
  'INSERT INTO metric_samples (run_id, step, t_ms, name, value, special, source, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?)';

/** A sample with its place in the run's order (its rowid): samples read in parts are merged back by it. */
export interface OrderedSample extends MetricSample {
  order: number;
}

/**
 * A row a read sees: any sample not parsed from the terminal, and of those parsed, the run's current parse (its
 * runs.text_generation, given as the statement's last parameter). A parse under way, or one replaced and not
 * yet deleted, is invisible.
 */
const CURRENT_PARSE = "(source <> 'text' OR generation = ?)";

const SPECIALS: ReadonlyArray<SampleRow['special']> = [null, 'nan', 'inf', '-inf'];
const SOURCES: readonly MetricSource[] = ['text', 'channel', 'derived'];
const KINDS: readonly MetricKind[] = ['train', 'eval', 'progress', 'summary'];

/** A text column's value as its index in `values` (the columns' CHECKs allow no others). */
function indexOf(column: string, values: ReadonlyArray<string | null>): string {
  return `CASE ${column} ${values.map((value, i) => (value === null ? '' : `WHEN '${value}' THEN ${i}`)).join(' ')} ELSE ${values.indexOf(null) === -1 ? 0 : values.indexOf(null)} END`;
}

/** The names whose non-finite values a summary reports (see summary.ts nanDetected). */
const WATCHED_FOR_NAN = ['loss', 'eval_loss', 'grad_norm'];

export class MetricStore {
  private readonly insert;
  private readonly rowidBounds;
  private readonly namesOfRun;
  private readonly progressNames;
  private readonly lastProgressAtStep;
  private readonly lastFiniteProgressAtStep;
  private readonly lastFiniteProgressWithoutStep;
  private readonly nonFiniteProgress;
  private readonly countByRun;
  private readonly countInStretch;
  private readonly generationOf;
  private readonly setGeneration;
  private readonly insertWithGeneration;
  private readonly staleTextRows;
  private readonly deleteRow;

  constructor(
    private readonly db: Db,
    private readonly writer: BatchWriter,
  ) {
    this.insert = db.prepare(INSERT_SAMPLE_SQL);
    // A run's rows lie in one stretch of rowids (runs rarely overlap): its bounds come from the
    // index, then the table is read in order over that stretch. Read through the index instead, every
    // row was a lookup and the whole set a sort: about five times the work for an imported log.
    this.rowidBounds = db.prepare<[number], { first: number | null; last: number | null }>(
      'SELECT MIN(rowid) AS first, MAX(rowid) AS last FROM metric_samples WHERE run_id = ?',
    );
    this.namesOfRun = db.prepare<[number, number], string>(`SELECT DISTINCT name FROM metric_samples WHERE run_id = ? AND ${CURRENT_PARSE}`).pluck();
    // Over the run's stretch, like the reads below: through the index, each row's kind was a lookup.
    this.progressNames = db.prepare<[number, number, number, number], { name: string; source: MetricSource }>(
      `SELECT DISTINCT name, source FROM metric_samples WHERE rowid BETWEEN ? AND ? AND +run_id = ? AND kind = 'progress' AND ${CURRENT_PARSE}`,
    );
    // "Last" as the summary orders samples: by step, a sample without one after all with one, then by
    // time, then as stored. Each walks the (run_id, name, step) index from its end.
    const progressRow = 'SELECT rowid, step, t_ms, name, value, special, source, kind FROM metric_samples';
    const ofName = `run_id = ? AND name = ? AND source = ? AND kind = 'progress' AND ${CURRENT_PARSE}`;
    this.lastProgressAtStep = db.prepare<[number, string, MetricSource, number], SampleRow & { rowid: number }>(
      `${progressRow} WHERE ${ofName} AND step IS NOT NULL ORDER BY step DESC, t_ms DESC, rowid DESC LIMIT 1`,
    );
    this.lastFiniteProgressAtStep = db.prepare<[number, string, MetricSource, number], SampleRow & { rowid: number }>(
      `${progressRow} WHERE ${ofName} AND step IS NOT NULL AND value IS NOT NULL ORDER BY step DESC, t_ms DESC, rowid DESC LIMIT 1`,
    );
    this.lastFiniteProgressWithoutStep = db.prepare<[number, string, MetricSource, number], SampleRow & { rowid: number }>(
      `${progressRow} WHERE ${ofName} AND step IS NULL AND value IS NOT NULL ORDER BY t_ms DESC, rowid DESC LIMIT 1`,
    );
    this.nonFiniteProgress = db.prepare<[number, string, MetricSource, number], SampleRow & { rowid: number }>(
      `${progressRow} WHERE ${ofName} AND value IS NULL LIMIT 1`,
    );
    this.countByRun = db.prepare<[number, number], { n: number }>(`SELECT COUNT(*) AS n FROM metric_samples WHERE run_id = ? AND ${CURRENT_PARSE}`);
    // The rows readNumeric reads, counted over the same stretch with the same conditions.
    const inStretch = `SELECT COUNT(*) FROM metric_samples WHERE rowid BETWEEN ? AND ? AND +run_id = ? AND ${CURRENT_PARSE}`;
    this.countInStretch = {
      all: db.prepare<[number, number, number, number], number>(inStretch).pluck(),
      exceptProgress: db.prepare<[number, number, number, number], number>(`${inStretch} AND kind <> 'progress'`).pluck(),
    };
    this.generationOf = db.prepare<[number], number>('SELECT text_generation FROM runs WHERE id = ?').pluck();
    this.setGeneration = db.prepare<[number, number]>('UPDATE runs SET text_generation = ? WHERE id = ?');
    this.insertWithGeneration = db.prepare(
      'INSERT INTO metric_samples (run_id, step, t_ms, name, value, special, source, kind, generation) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    // In rowid order over the run's stretch (see rowidBounds), so a walk of many calls visits each row once.
    this.staleTextRows = db
      .prepare<[number, number, number, number], number>(
        "SELECT rowid FROM metric_samples WHERE rowid > ? AND +run_id = ? AND source = 'text' AND generation <> ? ORDER BY rowid LIMIT ?",
      )
      .pluck();
    this.deleteRow = db.prepare<[number]>('DELETE FROM metric_samples WHERE rowid = ?');
  }

  /** Queued; committed with the next batch. */
  append(runId: number, samples: readonly MetricSample[]): void {
    if (samples.length === 0) return;
    this.writer.enqueue(() => {
      for (const sample of samples) {
        const { value, special } = toColumns(sample.value);
        this.insert.run(runId, sample.step, sample.tMs, sample.name, value, special, sample.source, sample.kind);
      }
    });
  }

  /** Written at once, in one transaction (an import, a test). */
  insertNow(runId: number, samples: readonly MetricSample[]): void {
    this.append(runId, samples);
    this.writer.flush();
  }

  /** Which parse of the run's terminal output is the run's (0 until it is parsed again). */
  textGeneration(runId: number): number {
    return this.generationOf.get(runId) ?? 0;
  }

  /**
   * Writes samples of a new parse of the run's text (generation above textGeneration): invisible to every read
   * until useTextGeneration makes them the run's, so they can go in over many short transactions.
   */
  insertTextGeneration(runId: number, generation: number, samples: readonly MetricSample[]): void {
    for (const sample of samples) {
      const { value, special } = toColumns(sample.value);
      this.insertWithGeneration.run(runId, sample.step, sample.tMs, sample.name, value, special, sample.source, sample.kind, generation);
    }
  }

  /** Makes a parse the run's text samples, in one small update (inside the caller's transaction, with its summary). */
  useTextGeneration(runId: number, generation: number): void {
    this.setGeneration.run(generation, runId);
  }

  /**
   * Deletes up to `limit` text samples of the run that are not its current parse (the one replaced, or a parse
   * that stopped half-way), in stored order from after `afterRowid`; returns how many, and where to go on from.
   * Called in short transactions until it deletes none: each row is looked at once, however many calls.
   */
  deleteOtherTextGenerations(runId: number, afterRowid: number, limit: number): { deleted: number; lastRowid: number } {
    const rowids = this.staleTextRows.all(afterRowid, runId, this.textGeneration(runId), limit);
    for (const rowid of rowids) this.deleteRow.run(rowid);
    return { deleted: rowids.length, lastRowid: rowids.at(-1) ?? afterRowid };
  }

  /** The rowid before the run's first stored sample: where a walk over its rows in stored order starts. */
  rowidBefore(runId: number): number {
    return (this.rowidBounds.get(runId)?.first ?? 1) - 1;
  }

  /**
   * Row by row, so a long run is never held twice (rows, then samples). SQLite hands out a new string
   * for every text cell; a run has a few dozen names and fewer sources and kinds, so each sample shares
   * one copy of each: an imported log of millions of samples held 3 strings per sample before.
   */
  forRun(runId: number): MetricSample[] {
    const samples: MetricSample[] = [];
    this.readNumeric(runId, 'all', (order, step, tMs, name, value, source, kind) => samples.push({ step, tMs, name, value, source, kind }));
    return samples;
  }

  /**
   * A run's samples in stored order, read as numbers only: SQLite makes a new string for every text
   * cell, and a run has a few dozen names and fewer sources and kinds, so those come back as indexes
   * into lists made once per read. Over the run's stretch of rowids (see rowidBounds). Each sample is
   * handed over as it is read and not kept: the caller holds it as it likes (columns, see summaryInput.ts).
   */
  /** How many samples readNumeric hands over: a reader sizes what it keeps them in once. */
  countNumeric(runId: number, which: 'all' | 'exceptProgress'): number {
    const bounds = this.rowidBounds.get(runId);
    if (bounds?.first == null || bounds.last == null) return 0;
    return this.countInStretch[which].get(bounds.first, bounds.last, runId, this.textGeneration(runId)) ?? 0;
  }

  readNumeric(
    runId: number,
    which: 'all' | 'exceptProgress',
    onSample: (order: number, step: number | null, tMs: number, name: string, value: number, source: MetricSource, kind: MetricKind) => void,
  ): void {
    const bounds = this.rowidBounds.get(runId);
    if (bounds?.first == null || bounds.last == null) return;
    const generation = this.textGeneration(runId);
    const names = this.namesOfRun.all(runId, generation);
    const nameIndex = names.length > 0 ? `CASE name ${names.map((_, i) => `WHEN ? THEN ${i}`).join(' ')} END` : '0';
    const statement = this.db
      .prepare<unknown[], [number, number | null, number, number, number | null, number, number, number]>(
        `SELECT rowid, step, t_ms, ${nameIndex}, value, ${indexOf('special', SPECIALS)}, ${indexOf('source', SOURCES)}, ${indexOf('kind', KINDS)}
         FROM metric_samples WHERE rowid BETWEEN ? AND ? AND +run_id = ? AND ${CURRENT_PARSE}${which === 'exceptProgress' ? " AND kind <> 'progress'" : ''} ORDER BY rowid`,
      )
      .raw();
    for (const [order, step, tMs, name, value, special, source, kind] of statement.iterate(...names, bounds.first, bounds.last, runId, generation)) {
      onSample(order, step, tMs, names[name]!, fromColumns(value, SPECIALS[special]!), SOURCES[source]!, KINDS[kind]!);
    }
  }

  /**
   * Of the run's progress samples, what a summary reads when the training lines give it timing and
   * loss: for each source and name its sample at the largest step, its last finite one, and
   * one non-finite loss, eval loss or gradient norm where there was any. A few rows however many.
   */
  progressDigest(runId: number): OrderedSample[] {
    const found = new Map<number, OrderedSample>();
    const keep = (row: (SampleRow & { rowid: number }) | undefined) => {
      if (row !== undefined && !found.has(row.rowid)) found.set(row.rowid, toOrderedSample(row));
    };
    const bounds = this.rowidBounds.get(runId);
    if (bounds?.first == null || bounds.last == null) return [];
    const generation = this.textGeneration(runId);
    // Collected first: the statements below cannot run while this one's iterator is open on the connection.
    const progress = this.progressNames.all(bounds.first, bounds.last, runId, generation);
    for (const { name, source } of progress) {
      keep(this.lastProgressAtStep.get(runId, name, source, generation));
      keep(this.lastFiniteProgressWithoutStep.get(runId, name, source, generation) ?? this.lastFiniteProgressAtStep.get(runId, name, source, generation));
      if (WATCHED_FOR_NAN.includes(name)) keep(this.nonFiniteProgress.get(runId, name, source, generation));
    }
    return [...found.values()].sort((a, b) => a.order - b.order);
  }

  count(runId: number): number {
    return this.countByRun.get(runId, this.textGeneration(runId))?.n ?? 0;
  }
}

function toOrderedSample(row: SampleRow & { rowid: number }): OrderedSample {
  return { step: row.step, tMs: row.t_ms, name: row.name, value: fromColumns(row.value, row.special), source: row.source, kind: row.kind, order: row.rowid };
}
