// The SQLite file: pragmas, migrations, refusal of newer files, batched writes.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { BatchWriter } from '../../electron/core/store/batchWriter.js';
import { COMMIT_INTERVAL_MS } from '../../electron/core/ingest/commitPolicy.js';
import { migrations, SCHEMA_VERSION } from '../../electron/core/store/migrations/index.js';
import { APPLICATION_ID, DatabaseTooNewError, openDatabase } from '../../electron/core/store/open.js';
import { Recording } from '../../electron/core/ingest/recording.js';
import { systemClock } from '../../electron/core/clock.js';
import { Store } from '../../electron/core/store/store.js';
import { makeTempDir } from '../helpers/tempCore.js';
import { requestedKnobs } from '../../electron/core/runner/knobResults.js';

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('openDatabase', () => {
  it('creates the file with WAL, foreign keys and every table', () => {
    dir = makeTempDir();
    const file = path.join(dir, 'nested', 'runs.db');
    const db = openDatabase(file);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(expect.arrayContaining(['workloads', 'runs', 'run_output', 'metric_blocks', 'gpu_samples', 'host_samples', 'gpu_settings_journal']));
    db.close();
  });

  it('refuses a file from a newer version, and leaves it untouched', () => {
    dir = makeTempDir();
    const file = path.join(dir, 'runs.db');
    const raw = new Database(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    // A newer Tuning Bench marks its file as ours, whatever tables it has by then.
    raw.pragma(`application_id = ${APPLICATION_ID}`);
    raw.exec('CREATE TABLE future (x)');
    raw.close();
    expect(() => openDatabase(file)).toThrow(DatabaseTooNewError);
    expect(() => openDatabase(file)).toThrow(/newer Tuning Bench .*--db or TUNING_BENCH_DB/);
    const again = new Database(file);
    expect(again.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION + 5);
    again.close();
  });

  it('enforces foreign keys: output cannot point at a run that does not exist', () => {
    dir = makeTempDir();
    const db = openDatabase(path.join(dir, 'runs.db'));
    expect(() => db.prepare("INSERT INTO run_output (run_id, seq, t_ms, data) VALUES (999, 0, 0, x'00')").run()).toThrow(/FOREIGN KEY/);
    db.close();
  });
});

describe('a run started from a typed command', () => {
  /** The schema as it was before typed commands were kept (migrations 1 to 14), with one run of `--batch_size 16` in it. */
  function fileBeforeTypedCommands(file: string): void {
    const raw = new Database(file);
    raw.pragma('journal_mode = WAL');
    raw.pragma(`application_id = ${APPLICATION_ID}`);
    for (const migration of migrations.filter((m) => m.version <= 14)) raw.exec(migration.sql);
    raw.pragma('user_version = 14');
    raw
      .prepare("INSERT INTO runs (status, started_at, command_json, cwd, config_json, env_json) VALUES ('succeeded', ?, ?, ?, ?, '{}')")
      .run(new Date(0).toISOString(), JSON.stringify(['/bin/sh', '-c', 'python train.py --batch_size 16']), dir, JSON.stringify({ batch: '16' }));
    raw.close();
  }

  it('keeps its template and values; a run stored before they were kept reads without them', async () => {
    dir = makeTempDir();
    const file = path.join(dir, 'runs.db');
    fileBeforeTypedCommands(file);
    const store = new Store(file);
    expect(store.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const [old] = store.runs.list(10);
    expect(old!.command).toEqual(['/bin/sh', '-c', 'python train.py --batch_size 16']);
    expect(old!.typedCommand).toBeNull();

    const typed = { template: ['python train.py --batch_size {batch}'], mode: 'shell' as const, cwd: dir, values: { batch: '16' } };
    const run = store.runs.insert({
      workloadId: null,
      workloadName: null,
      command: ['/bin/sh', '-c', "python train.py --batch_size '16'"],
      cwd: dir,
      config: { batch: '16' },
      env: {},
      startedAt: new Date(),
      enginePid: process.pid,
      typedCommand: typed,
    });
    expect(run.typedCommand).toEqual(typed);
    expect(store.runs.get(run.id)!.typedCommand).toEqual(typed);
    await store.close();
  });
});

describe("a run's knobs", () => {
  /** The schema as it was before knobs were kept (migrations 1 to 15), with one run in it. */
  function fileBeforeKnobs(file: string): void {
    const raw = new Database(file);
    raw.pragma('journal_mode = WAL');
    raw.pragma(`application_id = ${APPLICATION_ID}`);
    for (const migration of migrations.filter((m) => m.version <= 15)) raw.exec(migration.sql);
    raw.pragma('user_version = 15');
    raw
      .prepare("INSERT INTO runs (status, started_at, command_json, cwd, config_json, env_json) VALUES ('succeeded', ?, ?, ?, ?, '{}')")
      .run(new Date(0).toISOString(), JSON.stringify(['python', 'train.py']), dir, JSON.stringify({ batch: '16' }));
    raw.close();
  }

  it('keeps what each knob did; a run stored before knobs existed reads with none', async () => {
    dir = makeTempDir();
    const file = path.join(dir, 'runs.db');
    fileBeforeKnobs(file);
    const store = new Store(file);
    expect(store.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const [old] = store.runs.list(10);
    expect(old!.config).toEqual({ batch: '16' });
    expect(old!.knobs).toBeNull();

    const requested = requestedKnobs({ workers: '4', autocast: 'off' });
    const run = store.runs.insert({
      workloadId: null,
      workloadName: null,
      command: ['python', 'train.py'],
      cwd: dir,
      config: { 'knob.workers': '4', 'knob.autocast': 'off' },
      env: {},
      startedAt: new Date(),
      enginePid: process.pid,
      knobs: requested,
    });
    expect(run.knobs).toEqual(requested);
    const reported = {
      ...requested,
      torch: '1.13.0',
      cuda: false,
      knobs: [
        {
          name: 'workers',
          value: '4',
          state: 'applied' as const,
          outcomes: [{ status: 'applied' as const, what: 'num_workers=4 (was 0)', reason: null, file: '/w/train.py', line: 52, via: null }],
        },
        { name: 'autocast', value: 'off', state: 'unused' as const, outcomes: [] },
      ],
    };
    store.runs.setKnobs(run.id, reported);
    expect(store.runs.get(run.id)!.knobs).toEqual(reported);
    await store.close();
  });
});

/** A run of `true` in the test's folder, for output to be written to. */
function insertRun(store: Store) {
  return store.runs.insert({
    workloadId: null,
    workloadName: null,
    command: ['true'],
    cwd: dir,
    config: {},
    env: {},
    startedAt: new Date(),
    enginePid: process.pid,
  });
}

describe('batched writes', () => {
  it('commits queued output on its own within the flush interval, off the engine thread', async () => {
    dir = makeTempDir();
    const file = path.join(dir, 'runs.db');
    const recording = Recording.open(file, systemClock);
    const { output } = recording;
    const run = insertRun(recording.store);
    // The writer thread starts in the background (seconds on a loaded machine, from source): it answers once it is up.
    await output.flush();
    output.append(run.id, 0, 1, Buffer.from('hello'));
    // A second connection sees nothing until the batch commits...
    const reader = new Database(file, { readonly: true });
    const count = () => reader.prepare('SELECT COUNT(*) FROM run_output').pluck().get();
    expect(count()).toBe(0);
    // ...and sees it without any explicit flush once the interval has passed (with room for a busy machine).
    await expect.poll(count, { timeout: COMMIT_INTERVAL_MS * 20, interval: 20 }).toBe(1);
    expect(reader.prepare('SELECT output_bytes FROM runs').pluck().get()).toBe(5);
    reader.close();
    await recording.close();
  });

  it('is idle only while no run records: a live run or an import keeps it busy until its end', async () => {
    dir = makeTempDir();
    const recording = Recording.open(path.join(dir, 'runs.db'), systemClock);
    const { store, output } = recording;
    const live = insertRun(store);
    const imported = insertRun(store);
    expect(output.idle()).toBe(true);
    output.startRun(live.id, { metricRegex: '' });
    output.startParsedRun(imported.id);
    await output.endRun(imported.id, 1);
    expect(output.idle()).toBe(false);
    await output.endRun(live.id, 1);
    expect(output.idle()).toBe(true);
    await recording.close();
  });

  it('refuses writes after close, having flushed what was queued', () => {
    dir = makeTempDir();
    const db = openDatabase(path.join(dir, 'runs.db'));
    db.exec('CREATE TABLE t (x)');
    const writer = new BatchWriter(db, 60_000);
    writer.enqueue(() => db.prepare('INSERT INTO t VALUES (1)').run());
    writer.close();
    expect(db.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(1);
    expect(() => writer.enqueue(() => undefined)).toThrow(/closed/);
    db.close();
  });
});
