// A run's metric samples stored in blocks: one row holds up to BLOCK_SAMPLES samples of one metric (name, source,
// kind, parse) as four float64 columns in one BLOB (blockEncoding.ts: a column that is an arithmetic progression takes
// two numbers), beside a small index (count, orders, steps, times, values).
// A row a sample capped a dense log near 180,000 samples a second here (the row, its text cells and its index
// entry); a block costs one row per few thousand samples. The BLOB lies in its own table (metric_block_data): the index
// rows stay a few dozen bytes, so listing a run's blocks reads kilobytes, not the blocks; each index row also keeps
// its block's first, last, lowest and highest sample (`points`), from which a long run's charts are drawn. Every connection that stores samples (the engine's, the
// output writer's, the parser's) writes through SampleBlockWriter, and every read goes through SampleBlockReader.
import type { MetricKind, MetricSample, MetricSource } from './records.js';
import type { Db } from './open.js';
import { KINDS, SampleColumns, SOURCES } from './sampleColumns.js';
import { ExternalChurn } from './externalChurn.js';
import { BLOCK_COLUMNS, decodeBlock, encodeBlock, type BlockColumns } from './blockEncoding.js';
import { freeBuffer } from './freeBuffer.js';

export type { BlockColumns };

/** Samples as the engine holds them, or as columns (an import's, handed between threads). */
export type SampleInput = readonly MetricSample[] | SampleColumns;

/** Samples in a full block: 128 KiB of columns, a few pages, decoded in microseconds. */
export const BLOCK_SAMPLES = 4096;
/**
 * A block not yet full takes new samples by being written again, while it holds at most this many times as many
 * as arrive: a metric logged a value per commit still fills blocks of dozens, and no commit rewrites more than
 * this multiple of what it adds.
 */
const REWRITE_FACTOR = 64;
/** Block bytes read between two young-generation collections: 32 full blocks. */
const READ_CHURN_BYTES = 4 * 1024 * 1024;

export interface BlockKey {
  name: string;
  source: MetricSource;
  kind: MetricKind;
}

/** A sample picked for a chart, with its metric and its place in the run's order. */
export interface ChartSample extends BlockKey {
  order: number;
  step: number | null;
  tMs: number;
  value: number;
}

export interface BlockInfo extends BlockKey {
  id: number;
  count: number;
  minStep: number | null;
  maxStep: number | null;
}

function emptyColumns(capacity: number): BlockColumns {
  return { order: new Float64Array(capacity), step: new Float64Array(capacity), tMs: new Float64Array(capacity), value: new Float64Array(capacity) };
}

/** The block's index columns, from its samples. */
function blockStats(columns: BlockColumns, from: number, to: number) {
  let minStep = Number.POSITIVE_INFINITY;
  let maxStep = Number.NEGATIVE_INFINITY;
  let minValue = Number.POSITIVE_INFINITY;
  let maxValue = Number.NEGATIVE_INFINITY;
  let nonFinite = 0;
  let unstepped = 0;
  for (let i = from; i < to; i++) {
    const step = columns.step[i]!;
    if (Number.isNaN(step)) unstepped++;
    else {
      if (step < minStep) minStep = step;
      if (step > maxStep) maxStep = step;
    }
    const value = columns.value[i]!;
    if (!Number.isFinite(value)) nonFinite++;
    else {
      if (value < minValue) minValue = value;
      if (value > maxValue) maxValue = value;
    }
  }
  const finiteOrNull = (x: number) => (Number.isFinite(x) ? x : null);
  return {
    count: to - from,
    firstOrder: columns.order[from]!,
    lastOrder: columns.order[to - 1]!,
    minStep: finiteOrNull(minStep),
    maxStep: finiteOrNull(maxStep),
    minValue: finiteOrNull(minValue),
    maxValue: finiteOrNull(maxValue),
    nonFinite,
    unstepped,
  };
}

export const CREATE_BLOCKS_SQL = `
  CREATE TABLE metric_blocks (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    -- text (parsed from the terminal), channel (TUNING_BENCH_METRICS), derived (computed by the engine)
    source TEXT NOT NULL CHECK (source IN ('text', 'channel', 'derived')),
    -- train, eval, progress (a progress bar's state) or summary (a framework's end-of-run totals)
    kind TEXT NOT NULL CHECK (kind IN ('train', 'eval', 'progress', 'summary')),
    -- Which parse of the run's terminal output a text block belongs to (see runs.text_generation).
    generation INTEGER NOT NULL DEFAULT 0,
    count INTEGER NOT NULL CHECK (count > 0),
    first_order REAL NOT NULL,
    last_order REAL NOT NULL,
    -- Of the samples with a step (NULL: none has one), of the finite values (NULL: none is).
    min_step REAL,
    max_step REAL,
    min_value REAL,
    max_value REAL,
    non_finite INTEGER NOT NULL,
    unstepped INTEGER NOT NULL,
    -- count float64 orders, then steps (NaN: none), times (ms since the run started), values.
    data BLOB NOT NULL
  );
  CREATE INDEX metric_blocks_by_key ON metric_blocks (run_id, name, source, kind, generation);
  -- The next order a sample of the run is given: orders rise as samples are stored, across every connection.
  ALTER TABLE runs ADD COLUMN sample_orders INTEGER NOT NULL DEFAULT 0;
`;

/** Schema 18's insert, with the BLOB in the index row: only for moving schema 17's rows (migration 19 moves it out). */
const INSERT_BLOCK_V18_SQL = `INSERT INTO metric_blocks (run_id, name, source, kind, generation, count, first_order, last_order, min_step, max_step, min_value, max_value, non_finite, unstepped, data)
  VALUES (@runId, @name, @source, @kind, @generation, @count, @firstOrder, @lastOrder, @minStep, @maxStep, @minValue, @maxValue, @nonFinite, @unstepped, @data)`;

const INSERT_BLOCK_SQL = `INSERT INTO metric_blocks (run_id, name, source, kind, generation, count, first_order, last_order, min_step, max_step, min_value, max_value, non_finite, unstepped, points)
  VALUES (@runId, @name, @source, @kind, @generation, @count, @firstOrder, @lastOrder, @minStep, @maxStep, @minValue, @maxValue, @nonFinite, @unstepped, @points)`;

/** Migration 19: each block's BLOB in a table of its own, and its chart points beside its index (see blockPoints). */
export const SPLIT_BLOCK_DATA_SQL = `
  CREATE TABLE metric_block_data (
    block_id INTEGER PRIMARY KEY REFERENCES metric_blocks(id) ON DELETE CASCADE,
    data BLOB NOT NULL
  );
  INSERT INTO metric_block_data (block_id, data) SELECT id, data FROM metric_blocks;
  ALTER TABLE metric_blocks DROP COLUMN data;
  -- The block's first, last, lowest and highest samples: 4 x (order, step, time, value) float64s (NaN: none finite).
  ALTER TABLE metric_blocks ADD COLUMN points BLOB;
`;

/** Migration 19's conversion: the points of every block moved out of schema 18, a page of blocks at a time. */
export function addBlockPoints(db: Db): void {
  const page = db.prepare<[number, number], { id: number; count: number; data: Buffer }>(
    'SELECT b.id, b.count, d.data FROM metric_blocks b JOIN metric_block_data d ON d.block_id = b.id WHERE b.id > ? ORDER BY b.id LIMIT ?',
  );
  const setPoints = db.prepare<[Buffer, number]>('UPDATE metric_blocks SET points = ? WHERE id = ?');
  for (let after = 0; ;) {
    const rows = page.all(after, 256);
    if (rows.length === 0) break;
    for (const row of rows) setPoints.run(blockPoints(decodeBlock(row.data, row.count), 0, row.count), row.id);
    after = rows.at(-1)!.id;
  }
}

/**
 * A metric of at least buckets / this many blocks is charted from its blocks' points (a stretch of whole blocks each,
 * at least a fourth as many points as the budget): a run of a million samples a metric and up.
 */
const CHART_BLOCKS_PER_BUCKET_SHARE = 8;
/** Float64s a block's points take: first, last, lowest, highest, each (order, step, time, value). */
const POINT_FIELDS = 4;
const POINTS = 4;

/** A block's first, last, lowest and highest (finite) samples, encoded for `metric_blocks.points`. */
export function blockPoints(columns: BlockColumns, from: number, to: number): Buffer {
  const points = new Float64Array(POINTS * POINT_FIELDS).fill(Number.NaN);
  let low = -1;
  let high = -1;
  for (let i = from; i < to; i++) {
    const value = columns.value[i]!;
    if (!Number.isFinite(value)) continue;
    if (low < 0 || value < columns.value[low]!) low = i;
    if (high < 0 || value > columns.value[high]!) high = i;
  }
  [from, to - 1, low, high].forEach((at, k) => {
    if (at < 0) return;
    points.set([columns.order[at]!, columns.step[at]!, columns.tMs[at]!, columns.value[at]!], k * POINT_FIELDS);
  });
  return Buffer.from(points.buffer);
}

function decodePoints(data: Buffer): Float64Array {
  const points = new Float64Array(POINTS * POINT_FIELDS);
  new Uint8Array(points.buffer).set(data);
  return points;
}

/** Stores samples as blocks through one connection; every call runs inside the caller's transaction. */
export class SampleBlockWriter {
  private readonly takeOrders;
  private readonly lastBlock;
  private readonly blockData;
  private readonly insert;
  private readonly insertData;
  private readonly rewrite;
  private readonly rewriteData;

  constructor(db: Db) {
    this.takeOrders = db.prepare<[number, number], number>('UPDATE runs SET sample_orders = sample_orders + ? WHERE id = ? RETURNING sample_orders').pluck();
    this.lastBlock = db.prepare<[number, string, string, string, number], { id: number; count: number }>(
      'SELECT id, count FROM metric_blocks WHERE run_id = ? AND name = ? AND source = ? AND kind = ? AND generation = ? ORDER BY id DESC LIMIT 1',
    );
    this.blockData = db.prepare<[number], Buffer>('SELECT data FROM metric_block_data WHERE block_id = ?').pluck();
    this.insert = db.prepare(INSERT_BLOCK_SQL);
    this.insertData = db.prepare<[number | bigint, Buffer]>('INSERT INTO metric_block_data (block_id, data) VALUES (?, ?)');
    this.rewrite = db.prepare(
      `UPDATE metric_blocks SET count = @count, first_order = @firstOrder, last_order = @lastOrder, min_step = @minStep, max_step = @maxStep,
         min_value = @minValue, max_value = @maxValue, non_finite = @nonFinite, unstepped = @unstepped, points = @points WHERE id = @id`,
    );
    this.rewriteData = db.prepare<[Buffer, number]>('UPDATE metric_block_data SET data = ? WHERE block_id = ?');
  }

  /**
   * Gives the samples the run's next orders (in the order given) and stores them by metric: the last block of a
   * metric takes them while it has room and is not too large to write again (REWRITE_FACTOR), new blocks the rest.
   * `from`/`to`: a part of the columns. A run removed meanwhile takes nothing.
   */
  write(runId: number, input: SampleInput, generation = 0, from = 0, to = input.length): void {
    if (to <= from) return;
    this.writeParts(runId, [{ samples: input instanceof SampleColumns ? input : SampleColumns.from(input), from, to }], generation);
  }

  /**
   * Entries of several runs (a commit's), in the order given. A run's entries in a row are written as one: a live
   * run's commit holds an entry per chunk, and each write may write a metric's last block again.
   */
  writeEntries(entries: ReadonlyArray<{ runId: number; samples: SampleInput; from?: number; to?: number }>): void {
    for (let at = 0; at < entries.length;) {
      let end = at + 1;
      while (end < entries.length && entries[end]!.runId === entries[at]!.runId) end++;
      const parts = entries.slice(at, end).map(({ samples, from = 0, to = samples.length }) => ({
        samples: samples instanceof SampleColumns ? samples : SampleColumns.from(samples),
        from,
        to,
      }));
      this.writeParts(entries[at]!.runId, parts, 0);
      at = end;
    }
  }

  /**
   * One run's parts, in order, grouped by metric in two passes over typed columns: each part's name codes mapped to
   * the commit's metrics once, the metrics' sizes counted, then each sample copied once into its metric's columns
   * (joining the parts first, or a list of indexes a metric, made a copy and an array entry a sample).
   */
  private writeParts(runId: number, parts: ReadonlyArray<{ samples: SampleColumns; from: number; to: number }>, generation: number): void {
    const count = parts.reduce((sum, part) => sum + part.to - part.from, 0);
    if (count <= 0) return;
    const last = this.takeOrders.get(count, runId);
    if (last === undefined) return;
    const firstOrder = last - count + 1;
    const keys: BlockKey[] = [];
    const keyIds = new Map<string, number>();
    const sizes: number[] = [];
    // Per part: its samples' metric ids, from a table by (name code, source, kind).
    const idsOfParts = parts.map(({ samples, from, to }) => {
      const table = new Int32Array(samples.names.length * SOURCES.length * KINDS.length).fill(-1);
      const ids = new Int32Array(to - from);
      for (let i = from; i < to; i++) {
        const code = (samples.name[i]! * SOURCES.length + samples.source[i]!) * KINDS.length + samples.kind[i]!;
        let id = table[code]!;
        if (id < 0) {
          const key: BlockKey = { name: samples.names[samples.name[i]!]!, source: SOURCES[samples.source[i]!]!, kind: KINDS[samples.kind[i]!]! };
          const text = `${key.kind}\u0000${key.source}\u0000${key.name}`;
          id = keyIds.get(text) ?? -1;
          if (id < 0) {
            id = keys.length;
            keys.push(key);
            keyIds.set(text, id);
            sizes.push(0);
          }
          table[code] = id;
        }
        ids[i - from] = id;
        sizes[id]!++;
      }
      return ids;
    });
    const columns = sizes.map((size) => emptyColumns(size));
    const filled = new Int32Array(keys.length);
    let order = firstOrder;
    parts.forEach(({ samples, from, to }, p) => {
      const ids = idsOfParts[p]!;
      for (let i = from; i < to; i++, order++) {
        const id = ids[i - from]!;
        const into = columns[id]!;
        const k = filled[id]!++;
        into.order[k] = order;
        into.step[k] = samples.step[i]!;
        into.tMs[k] = samples.tMs[i]!;
        into.value[k] = samples.value[i]!;
      }
    });
    keys.forEach((key, id) => this.writeKey(runId, key, generation, columns[id]!, sizes[id]!));
    // This commit's working columns are garbage now: freed at once (see freeBuffer), not left for the thread's next
    // collection, which an isolate makes only every 64 MiB of them.
    for (const ids of idsOfParts) freeBuffer(ids);
    for (const metric of columns) for (const column of BLOCK_COLUMNS) freeBuffer(metric[column]);
  }

  private writeKey(runId: number, key: BlockKey, generation: number, fresh: BlockColumns, count: number): void {
    let from = 0;
    const previous = this.lastBlock.get(runId, key.name, key.source, key.kind, generation);
    if (previous !== undefined && previous.count < BLOCK_SAMPLES && previous.count <= REWRITE_FACTOR * count) {
      const taken = Math.min(count, BLOCK_SAMPLES - previous.count);
      const old = decodeBlock(this.blockData.get(previous.id)!, previous.count);
      const merged = emptyColumns(previous.count + taken);
      for (const column of BLOCK_COLUMNS) {
        merged[column].set(old[column], 0);
        merged[column].set(fresh[column].subarray(0, taken), previous.count);
      }
      const length = merged.order.length;
      const points = blockPoints(merged, 0, length);
      const data = encodeBlock(merged, 0, length);
      this.rewrite.run({ id: previous.id, ...blockStats(merged, 0, length), points });
      this.rewriteData.run(data, previous.id);
      // SQLite keeps its own copy of what is bound.
      for (const done of [points, data, ...BLOCK_COLUMNS.map((column) => merged[column])]) freeBuffer(done);
      from = taken;
    }
    for (; from < count; from += BLOCK_SAMPLES) {
      const to = Math.min(count, from + BLOCK_SAMPLES);
      const points = blockPoints(fresh, from, to);
      const data = encodeBlock(fresh, from, to);
      const { lastInsertRowid } = this.insert.run({ runId, ...key, generation, ...blockStats(fresh, from, to), points });
      this.insertData.run(lastInsertRowid, data);
      freeBuffer(points);
      freeBuffer(data);
    }
  }
}

/** Which of a run's blocks a read sees: any not parsed from the terminal, and of those parsed, the run's current parse. */
const CURRENT_PARSE = "(source <> 'text' OR generation = (SELECT text_generation FROM runs WHERE id = ?))";

/** One metric's blocks read one at a time, in the run's order. */
class KeyCursor {
  private blockAt = -1;
  private columns: BlockColumns | null = null;
  at = 0;

  constructor(
    readonly key: BlockKey,
    private readonly blocks: ReadonlyArray<{ id: number; count: number }>,
    private readonly load: (id: number, count: number) => BlockColumns,
  ) {}

  /** Moves to the next sample; false when the metric has no more. */
  next(): boolean {
    if (this.columns !== null && this.at + 1 < this.columns.order.length) {
      this.at++;
      return true;
    }
    if (++this.blockAt >= this.blocks.length) {
      this.columns = null;
      return false;
    }
    const block = this.blocks[this.blockAt]!;
    this.columns = this.load(block.id, block.count);
    this.at = 0;
    return true;
  }

  get current(): BlockColumns {
    return this.columns!;
  }

  get order(): number {
    return this.columns!.order[this.at]!;
  }
}

export interface BlockFilter {
  /** Only blocks of this kind, or of every kind but this one. */
  kind?: MetricKind;
  exceptKind?: MetricKind;
  /** Only these names. */
  names?: ReadonlySet<string>;
  /** Text samples of this parse (generation), not the run's current one. */
  parse?: number;
}

/** Reads a run's samples from its blocks: in order across metrics, one block per metric in memory at a time. */
export class SampleBlockReader {
  private readonly blockList;
  private readonly blockListOfParse;
  private readonly blockData;
  private readonly pointsOf;
  private readonly countOf;
  /** Each block read is a Buffer of SQLite's, dropped once read: freed every few megabytes (see externalChurn.ts). */
  private readonly churn = new ExternalChurn(READ_CHURN_BYTES);

  constructor(db: Db) {
    this.blockList = db.prepare<[number, number], BlockInfo & { first_order: number }>(
      `SELECT id, name, source, kind, count, min_step AS minStep, max_step AS maxStep, first_order FROM metric_blocks
       WHERE run_id = ? AND ${CURRENT_PARSE} ORDER BY id`,
    );
    this.blockListOfParse = db.prepare<[number, number], BlockInfo & { first_order: number }>(
      `SELECT id, name, source, kind, count, min_step AS minStep, max_step AS maxStep, first_order FROM metric_blocks
       WHERE run_id = ? AND (source <> 'text' OR generation = ?) ORDER BY id`,
    );
    this.blockData = db.prepare<[number], Buffer>('SELECT data FROM metric_block_data WHERE block_id = ?').pluck();
    this.pointsOf = db.prepare<[number], { points: Buffer | null; nonFinite: number }>(
      'SELECT points, non_finite AS nonFinite FROM metric_blocks WHERE id = ?',
    );
    this.countOf = db.prepare<[number, number], { kind: MetricKind; n: number }>(
      `SELECT kind, SUM(count) AS n FROM metric_blocks WHERE run_id = ? AND ${CURRENT_PARSE} GROUP BY kind`,
    );
  }

  /**
   * The index rows of the run's visible blocks (a few dozen bytes each), in stored order; with `filter.parse`, the
   * text samples of that parse instead of the run's current one (a parse being made, see reparse.ts).
   */
  blocks(runId: number, filter: BlockFilter = {}): BlockInfo[] {
    return (filter.parse === undefined ? this.blockList.all(runId, runId) : this.blockListOfParse.all(runId, filter.parse)).filter(
      (block) =>
        (filter.kind === undefined || block.kind === filter.kind) &&
        (filter.exceptKind === undefined || block.kind !== filter.exceptKind) &&
        (filter.names === undefined || filter.names.has(block.name)),
    );
  }

  load(id: number, count: number): BlockColumns {
    const data = this.blockData.get(id);
    if (data === undefined) throw new Error(`metric block ${id} is gone`);
    // Its bytes and the columns spelled out from them: both outside V8's heap.
    this.churn.note(data.byteLength + count * BLOCK_COLUMNS.length * 8);
    return decodeBlock(data, count);
  }

  /** Samples counted by kind, from the index alone (of a parse being made, with `parse`). */
  countByKind(runId: number, parse?: number): Map<MetricKind, number> {
    if (parse === undefined) return new Map(this.countOf.all(runId, runId).map((row) => [row.kind, row.n]));
    const counts = new Map<MetricKind, number>();
    for (const block of this.blocks(runId, { parse })) counts.set(block.kind, (counts.get(block.kind) ?? 0) + block.count);
    return counts;
  }

  /** Text samples of the run's current parse, from the index alone. */
  textCount(runId: number): number {
    return this.blocks(runId).reduce((sum, block) => sum + (block.source === 'text' ? block.count : 0), 0);
  }

  /**
   * Every sample of the given blocks in the run's order (the order they were stored in), merged across metrics
   * with one decoded block per metric held at a time. `visit` returning false stops the read.
   */
  mergeInOrder(blocks: readonly BlockInfo[], visit: (key: BlockKey, columns: BlockColumns, at: number) => boolean | void): void {
    const heap = this.cursorHeap(blocks);
    while (heap.length > 0) {
      const cursor = heap[0]!;
      if (visit(cursor.key, cursor.current, cursor.at) === false) return;
      advance(heap, cursor);
    }
  }

  /** A cursor per metric over its blocks, in a heap by the order of each one's current sample. */
  private cursorHeap(blocks: readonly BlockInfo[]): KeyCursor[] {
    const byKey = new Map<string, { key: BlockKey; blocks: Array<{ id: number; count: number }> }>();
    for (const block of blocks) {
      const id = `${block.kind}\u0000${block.source}\u0000${block.name}`;
      let group = byKey.get(id);
      if (group === undefined) byKey.set(id, (group = { key: { name: block.name, source: block.source, kind: block.kind }, blocks: [] }));
      group.blocks.push(block);
    }
    const heap: KeyCursor[] = [];
    for (const { key, blocks: ofKey } of byKey.values()) {
      const cursor = new KeyCursor(key, ofKey, (id, count) => this.load(id, count));
      if (cursor.next()) heapPush(heap, cursor);
    }
    return heap;
  }

  /**
   * mergeInOrder in pages of up to `pageSize` samples, for a reader that waits between them (a download to a slow
   * client): the merge's place is kept between pages, and one block per metric is held, whatever the run's length.
   */
  *pagesInOrder(blocks: readonly BlockInfo[], pageSize: number): Generator<ChartSample[]> {
    const heap = this.cursorHeap(blocks);
    let page: ChartSample[] = [];
    while (heap.length > 0) {
      const cursor = heap[0]!;
      const columns = cursor.current;
      const step = columns.step[cursor.at]!;
      page.push({
        ...cursor.key,
        order: columns.order[cursor.at]!,
        step: Number.isNaN(step) ? null : step,
        tMs: columns.tMs[cursor.at]!,
        value: columns.value[cursor.at]!,
      });
      if (page.length >= pageSize) {
        yield page;
        page = [];
      }
      advance(heap, cursor);
    }
    if (page.length > 0) yield page;
  }

  /**
   * A page of the run's per-step series, one value per name and step (the last stored there, of any source and
   * kind), name by name in step order, after the point given. Holds at most about twice `limit` points: the
   * smallest steps past `after` are kept as blocks are read, and blocks whose steps all lie beyond them are skipped.
   */
  seriesPage(runId: number, after: { name: string; step: number } | null, limit: number): Array<{ name: string; step: number; tMs: number; value: number }> {
    const byName = new Map<string, BlockInfo[]>();
    for (const block of this.blocks(runId)) {
      if (block.maxStep === null) continue;
      const list = byName.get(block.name);
      if (list === undefined) byName.set(block.name, [block]);
      else list.push(block);
    }
    // SQLite's order of names (bytes of UTF-8), which the previous page's `after` was taken in.
    const names = [...byName.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const page: Array<{ name: string; step: number; tMs: number; value: number }> = [];
    for (const name of names) {
      if (after !== null && Buffer.compare(Buffer.from(name), Buffer.from(after.name)) < 0) continue;
      const afterStep = after !== null && name === after.name ? after.step : Number.NEGATIVE_INFINITY;
      const room = limit - page.length;
      const best = new Map<number, { order: number; tMs: number; value: number }>();
      let beyond = Number.POSITIVE_INFINITY;
      const prune = () => {
        const steps = [...best.keys()].sort((a, b) => a - b);
        for (const step of steps.slice(room)) best.delete(step);
        if (steps.length >= room) beyond = steps[room - 1]!;
      };
      for (const block of byName.get(name)!) {
        if (block.maxStep! <= afterStep || block.minStep! > beyond) continue;
        const columns = this.load(block.id, block.count);
        for (let i = 0; i < columns.order.length; i++) {
          const step = columns.step[i]!;
          if (Number.isNaN(step) || step <= afterStep || step > beyond) continue;
          const known = best.get(step);
          if (known !== undefined && known.order > columns.order[i]!) continue;
          best.set(step, { order: columns.order[i]!, tMs: columns.tMs[i]!, value: columns.value[i]! });
          if (best.size > 2 * room) prune();
        }
      }
      prune();
      for (const step of [...best.keys()].sort((a, b) => a - b)) {
        const point = best.get(step)!;
        page.push({ name, step, tMs: point.tMs, value: point.value });
      }
      if (page.length >= limit) break;
    }
    return page;
  }

  /**
   * A page of the samples without a step of names that have none with one, in the order they were stored, after
   * the order given (the last of the previous page).
   */
  unsteppedPage(runId: number, afterOrder: number, limit: number): Array<{ order: number; name: string; tMs: number; value: number }> {
    const blocks = this.blocks(runId);
    const stepped = new Set(blocks.filter((block) => block.maxStep !== null).map((block) => block.name));
    const page: Array<{ order: number; name: string; tMs: number; value: number }> = [];
    this.mergeInOrder(
      blocks.filter((block) => !stepped.has(block.name)),
      (key, columns, at) => {
        const order = columns.order[at]!;
        if (order > afterOrder) page.push({ order, name: key.name, tMs: columns.tMs[at]!, value: columns.value[at]! });
        return page.length < limit;
      },
    );
    return page;
  }

  /**
   * A run's samples for charts, in the run's order: of a metric with at most `maxPerMetric` samples every one; of a
   * longer one, in each of `maxPerMetric / 4` runs of equal count, its first, last, lowest and highest sample (so a
   * spike stays on the chart), and the metric's first non-finite value. Its blocks are read one at a time; what is
   * kept is at most `maxPerMetric` samples a metric, whatever the run's length. A metric of many blocks takes its
   * stretches as whole blocks and their points from the index (chartFromPoints): a run of 10 M steps decoded 1 GB.
   */
  chartSamples(runId: number, maxPerMetric: number): { samples: ChartSample[]; stored: Array<BlockKey & { samples: number }> } {
    const byKey = new Map<string, BlockInfo[]>();
    for (const block of this.blocks(runId)) {
      const id = `${block.kind}\u0000${block.source}\u0000${block.name}`;
      const list = byKey.get(id);
      if (list === undefined) byKey.set(id, [block]);
      else list.push(block);
    }
    const samples: ChartSample[] = [];
    const stored: Array<BlockKey & { samples: number }> = [];
    for (const blocks of byKey.values()) {
      const key: BlockKey = { name: blocks[0]!.name, source: blocks[0]!.source, kind: blocks[0]!.kind };
      const total = blocks.reduce((sum, block) => sum + block.count, 0);
      stored.push({ ...key, samples: total });
      const buckets = Math.max(1, Math.floor(maxPerMetric / 4));
      const every = total <= maxPerMetric;
      if (!every && blocks.length >= buckets / CHART_BLOCKS_PER_BUCKET_SHARE) {
        this.chartFromPoints(key, blocks, buckets, samples);
        continue;
      }
      const make = (columns: BlockColumns, i: number): ChartSample => {
        const step = columns.step[i]!;
        return { ...key, order: columns.order[i]!, step: Number.isNaN(step) ? null : step, tMs: columns.tMs[i]!, value: columns.value[i]! };
      };
      // The stretch being read: its first, last, lowest and highest samples, as positions in the decoded blocks
      // (made into samples only when the stretch ends: a sample object each was most of the time on a long run).
      let index = 0;
      let bucket = -1;
      let nonFinite: ChartSample | null = null;
      let nonFiniteSeen = false;
      let first: ChartSample | null = null;
      let lastColumns: BlockColumns | null = null;
      let lastAt = 0;
      let lowColumns: BlockColumns | null = null;
      let lowAt = 0;
      let lowValue = Number.POSITIVE_INFINITY;
      let highColumns: BlockColumns | null = null;
      let highAt = 0;
      let highValue = Number.NEGATIVE_INFINITY;
      const endBucket = () => {
        const kept = new Map<number, ChartSample>();
        for (const sample of [first, nonFinite]) if (sample !== null) kept.set(sample.order, sample);
        for (const [columns, at] of [
          [lastColumns, lastAt],
          [lowColumns, lowAt],
          [highColumns, highAt],
        ] as const) {
          if (columns !== null && !kept.has(columns.order[at]!)) kept.set(columns.order[at]!, make(columns, at));
        }
        for (const sample of [...kept.values()].sort((a, b) => a.order - b.order)) samples.push(sample);
        first = null;
        nonFinite = null;
        lastColumns = null;
        lowColumns = null;
        lowValue = Number.POSITIVE_INFINITY;
        highColumns = null;
        highValue = Number.NEGATIVE_INFINITY;
      };
      this.scan(blocks, (_block, columns) => {
        for (let i = 0; i < columns.order.length; i++, index++) {
          if (every) {
            samples.push(make(columns, i));
            continue;
          }
          const at = Math.floor((index * buckets) / total);
          if (at !== bucket) {
            if (bucket >= 0) endBucket();
            bucket = at;
            first = make(columns, i);
          }
          lastColumns = columns;
          lastAt = i;
          const value = columns.value[i]!;
          if (!Number.isFinite(value)) {
            if (!nonFiniteSeen) nonFinite = make(columns, i);
            nonFiniteSeen = true;
            continue;
          }
          if (value < lowValue) {
            lowColumns = columns;
            lowAt = i;
            lowValue = value;
          }
          if (value > highValue) {
            highColumns = columns;
            highAt = i;
            highValue = value;
          }
        }
      });
      if (!every && bucket >= 0) endBucket();
    }
    samples.sort((a, b) => a.order - b.order);
    return { samples, stored };
  }

  /**
   * A long metric's chart from its blocks' points alone (no block decoded but the one holding its first non-finite
   * value): whole blocks to a stretch, each stretch's first, last, lowest and highest sample.
   */
  private chartFromPoints(key: BlockKey, blocks: readonly BlockInfo[], buckets: number, out: ChartSample[]): void {
    const perBucket = Math.ceil(blocks.length / buckets);
    const sample = (points: Float64Array, k: number): ChartSample | null => {
      const at = k * POINT_FIELDS;
      if (Number.isNaN(points[at]!)) return null;
      const step = points[at + 1]!;
      return { ...key, order: points[at]!, step: Number.isNaN(step) ? null : step, tMs: points[at + 2]!, value: points[at + 3]! };
    };
    let nonFiniteFound = false;
    for (let start = 0; start < blocks.length; start += perBucket) {
      const kept = new Map<number, ChartSample>();
      let low: ChartSample | null = null;
      let high: ChartSample | null = null;
      let last: ChartSample | null = null;
      for (let b = start; b < Math.min(blocks.length, start + perBucket); b++) {
        const block = blocks[b]!;
        const row = this.pointsOf.get(block.id)!;
        const points = row.points === null ? decodePoints(blockPoints(this.load(block.id, block.count), 0, block.count)) : decodePoints(row.points);
        if (b === start) {
          const first = sample(points, 0);
          if (first !== null) kept.set(first.order, first);
        }
        last = sample(points, 1) ?? last;
        const blockLow = sample(points, 2);
        const blockHigh = sample(points, 3);
        if (blockLow !== null && (low === null || blockLow.value < low.value)) low = blockLow;
        if (blockHigh !== null && (high === null || blockHigh.value > high.value)) high = blockHigh;
        if (!nonFiniteFound && row.nonFinite > 0) {
          nonFiniteFound = true;
          const columns = this.load(block.id, block.count);
          const at = columns.value.findIndex((value) => !Number.isFinite(value));
          const step = columns.step[at]!;
          kept.set(columns.order[at]!, {
            ...key,
            order: columns.order[at]!,
            step: Number.isNaN(step) ? null : step,
            tMs: columns.tMs[at]!,
            value: columns.value[at]!,
          });
        }
      }
      for (const picked of [last, low, high]) if (picked !== null && !kept.has(picked.order)) kept.set(picked.order, picked);
      for (const picked of [...kept.values()].sort((a, b) => a.order - b.order)) out.push(picked);
    }
  }

  /** The kind each metric of a run was logged as: the one most of its samples have. */
  kindsByName(runId: number): Record<string, MetricKind> {
    const counts = new Map<string, Map<MetricKind, number>>();
    for (const block of this.blocks(runId)) {
      const ofName = counts.get(block.name) ?? new Map<MetricKind, number>();
      ofName.set(block.kind, (ofName.get(block.kind) ?? 0) + block.count);
      counts.set(block.name, ofName);
    }
    const kinds: Record<string, MetricKind> = {};
    for (const [name, ofName] of counts) kinds[name] = [...ofName].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
    return kinds;
  }

  /** The blocks of one metric, one decoded at a time, in stored order. */
  scan(blocks: readonly BlockInfo[], visit: (block: BlockInfo, columns: BlockColumns) => void): void {
    for (const block of blocks) visit(block, this.load(block.id, block.count));
  }
}

/** The heap's top cursor moved on to its next sample, or out of the heap when its metric has no more. */
function advance(heap: KeyCursor[], cursor: KeyCursor): void {
  if (cursor.next()) siftDown(heap, 0);
  else {
    const lastCursor = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = lastCursor;
      siftDown(heap, 0);
    }
  }
}

function heapPush(heap: KeyCursor[], cursor: KeyCursor): void {
  heap.push(cursor);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent]!.order <= heap[i]!.order) break;
    [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
    i = parent;
  }
}

function siftDown(heap: KeyCursor[], from: number): void {
  let i = from;
  for (;;) {
    const left = 2 * i + 1;
    const right = left + 1;
    let smallest = i;
    if (left < heap.length && heap[left]!.order < heap[smallest]!.order) smallest = left;
    if (right < heap.length && heap[right]!.order < heap[smallest]!.order) smallest = right;
    if (smallest === i) return;
    [heap[smallest], heap[i]] = [heap[i]!, heap[smallest]!];
    i = smallest;
  }
}

/**
 * Moves a database's samples from one row each (schema 17 and before) into blocks, run by run and metric by metric
 * in stored order, a block's worth of rows at a time: a sample's order is its old rowid, so every read sees the same
 * order as before. Runs inside the migration's transaction.
 */
export function moveRowsIntoBlocks(db: Db): void {
  db.exec('CREATE INDEX metric_samples_by_key ON metric_samples (run_id, name, source, kind, generation)');
  const keys = db
    .prepare<[], { run_id: number; name: string; source: MetricSource; kind: MetricKind; generation: number }>(
      'SELECT DISTINCT run_id, name, source, kind, generation FROM metric_samples',
    )
    .all();
  const page = db.prepare<
    [number, string, string, string, number, number, number],
    { rowid: number; step: number | null; t_ms: number; value: number | null; special: string | null }
  >(
    `SELECT rowid, step, t_ms, value, special FROM metric_samples WHERE run_id = ? AND name = ? AND source = ? AND kind = ? AND generation = ? AND rowid > ?
     ORDER BY rowid LIMIT ?`,
  );
  const insert = db.prepare(INSERT_BLOCK_V18_SQL);
  for (const key of keys) {
    for (let after = 0; ;) {
      const rows = page.all(key.run_id, key.name, key.source, key.kind, key.generation, after, BLOCK_SAMPLES);
      if (rows.length === 0) break;
      const columns = emptyColumns(rows.length);
      rows.forEach((row, i) => {
        columns.order[i] = row.rowid;
        columns.step[i] = row.step ?? Number.NaN;
        columns.tMs[i] = row.t_ms;
        columns.value[i] =
          row.special === 'nan'
            ? Number.NaN
            : row.special === 'inf'
              ? Number.POSITIVE_INFINITY
              : row.special === '-inf'
                ? Number.NEGATIVE_INFINITY
                : (row.value ?? Number.NaN);
      });
      insert.run({
        runId: key.run_id,
        name: key.name,
        source: key.source,
        kind: key.kind,
        generation: key.generation,
        ...blockStats(columns, 0, rows.length),
        data: encodeBlock(columns, 0, rows.length),
      });
      after = rows.at(-1)!.rowid;
    }
  }
  db.exec(`UPDATE runs SET sample_orders = COALESCE((SELECT MAX(rowid) FROM metric_samples WHERE run_id = runs.id), 0);
    DROP TABLE metric_samples;`);
}
