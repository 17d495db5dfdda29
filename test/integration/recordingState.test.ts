// What happened while a run was recorded has typed fields of its own, out of the environment fingerprint: kept by the
// store, moved out of fingerprints by the migration from a database made before, and out of a record pulled from MLflow.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { run as runSchema } from '../../electron/shared/api.js';
import { migrations, SCHEMA_VERSION } from '../../electron/core/store/migrations/index.js';
import { MlflowStore } from '../../electron/core/store/mlflowStore.js';
import { APPLICATION_ID } from '../../electron/core/store/open.js';
import { EMPTY_SUMMARY } from '../../electron/core/store/runStore.js';
import { MAX_RECORDING_NOTES } from '../../electron/core/store/recordingState.js';
import { Store } from '../../electron/core/store/store.js';
import { makeTempDir } from '../helpers/tempCore.js';

let dir: string;
let store: Store | null = null;
afterEach(() => {
  store?.close();
  store = null;
  fs.rmSync(dir, { recursive: true, force: true });
});

const ENVIRONMENT = { hostname: 'lab-box', cpuModel: 'AMD Ryzen 9 7950X', kernel: '6.8.0', torchVersion: '2.4.1' };
const NO_SMI = 'info: no nvidia-smi found (no NVIDIA GPU or driver): host telemetry only';

function newRun(target: Store): number {
  return target.runs.insert({
    workloadId: null,
    workloadName: null,
    command: ['python', 'train.py'],
    cwd: dir,
    config: {},
    env: {},
    startedAt: new Date('2026-11-28T10:00:00Z'),
    enginePid: process.pid,
  }).id;
}

describe("a run's recording notes", () => {
  it('keep the first notes of each kind in order, apart from the fingerprint, which says only what the run ran on', () => {
    dir = makeTempDir();
    store = new Store(path.join(dir, 'runs.db'));
    const id = newRun(store);
    store.runs.addFingerprint(id, ENVIRONMENT);
    for (let i = 0; i < MAX_RECORDING_NOTES + 5; i++) store.runs.addRecordingNote(id, 'telemetry', `warning: sample ${i} missing`);
    store.runs.addRecordingNote(id, 'parsing', 'the pattern loss=(\\S+) matched nothing in 10,000 lines: switched off');
    store.runs.setSurvivors(id, [4242, 4243]);
    const run = store.runs.get(id)!;
    expect(run.fingerprint).toEqual(ENVIRONMENT);
    expect(run.telemetryNotes).toHaveLength(MAX_RECORDING_NOTES);
    expect(run.telemetryNotes[0]).toBe('warning: sample 0 missing');
    expect(run.telemetryNotes.at(-1)).toBe(`warning: sample ${MAX_RECORDING_NOTES - 1} missing`);
    expect(run.parsingNotes).toEqual(['the pattern loss=(\\S+) matched nothing in 10,000 lines: switched off']);
    expect(run.survivorPids).toEqual([4242, 4243]);
    // A fact added to the environment later leaves the notes alone, and a note leaves the environment alone.
    store.runs.addFingerprint(id, { pythonVersion: '3.11.9' });
    expect(store.runs.get(id)!.telemetryNotes).toHaveLength(MAX_RECORDING_NOTES);
    expect(store.runs.get(id)!.fingerprint).toEqual({ ...ENVIRONMENT, pythonVersion: '3.11.9' });
  });

  it('of a run with none read as empty lists', () => {
    dir = makeTempDir();
    store = new Store(path.join(dir, 'runs.db'));
    const run = store.runs.get(newRun(store))!;
    expect([run.telemetryNotes, run.parsingNotes, run.survivorPids]).toEqual([[], [], []]);
  });
});

describe('a database made by the version that kept them in the fingerprint (schema 19)', () => {
  function fileAtSchema19(file: string): void {
    const raw = new Database(file);
    raw.pragma('journal_mode = WAL');
    raw.pragma(`application_id = ${APPLICATION_ID}`);
    for (const migration of migrations.filter((m) => m.version <= 19)) raw.exec(migration.sql);
    raw.pragma('user_version = 19');
    const insert = raw.prepare(
      `INSERT INTO runs (status, started_at, command_json, cwd, config_json, env_json, pid, pid_start_ticks, fingerprint_json)
       VALUES (?, ?, '["python","train.py"]', '/tmp', '{}', '{}', ?, ?, ?)`,
    );
    const startedAt = new Date('2026-11-20T10:00:00Z').toISOString();
    insert.run(
      'interrupted',
      startedAt,
      4100,
      123456,
      JSON.stringify({
        ...ENVIRONMENT,
        telemetryNotes: [NO_SMI],
        parsingNotes: ['switched off'],
        survivors: [4101],
        orphan: { pid: 4100, startTicks: 123456 },
      }),
    );
    insert.run('succeeded', startedAt, null, null, JSON.stringify(ENVIRONMENT));
    insert.run('failed', startedAt, null, null, null);
    raw.close();
  }

  it('moves the notes, survivors and orphan mark into their fields and leaves every other fingerprint as it was', () => {
    dir = makeTempDir();
    const file = path.join(dir, 'runs.db');
    fileAtSchema19(file);
    const notices: string[] = [];
    store = new Store(file, undefined, { onMigrating: (message) => notices.push(message) });
    // Quick whatever the file's size: no "this takes a minute" notice for it.
    expect(notices).toEqual([]);
    expect(store.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const [none, plain, marked] = store.runs.list(10);
    expect(marked!.fingerprint).toEqual(ENVIRONMENT);
    expect(marked!.telemetryNotes).toEqual([NO_SMI]);
    expect(marked!.parsingNotes).toEqual(['switched off']);
    expect(marked!.survivorPids).toEqual([4101]);
    expect(store.runs.markedOrphanCandidates().map((candidate) => [candidate.id, candidate.pid, candidate.pidStartTicks])).toEqual([
      [marked!.id, 4100, 123456],
    ]);
    expect(plain!.fingerprint).toEqual(ENVIRONMENT);
    expect(plain!.telemetryNotes).toEqual([]);
    expect(none!.fingerprint).toBeNull();
  });
});

describe('a run record pulled back from MLflow, published by an engine of schema 19', () => {
  it('comes in with its notes out of its fingerprint', () => {
    dir = makeTempDir();
    store = new Store(path.join(dir, 'runs.db'));
    const published = runSchema.parse({
      id: 7,
      workloadId: null,
      workloadName: 'charlm',
      status: 'succeeded',
      exitCode: 0,
      signal: null,
      exitClass: 'ok',
      exitReason: null,
      startedAt: '2026-11-20T10:00:00.000Z',
      endedAt: '2026-11-20T10:05:00.000Z',
      command: ['python', 'train.py'],
      cwd: '/home/them',
      config: {},
      env: {},
      pid: null,
      outputBytes: 0,
      summary: EMPTY_SUMMARY,
      gpuSettings: null,
      fingerprint: { ...ENVIRONMENT, telemetryNotes: [NO_SMI], survivors: [99] },
    });
    const mlflow = new MlflowStore(store.db, store.metrics);
    const id = mlflow.insertImportedRun(published, {
      source: 'mlflow',
      trackingUri: 'http://127.0.0.1:5000',
      experimentId: '1',
      mlflowRunId: 'a'.repeat(32),
      url: 'http://127.0.0.1:5000/#/experiments/1/runs/' + 'a'.repeat(32),
      databaseId: 'other-db',
      runId: 7,
      machine: { id: 'other', label: 'their-box' },
      importedAt: '2026-11-28T12:00:00.000Z',
    });
    const pulled = store.runs.get(id)!;
    expect(pulled.fingerprint).toEqual(ENVIRONMENT);
    expect(pulled.telemetryNotes).toEqual([NO_SMI]);
    expect(pulled.survivorPids).toEqual([99]);
  });
});
