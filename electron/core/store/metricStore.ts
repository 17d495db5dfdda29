// Metric samples of runs: written in blocks (see sampleBlocks.ts), read back for summaries, charts and the CLI.
import type { MetricKind, MetricSample, MetricSource } from './records.js';
import type { BatchWriter } from './batchWriter.js';
import type { Db } from './open.js';
import { SampleBlockReader, SampleBlockWriter, type BlockColumns, type BlockInfo, type BlockKey, type SampleInput } from './sampleBlocks.js';

/** A sample with its place in the run's order: samples read in parts are merged back by it. */
export interface OrderedSample extends MetricSample {
  order: number;
}

/** The names whose non-finite values a summary reports (see summary.ts nanDetected). */
const WATCHED_FOR_NAN = ['loss', 'eval_loss', 'grad_norm'];

/** A candidate of progressDigest: where it lies in a decoded block. */
interface Candidate {
  step: number;
  tMs: number;
  order: number;
  value: number;
}

/** Later as the summary orders samples: by step, then time, then as stored. */
function laterAtStep(a: Candidate, b: Candidate | null): boolean {
  if (b === null) return true;
  if (a.step !== b.step) return a.step > b.step;
  if (a.tMs !== b.tMs) return a.tMs > b.tMs;
  return a.order > b.order;
}

export class MetricStore {
  private readonly blocks: SampleBlockWriter;
  private readonly reader: SampleBlockReader;
  private readonly generationOf;
  private readonly setGeneration;
  private readonly staleTextBlocks;
  private readonly deleteBlock;
  private readonly deleteBlockData;

  constructor(
    private readonly db: Db,
    private readonly writer: BatchWriter,
  ) {
    this.blocks = new SampleBlockWriter(db);
    this.reader = new SampleBlockReader(db);
    this.generationOf = db.prepare<[number], number>('SELECT text_generation FROM runs WHERE id = ?').pluck();
    this.setGeneration = db.prepare<[number, number]>('UPDATE runs SET text_generation = ? WHERE id = ?');
    this.staleTextBlocks = db
      .prepare<[number, number, number, number], number>(
        "SELECT id FROM metric_blocks WHERE run_id = ? AND source = 'text' AND generation <> ? AND id > ? ORDER BY id LIMIT ?",
      )
      .pluck();
    this.deleteBlock = db.prepare<[number]>('DELETE FROM metric_blocks WHERE id = ?');
    // Said outright, not left to the foreign key's cascade: a connection may have foreign keys off.
    this.deleteBlockData = db.prepare<[number]>('DELETE FROM metric_block_data WHERE block_id = ?');
  }

  /** Queued; committed with the next batch. */
  append(runId: number, samples: readonly MetricSample[]): void {
    if (samples.length === 0) return;
    this.writer.enqueue(() => this.blocks.write(runId, samples));
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
  insertTextGeneration(runId: number, generation: number, samples: SampleInput): void {
    this.blocks.write(runId, samples, generation);
  }

  /** Makes a parse the run's text samples, in one small update (inside the caller's transaction, with its summary). */
  useTextGeneration(runId: number, generation: number): void {
    this.setGeneration.run(generation, runId);
  }

  /**
   * Deletes up to `limit` blocks of the run's text samples that are not its current parse (the one replaced, or a
   * parse that stopped half-way), in stored order from after block `afterBlock` (0: the first); returns how many, and
   * where to go on from. Called in short transactions until it deletes none.
   */
  deleteOtherTextGenerations(runId: number, afterBlock: number, limit: number): { deleted: number; lastBlock: number } {
    const ids = this.staleTextBlocks.all(runId, this.textGeneration(runId), afterBlock, limit);
    for (const id of ids) {
      this.deleteBlockData.run(id);
      this.deleteBlock.run(id);
    }
    return { deleted: ids.length, lastBlock: ids.at(-1) ?? afterBlock };
  }

  /** Every sample of the run in stored order, as objects: for a short run or a test (a long run's reader uses readNumeric). */
  forRun(runId: number): MetricSample[] {
    const samples: MetricSample[] = [];
    this.readNumeric(runId, 'all', (order, step, tMs, name, value, source, kind) => samples.push({ step, tMs, name, value, source, kind }));
    return samples;
  }

  /** How many samples readNumeric hands over (from the blocks' index): a reader sizes what it keeps them in once. */
  countNumeric(runId: number, which: 'all' | 'exceptProgress', parse?: number): number {
    let count = 0;
    for (const [kind, n] of this.reader.countByKind(runId, parse)) if (which === 'all' || kind !== 'progress') count += n;
    return count;
  }

  /** Samples in each series (name, source, kind) readNumeric would hand over, from the blocks' index alone. */
  seriesCounts(
    runId: number,
    which: 'all' | 'exceptProgress',
    parse?: number,
  ): Array<{ name: string; source: MetricSource; kind: MetricKind; samples: number }> {
    const counts = new Map<string, { name: string; source: MetricSource; kind: MetricKind; samples: number }>();
    const blocks = this.reader.blocks(runId, {
      ...(which === 'exceptProgress' ? { exceptKind: 'progress' as const } : {}),
      ...(parse === undefined ? {} : { parse }),
    });
    for (const block of blocks) {
      const id = `${block.source}\u0000${block.kind}\u0000${block.name}`;
      const entry = counts.get(id);
      if (entry === undefined) counts.set(id, { name: block.name, source: block.source, kind: block.kind, samples: block.count });
      else entry.samples += block.count;
    }
    return [...counts.values()];
  }

  /** Text samples of the run's current parse. */
  textCount(runId: number): number {
    return this.reader.textCount(runId);
  }

  /**
   * A run's samples in stored order, handed over one by one and not kept (the caller holds them as it likes:
   * columns, see summaryInput.ts); one decoded block per metric is held at a time, whatever the run's length.
   * `parse`: the text samples of that parse instead of the run's current one (a parse being made).
   */
  readNumeric(
    runId: number,
    which: 'all' | 'exceptProgress',
    onSample: (order: number, step: number | null, tMs: number, name: string, value: number, source: MetricSource, kind: MetricKind) => void,
    parse?: number,
  ): void {
    const blocks = this.reader.blocks(runId, {
      ...(which === 'exceptProgress' ? { exceptKind: 'progress' as const } : {}),
      ...(parse === undefined ? {} : { parse }),
    });
    this.reader.mergeInOrder(blocks, (key, columns, at) => {
      const step = columns.step[at]!;
      onSample(columns.order[at]!, Number.isNaN(step) ? null : step, columns.tMs[at]!, key.name, columns.value[at]!, key.source, key.kind);
    });
  }

  /** A run's samples in stored order, a page at a time (see SampleBlockReader.pagesInOrder): an export of any length. */
  *pagesInOrder(runId: number, pageSize: number): Generator<MetricSample[]> {
    for (const page of this.reader.pagesInOrder(this.reader.blocks(runId), pageSize)) {
      yield page.map(({ name, source, kind, step, tMs, value }) => ({ name, source, kind, step, tMs, value }));
    }
  }

  /**
   * readNumeric at the block level, for a reader of millions of samples: `key` is one object per series for the whole
   * read (a reader keeps its state per series by it, making no string a sample), `columns[at]` the sample.
   */
  readInOrder(runId: number, which: 'all' | 'exceptProgress', visit: (key: BlockKey, columns: BlockColumns, at: number) => void, parse?: number): void {
    const blocks = this.reader.blocks(runId, {
      ...(which === 'exceptProgress' ? { exceptKind: 'progress' as const } : {}),
      ...(parse === undefined ? {} : { parse }),
    });
    this.reader.mergeInOrder(blocks, visit);
  }

  /**
   * Of the run's progress samples, what a summary reads when the training lines give it timing and
   * loss: for each source and name its sample at the largest step, its last finite one, and
   * one non-finite loss, eval loss or gradient norm where there was any. A few samples however many;
   * the bar's blocks are read one at a time.
   */
  progressDigest(runId: number, parse?: number): OrderedSample[] {
    const found = new Map<number, OrderedSample>();
    const groups = new Map<string, BlockInfo[]>();
    for (const block of this.reader.blocks(runId, { kind: 'progress', ...(parse === undefined ? {} : { parse }) })) {
      const id = `${block.source}\u0000${block.name}`;
      const group = groups.get(id);
      if (group === undefined) groups.set(id, [block]);
      else group.push(block);
    }
    for (const blocks of groups.values()) {
      const { name, source } = blocks[0]!;
      let atStep: Candidate | null = null;
      let finiteAtStep: Candidate | null = null;
      let finiteWithoutStep: Candidate | null = null;
      let nonFinite: (Candidate & { step: number }) | null = null;
      this.reader.scan(blocks, (_block, columns) => {
        for (let i = 0; i < columns.order.length; i++) {
          const candidate = { step: columns.step[i]!, tMs: columns.tMs[i]!, order: columns.order[i]!, value: columns.value[i]! };
          const finite = Number.isFinite(candidate.value);
          if (!finite && (nonFinite === null || candidate.order < nonFinite.order)) nonFinite = candidate;
          if (Number.isNaN(candidate.step)) {
            if (
              finite &&
              (finiteWithoutStep === null ||
                candidate.tMs > finiteWithoutStep.tMs ||
                (candidate.tMs === finiteWithoutStep.tMs && candidate.order > finiteWithoutStep.order))
            ) {
              finiteWithoutStep = candidate;
            }
            continue;
          }
          if (laterAtStep(candidate, atStep)) atStep = candidate;
          if (finite && laterAtStep(candidate, finiteAtStep)) finiteAtStep = candidate;
        }
      });
      const keep = (candidate: Candidate | null) => {
        if (candidate === null || found.has(candidate.order)) return;
        const step = Number.isNaN(candidate.step) ? null : candidate.step;
        found.set(candidate.order, { step, tMs: candidate.tMs, name, value: candidate.value, source, kind: 'progress', order: candidate.order });
      };
      keep(atStep);
      keep(finiteWithoutStep ?? finiteAtStep);
      if (WATCHED_FOR_NAN.includes(name)) keep(nonFinite);
    }
    return [...found.values()].sort((a, b) => a.order - b.order);
  }

  /** A page of a run's series, one value per name and step (see SampleBlockReader.seriesPage): MLflow's publisher reads them so. */
  seriesPage(runId: number, after: { name: string; step: number } | null, limit: number): Array<{ name: string; step: number; tMs: number; value: number }> {
    return this.reader.seriesPage(runId, after, limit);
  }

  /** A page of the samples without a step of names that have none with one (see SampleBlockReader.unsteppedPage). */
  unsteppedPage(runId: number, afterOrder: number, limit: number): Array<{ order: number; name: string; tMs: number; value: number }> {
    return this.reader.unsteppedPage(runId, afterOrder, limit);
  }

  /** The kind each metric of a run was logged as: the most common one per name. */
  kindsByName(runId: number): Record<string, MetricKind> {
    return this.reader.kindsByName(runId);
  }

  /** Samples written at once in their own transaction, not through the batch writer (a page pulled back from MLflow). */
  writeNow(runId: number, samples: SampleInput): void {
    this.db.transaction(() => this.blocks.write(runId, samples))();
  }

  /** A run's samples for its charts, at most about `maxPerMetric` a metric (see SampleBlockReader.chartSamples). */
  chartSamples(
    runId: number,
    maxPerMetric: number,
  ): { samples: MetricSample[]; stored: Array<{ name: string; source: MetricSource; kind: MetricKind; samples: number }> } {
    const { samples, stored } = this.reader.chartSamples(runId, maxPerMetric);
    return { samples: samples.map(({ name, source, kind, step, tMs, value }) => ({ name, source, kind, step, tMs, value })), stored };
  }

  count(runId: number): number {
    return this.countNumeric(runId, 'all');
  }
}
