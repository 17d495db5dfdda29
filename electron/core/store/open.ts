// Opens the SQLite file with the pragmas the engine relies on and brings its schema up to date.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { migrations, SCHEMA_VERSION } from './migrations/index.js';

export type Db = Database.Database;

const PAGE_SIZE_BYTES = 65536;
/** A waiting writer gives up after this long; the CLI and the desktop app may share one file. */
const BUSY_TIMEOUT_MS = 5000;

export class DatabaseTooNewError extends Error {
  constructor(file: string, found: number) {
    super(
      `${file} was written by a newer Tuning Bench (schema ${found}, this version knows ${SCHEMA_VERSION}). ` +
        'Update the app, or point it at another file with --db or TUNING_BENCH_DB.',
    );
    this.name = 'DatabaseTooNewError';
  }
}

export function openDatabase(file: string): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    // Only takes effect on a new file, before WAL: 64 KiB pages halve the cost of storing output
    // blobs (measured: 100 MB in ~250 ms instead of ~550 ms) and suit the sample tables too.
    db.pragma(`page_size = ${PAGE_SIZE_BYTES}`);
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // NORMAL is durable across an application crash in WAL mode; only a power cut can lose the last commits.
    db.pragma('synchronous = NORMAL');
    migrate(db, file);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function migrate(db: Db, file: string): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) throw new DatabaseTooNewError(file, current);
  if (current === SCHEMA_VERSION) return;
  db.transaction(() => {
    for (const migration of migrations.slice(current)) db.exec(migration.sql);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
