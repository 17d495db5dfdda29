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

/** A file SQLite cannot read as a database, or whose pages are damaged. Nothing was changed in it. */
export class DatabaseCorruptError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(
      `${file} is damaged or is not a Tuning Bench database (${detail}). Nothing in it was changed. ` +
        'Keep it aside and start a fresh one with `tuning-bench db set-aside` (the desktop app offers the same), ' +
        'or point to another file with --db or TUNING_BENCH_DB.',
    );
    this.name = 'DatabaseCorruptError';
  }
}

const CORRUPT_CODES = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT']);

function isCorruption(error: unknown): error is Error & { code: string } {
  return error instanceof Error && CORRUPT_CODES.has((error as { code?: string }).code ?? '');
}

/** A damaged-file error from SQLite as DatabaseCorruptError (with what to do); anything else as it was. */
export function explainCorruption(error: unknown, file: string): unknown {
  return isCorruption(error) ? new DatabaseCorruptError(file, error.message) : error;
}

/**
 * Renames a damaged database (and its WAL and shared-memory files) to `<file>.damaged-<time>`, so a
 * fresh one can take its place and nothing recorded is thrown away. Returns the new name.
 */
export function setAsideDatabase(file: string, now = new Date()): string {
  const aside = `${file}.damaged-${now.toISOString().replace(/[:.]/gu, '-')}`;
  for (const suffix of ['', '-wal', '-shm']) {
    if (fs.existsSync(file + suffix)) fs.renameSync(file + suffix, aside + suffix);
  }
  return aside;
}

export function openDatabase(file: string): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  let db: Db;
  try {
    db = new Database(file);
  } catch (error) {
    if (isCorruption(error)) throw new DatabaseCorruptError(file, error.message);
    throw error;
  }
  try {
    // Before any pragma that writes (WAL mode rewrites the header): a newer file is left byte for byte as it was.
    const found = db.pragma('user_version', { simple: true }) as number;
    if (found > SCHEMA_VERSION) throw new DatabaseTooNewError(file, found);
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
    if (isCorruption(error)) throw new DatabaseCorruptError(file, error.message);
    throw error;
  }
}

/** SQLite's own full check: "ok", or the problems it found. */
export function integrityCheck(db: Db): string[] {
  return (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((row) => row.integrity_check);
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
