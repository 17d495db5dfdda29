// Metric samples stored in blocks: what goes in comes back in the run's order, whatever the sizes of the writes;
// the pages MLflow publishing reads and the progress digest equal what every sample says; a database made by the
// previous version (a row a sample) is converted with every sample, order and non-finite value kept.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { migrations, SCHEMA_VERSION } from '../../electron/core/store/migrations/index.js';
import { APPLICATION_ID, integrityCheck } from '../../electron/core/store/open.js';
import { Store } from '../../electron/core/store/store.js';
import { BLOCK_SAMPLES, SampleBlockReader } from '../../electron/core/store/sampleBlocks.js';
import { SampleColumns } from '../../electron/core/store/sampleColumns.js';
import type { MetricKind, MetricSample, MetricSource } from '../../electron/core/store/records.js';
import { makeTempDir } from '../helpers/tempCore.js';

let dir: string;
let store: Store | null = null;
afterEach(async () => {
  await store?.close();
  store = null;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A small deterministic generator, so a failure is the same on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function openStore(): Store {
  dir = makeTempDir();
  store = new Store(path.join(dir, 'runs.db'));
  return store;
}

function newRun(s: Store): number {
  return s.runs.insert({
    workloadId: null,
    workloadName: null,
    command: ['train'],
    cwd: dir,
    config: {},
    env: {},
    startedAt: new Date(0),
    enginePid: process.pid,
  }).id;
}

function sample(name: string, step: number | null, tMs: number, value: number, kind: MetricKind = 'train', source: MetricSource = 'text'): MetricSample {
  return { name, step, tMs, value, kind, source };
}

/** Samples a dense log and a progress bar give, with steps that repeat and go back, values that are not finite. */
function mixedSamples(count: number, seed: number): MetricSample[] {
  const next = random(seed);
  const names = ['loss', 'grad_norm', 'lr', 'eval_loss', 'tokens'];
  const samples: MetricSample[] = [];
  for (let i = 0; i < count; i++) {
    const roll = next();
    const name = names[Math.floor(next() * names.length)]!;
    const step = roll < 0.05 ? null : Math.floor(i / 3) - (roll < 0.1 ? 7 : 0);
    const value = roll < 0.01 ? Number.NaN : roll < 0.015 ? Number.POSITIVE_INFINITY : roll < 0.02 ? Number.NEGATIVE_INFINITY : next() * 10;
    const kind: MetricKind = name === 'eval_loss' ? 'eval' : roll > 0.8 ? 'progress' : 'train';
    samples.push(sample(name, step, i * 1.5, value, kind, roll > 0.9 ? 'channel' : 'text'));
  }
  return samples;
}

describe('samples in blocks', () => {
  it('come back in the order stored across metrics, whatever the sizes of the writes', () => {
    const s = openStore();
    const run = newRun(s);
    const other = newRun(s);
    const samples = mixedSamples(30_000, 1);
    const next = random(2);
    for (let at = 0; at < samples.length;) {
      // Writes of one sample (a quiet live run) up to thousands (an import's commit), another run's in between.
      const size = next() < 0.5 ? 1 + Math.floor(next() * 3) : Math.floor(next() * 6000);
      s.metrics.insertNow(run, samples.slice(at, at + size));
      s.metrics.insertNow(other, [sample('loss', at, at, 1)]);
      at += size;
    }
    const back = s.metrics.forRun(run);
    expect(back).toHaveLength(samples.length);
    expect(back).toEqual(samples);
    expect(s.metrics.count(run)).toBe(samples.length);
    expect(s.metrics.countNumeric(run, 'exceptProgress')).toBe(samples.filter((x) => x.kind !== 'progress').length);
  });

  it('fills blocks: full ones from big writes, dozens of samples from a sample a write', () => {
    const s = openStore();
    const dense = newRun(s);
    s.metrics.insertNow(
      dense,
      Array.from({ length: 3 * BLOCK_SAMPLES + 5 }, (_, i) => sample('loss', i, i, i)),
    );
    const quiet = newRun(s);
    for (let i = 0; i < 2000; i++) s.metrics.insertNow(quiet, [sample('loss', i, i, i)]);
    const reader = new SampleBlockReader(s.db);
    expect(reader.blocks(dense).map((block) => block.count)).toEqual([BLOCK_SAMPLES, BLOCK_SAMPLES, BLOCK_SAMPLES, 5]);
    const quietBlocks = reader.blocks(quiet);
    expect(quietBlocks.length).toBeLessThanOrEqual(Math.ceil(2000 / 60));
    expect(quietBlocks.reduce((sum, block) => sum + block.count, 0)).toBe(2000);
    expect(s.metrics.forRun(quiet).map((x) => x.value)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
  });

  it("keeps a new parse invisible until it is made the run's, then the old one is deleted", () => {
    const s = openStore();
    const run = newRun(s);
    s.metrics.insertNow(run, [sample('loss', 1, 1, 4), sample('gpu', 1, 1, 9, 'train', 'channel')]);
    const generation = s.metrics.textGeneration(run) + 1;
    s.db.transaction(() => s.metrics.insertTextGeneration(run, generation, [sample('loss', 1, 1, 3), sample('loss', 2, 2, 2)]))();
    expect(s.metrics.forRun(run).map((x) => x.value)).toEqual([4, 9]);
    s.db.transaction(() => s.metrics.useTextGeneration(run, generation))();
    expect(s.metrics.forRun(run).map((x) => x.value)).toEqual([9, 3, 2]);
    let deleted = 0;
    for (let after = 0, n = 1; n > 0; deleted += n) ({ deleted: n, lastBlock: after } = s.metrics.deleteOtherTextGenerations(run, after, 1));
    expect(deleted).toBe(1);
    expect(s.db.prepare('SELECT COUNT(*) FROM metric_blocks WHERE run_id = ?').pluck().get(run)).toBe(2);
  });

  it('pages of the per-step series equal the last value stored at each step, name by name', () => {
    const s = openStore();
    const run = newRun(s);
    const samples = mixedSamples(20_000, 3);
    for (let at = 0; at < samples.length; at += 777) s.metrics.insertNow(run, samples.slice(at, at + 777));
    const expected = new Map<string, { name: string; step: number; tMs: number; value: number }>();
    const steppedNames = new Set(samples.filter((x) => x.step !== null).map((x) => x.name));
    for (const x of samples) if (x.step !== null) expected.set(`${x.name}\u0000${x.step}`, { name: x.name, step: x.step, tMs: x.tMs, value: x.value });
    const reference = [...expected.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.step - b.step));

    const reader = new SampleBlockReader(s.db);
    const pages: Array<{ name: string; step: number; tMs: number; value: number }> = [];
    for (let after: { name: string; step: number } | null = null; ;) {
      const page = reader.seriesPage(run, after, 500);
      pages.push(...page);
      if (page.length < 500) break;
      after = { name: page.at(-1)!.name, step: page.at(-1)!.step };
    }
    expect(pages).toEqual(reference);

    // Names never given a step come page by page in the order stored.
    const unstepped = newRun(s);
    const lines = Array.from({ length: 3000 }, (_, i) => sample(i % 2 ? 'throughput' : 'mfu', null, i, i));
    s.metrics.insertNow(unstepped, [...lines, sample('loss', 1, 0, 1)]);
    const read: number[] = [];
    for (let after = 0; ;) {
      const page = reader.unsteppedPage(unstepped, after, 700);
      read.push(...page.map((point) => point.value));
      if (page.length < 700) break;
      after = page.at(-1)!.order;
    }
    expect(read).toEqual(lines.map((x) => x.value));
    expect(steppedNames.size).toBeGreaterThan(0);
    expect(reader.kindsByName(run).eval_loss).toBe('eval');
  });

  it('digest of a progress bar: its sample at the largest step, its last finite one, a non-finite loss', () => {
    const s = openStore();
    const run = newRun(s);
    const bar = [
      sample('loss', 5, 10, 2.0, 'progress'),
      sample('loss', 9, 20, Number.NaN, 'progress'),
      sample('loss', 9, 15, 1.8, 'progress'),
      sample('loss', 3, 30, 2.5, 'progress'),
      sample('it_per_s', null, 5, 7, 'progress'),
      sample('it_per_s', null, 40, 8, 'progress'),
      sample('it_per_s', 2, 50, 9, 'progress'),
    ];
    s.metrics.insertNow(run, bar);
    const digest = s.metrics.progressDigest(run).map(({ name, step, tMs, value }) => ({ name, step, tMs, value }));
    expect(digest).toEqual([
      { name: 'loss', step: 9, tMs: 20, value: Number.NaN },
      { name: 'loss', step: 9, tMs: 15, value: 1.8 },
      { name: 'it_per_s', step: null, tMs: 40, value: 8 },
      { name: 'it_per_s', step: 2, tMs: 50, value: 9 },
    ]);
  });
});

describe("a long run's charts", () => {
  it('get every sample of a short metric, and of a long one its first, last, lowest, highest per stretch and first NaN', () => {
    const s = openStore();
    const run = newRun(s);
    const steps = 200_000;
    const loss = (i: number) => 4 - i / 100_000 + ((i * 7919) % 100) / 10_000;
    const samples: MetricSample[] = [];
    for (let i = 1; i <= steps; i++) {
      samples.push(sample('loss', i, i, i === 123_457 ? 9 : i === 150_001 ? Number.NaN : loss(i)));
      if (i % 1000 === 0) samples.push(sample('eval_loss', i, i, 3, 'eval'));
    }
    for (let at = 0; at < samples.length; at += 20_000) s.metrics.insertNow(run, samples.slice(at, at + 20_000));

    const { samples: picked, stored } = s.metrics.chartSamples(run, 2000);
    expect(stored).toEqual(
      expect.arrayContaining([
        { name: 'loss', source: 'text', kind: 'train', samples: steps },
        { name: 'eval_loss', source: 'text', kind: 'eval', samples: 200 },
      ]),
    );
    const losses = picked.filter((x) => x.name === 'loss');
    expect(losses.length).toBeLessThanOrEqual(2001);
    expect(losses.length).toBeGreaterThan(1000);
    // In the run's order, the spike and the NaN kept, the ends kept.
    expect(losses.map((x) => x.step)).toEqual([...losses.map((x) => x.step!)].sort((a, b) => a - b));
    expect(losses.find((x) => x.step === 123_457)?.value).toBe(9);
    expect(Number.isNaN(losses.find((x) => x.step === 150_001)?.value ?? 0)).toBe(true);
    expect(losses[0]!.step).toBe(1);
    expect(losses.at(-1)!.step).toBe(steps);
    // Each stretch's lowest is there: the chart's low envelope is the data's.
    const lowestOf = (list: readonly MetricSample[]) =>
      list.reduce((low, x) => (x.name === 'loss' && Number.isFinite(x.value) && x.value < low ? x.value : low), Infinity);
    expect(lowestOf(losses)).toBe(lowestOf(samples));
    // A metric under the bound comes whole.
    expect(picked.filter((x) => x.name === 'eval_loss')).toHaveLength(200);
    // A short run's chart is every sample.
    const short = newRun(s);
    s.metrics.insertNow(short, samples.slice(0, 500));
    expect(s.metrics.chartSamples(short, 2000).samples).toEqual(samples.slice(0, 500));
  });
});

describe("a very long run's charts", () => {
  it("come from the blocks' points, decoding no block but the one holding the first NaN", () => {
    const s = openStore();
    const run = newRun(s);
    const steps = 1_100_000;
    const columns = new SampleColumns(steps);
    let lowest = Infinity;
    for (let i = 1; i <= steps; i++) {
      const value = i === 777_777 ? 50 : i === 900_001 ? Number.NaN : 4 - i / 400_000 + ((i * 7919) % 100) / 10_000;
      if (Number.isFinite(value)) lowest = Math.min(lowest, value);
      columns.push(i, i * 10, 'loss', value, 'text', 'train');
    }
    s.metrics.writeNow(run, columns);
    const load = vi.spyOn(SampleBlockReader.prototype, 'load');
    const { samples: picked, stored } = s.metrics.chartSamples(run, 8000);
    expect(load).toHaveBeenCalledTimes(1);
    load.mockRestore();
    expect(stored).toEqual([{ name: 'loss', source: 'text', kind: 'train', samples: steps }]);
    // 269 blocks: a stretch a block, its first, last, lowest and highest (some the same sample).
    expect(picked.length).toBeLessThanOrEqual(4 * Math.ceil(steps / BLOCK_SAMPLES) + 1);
    expect(picked.length).toBeGreaterThan(2 * Math.ceil(steps / BLOCK_SAMPLES));
    expect(picked.map((x) => x.step)).toEqual([...picked.map((x) => x.step!)].sort((a, b) => a - b));
    expect(picked[0]).toMatchObject({ step: 1, tMs: 10 });
    expect(picked.at(-1)!.step).toBe(steps);
    expect(picked.find((x) => x.step === 777_777)?.value).toBe(50);
    expect(Number.isNaN(picked.find((x) => x.step === 900_001)?.value ?? 0)).toBe(true);
    expect(Math.min(...picked.filter((x) => Number.isFinite(x.value)).map((x) => x.value))).toBe(lowest);
  });
});

describe('a database made by the previous version (a row a sample)', () => {
  /** A new file with the schema as it was before blocks (migrations 1 to 17), open for rows to be put in. */
  function fileBeforeBlocks(): { file: string; raw: Database.Database } {
    dir = makeTempDir();
    const file = path.join(dir, 'runs.db');
    const raw = new Database(file);
    raw.pragma('journal_mode = WAL');
    raw.pragma(`application_id = ${APPLICATION_ID}`);
    for (const migration of migrations.filter((m) => m.version <= 17)) raw.exec(migration.sql);
    raw.pragma('user_version = 17');
    return { file, raw };
  }

  it('is converted with every sample, its order, its parse and non-finite values; new samples follow', async () => {
    const { file, raw } = fileBeforeBlocks();
    const addRun = raw.prepare("INSERT INTO runs (status, started_at, command_json, cwd) VALUES ('succeeded', ?, '[\"train\"]', '/tmp')");
    const first = Number(addRun.run(new Date(0).toISOString()).lastInsertRowid);
    const second = Number(addRun.run(new Date(0).toISOString()).lastInsertRowid);
    const insert = raw.prepare(
      'INSERT INTO metric_samples (run_id, step, t_ms, name, value, special, source, kind, generation) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const expected: MetricSample[] = [];
    const next = random(4);
    raw.transaction(() => {
      for (let i = 0; i < 2 * BLOCK_SAMPLES + 100; i++) {
        const name = ['loss', 'grad_norm', 'lr'][i % 3]!;
        const special = i === 10 ? 'nan' : i === 11 ? 'inf' : i === 12 ? '-inf' : null;
        const value = special === null ? next() : null;
        const step = i % 50 === 0 ? null : Math.floor(i / 3);
        insert.run(first, step, i, name, value, special, 'text', 'train', 0);
        insert.run(second, i, i, 'loss', i, null, 'text', 'train', i % 2);
        expected.push(sample(name, step, i, special === 'nan' ? Number.NaN : special === 'inf' ? Infinity : special === '-inf' ? -Infinity : value!));
      }
    })();
    raw.prepare('UPDATE runs SET text_generation = 1 WHERE id = ?').run(second);
    raw.close();

    const s = (store = new Store(file));
    expect(s.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(s.db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'metric_samples'").pluck().get()).toBe(0);
    expect(integrityCheck(s.db)).toEqual(['ok']);
    expect(s.metrics.forRun(first)).toEqual(expected);
    // Only the run's current parse is seen, as before.
    expect(s.metrics.forRun(second).map((x) => x.value)).toEqual(expected.map((_, i) => i).filter((i) => i % 2 === 1));
    s.metrics.insertNow(first, [sample('loss', 99_999, 99_999, 0.5)]);
    expect(s.metrics.forRun(first).at(-1)).toEqual(sample('loss', 99_999, 99_999, 0.5));
    expect(s.metrics.forRun(first)).toHaveLength(expected.length + 1);
  });

  it('made by the version with blocks beside their index, gets them apart and each block its points', async () => {
    const { file, raw } = fileBeforeBlocks();
    const run = Number(
      raw.prepare("INSERT INTO runs (status, started_at, command_json, cwd) VALUES ('succeeded', ?, '[\"train\"]', '/tmp')").run(new Date(0).toISOString())
        .lastInsertRowid,
    );
    const insert = raw.prepare(
      'INSERT INTO metric_samples (run_id, step, t_ms, name, value, special, source, kind, generation) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, 0)',
    );
    const expected: MetricSample[] = [];
    raw.transaction(() => {
      for (let i = 0; i < 3 * BLOCK_SAMPLES + 7; i++) {
        const value = i === 5000 ? -3 : Math.sin(i / 100);
        insert.run(run, i, i, 'loss', value, 'text', 'train');
        expected.push(sample('loss', i, i, value));
      }
    })();
    // Schema 18 as it was: the BLOB in the index row.
    const blocks = migrations.find((m) => m.version === 18)!;
    raw.exec(blocks.sql);
    blocks.convert!(raw);
    raw.pragma('user_version = 18');
    raw.close();

    const notices: string[] = [];
    const s = (store = new Store(file, undefined, { onMigrating: (message) => notices.push(message) }));
    expect(notices).toEqual([expect.stringMatching(/^Updating .*runs\.db for this version \(block-data-apart\): its metric samples are moved/u)]);
    expect(s.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(integrityCheck(s.db)).toEqual(['ok']);
    const columns = s.db
      .prepare<[], { name: string }>('PRAGMA table_info(metric_blocks)')
      .all()
      .map((c) => c.name);
    expect(columns).not.toContain('data');
    expect(s.db.prepare('SELECT COUNT(*) FROM metric_block_data').pluck().get()).toBe(4);
    expect(s.db.prepare('SELECT COUNT(*) FROM metric_blocks WHERE points IS NULL').pluck().get()).toBe(0);
    expect(s.metrics.forRun(run)).toEqual(expected);
    // The second block's points: its first (4096), last (8191), lowest (-3 at 5000) and highest samples.
    const second = Float64Array.from(
      new Float64Array(new Uint8Array(s.db.prepare<[], Buffer>('SELECT points FROM metric_blocks ORDER BY id LIMIT 1 OFFSET 1').pluck().get()!).buffer),
    );
    expect([second[1], second[5], second[9], second[11]]).toEqual([4096, 8191, 5000, -3]);
    // A block deleted takes its data with it.
    s.db.prepare('DELETE FROM runs WHERE id = ?').run(run);
    expect(s.db.prepare('SELECT COUNT(*) FROM metric_block_data').pluck().get()).toBe(0);
    // Opened again, or made new: nothing to say.
    await s.close();
    store = new Store(file, undefined, { onMigrating: (message) => notices.push(message) });
    await store.close();
    store = new Store(path.join(dir, 'new.db'), undefined, { onMigrating: (message) => notices.push(message) });
    expect(notices).toHaveLength(1);
  });

  it('made by the version before progressions (every column whole), reads its blocks as they were and adds new ones in the new form', async () => {
    dir = makeTempDir();
    const file = path.join(dir, 'runs.db');
    const raw = new Database(file);
    raw.pragma('journal_mode = WAL');
    raw.pragma(`application_id = ${APPLICATION_ID}`);
    for (const migration of migrations.filter((m) => m.version <= 20)) {
      raw.exec(migration.sql);
      migration.convert?.(raw);
    }
    raw.pragma('user_version = 20');
    const run = Number(
      raw.prepare("INSERT INTO runs (status, started_at, command_json, cwd) VALUES ('succeeded', ?, '[\"train\"]', '/tmp')").run(new Date(0).toISOString())
        .lastInsertRowid,
    );
    // One block as the version before wrote it: orders, steps, times and values, each column whole.
    const count = 300;
    const expected = Array.from({ length: count }, (_, i) => sample('loss', 10 + i, 0, 2 / (1 + i)));
    const packed = new Float64Array(4 * count);
    expected.forEach((one, i) => {
      packed[i] = i + 1;
      packed[count + i] = one.step!;
      packed[2 * count + i] = one.tMs;
      packed[3 * count + i] = one.value;
    });
    const block = raw
      .prepare(
        `INSERT INTO metric_blocks (run_id, name, source, kind, generation, count, first_order, last_order, min_step, max_step, min_value, max_value, non_finite, unstepped)
         VALUES (?, 'loss', 'text', 'train', 0, ?, 1, ?, 10, ?, ?, 2, 0, 0)`,
      )
      .run(run, count, count, 9 + count, 2 / count).lastInsertRowid;
    raw.prepare('INSERT INTO metric_block_data (block_id, data) VALUES (?, ?)').run(block, Buffer.from(packed.buffer));
    raw.prepare('UPDATE runs SET sample_orders = ? WHERE id = ?').run(count, run);
    raw.close();

    const s = (store = new Store(file));
    expect(s.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(s.metrics.forRun(run)).toEqual(expected);
    // A block of the new form beside it: its steps and times are progressions, so it is smaller than four whole columns.
    const more = Array.from({ length: 100 }, (_, i) => sample('grad_norm', 10 + i, 0, Math.cos(i)));
    s.metrics.insertNow(run, more);
    expect(s.metrics.forRun(run)).toEqual([...expected, ...more]);
    const newest = s.db.prepare<[], Buffer>('SELECT data FROM metric_block_data ORDER BY block_id DESC LIMIT 1').pluck().get()!;
    expect(newest.byteLength).toBeLessThan(4 * 8 * more.length);
  });
});
