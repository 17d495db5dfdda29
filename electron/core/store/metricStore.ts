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

export class MetricStore {
  private readonly insert;
  private readonly byRun;
  private readonly countByRun;
  private readonly deleteText;

  constructor(
    db: Db,
    private readonly writer: BatchWriter,
  ) {
    this.insert = db.prepare(INSERT_SAMPLE_SQL);
    this.byRun = db.prepare<[number], SampleRow>(
      'SELECT step, t_ms, name, value, special, source, kind FROM metric_samples WHERE run_id = ? ORDER BY rowid',
    );
    this.deleteText = db.prepare<[number]>("DELETE FROM metric_samples WHERE run_id = ? AND source = 'text'");
    this.countByRun = db.prepare<[number], { n: number }>('SELECT COUNT(*) AS n FROM metric_samples WHERE run_id = ?');
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

  /**
   * Replaces the samples parsed from a run's terminal output (the structured channel's stay); runs
   * inside the caller's transaction, so a reader never sees the run with neither set.
   */
  replaceParsedText(runId: number, samples: readonly MetricSample[]): void {
    this.deleteText.run(runId);
    for (const sample of samples) {
      const { value, special } = toColumns(sample.value);
      this.insert.run(runId, sample.step, sample.tMs, sample.name, value, special, sample.source, sample.kind);
    }
  }

  /**
   * Row by row, so a long run is never held twice (rows, then samples). SQLite hands out a new string
   * for every text cell; a run has a few dozen names and fewer sources and kinds, so each sample shares
   * one copy of each: an imported log of millions of samples held 3 strings per sample before.
   */
  forRun(runId: number): MetricSample[] {
    const samples: MetricSample[] = [];
    const strings = new Map<string, string>();
    const shared = <T extends string>(text: T): T => {
      const known = strings.get(text);
      if (known !== undefined) return known as T;
      strings.set(text, text);
      return text;
    };
    for (const row of this.byRun.iterate(runId)) {
      samples.push({ step: row.step, tMs: row.t_ms, name: shared(row.name), value: fromColumns(row.value, row.special), source: shared(row.source), kind: shared(row.kind) });
    }
    return samples;
  }

  count(runId: number): number {
    return this.countByRun.get(runId)?.n ?? 0;
  }
}
