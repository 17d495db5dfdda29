// Opens the SQLite file with the pragmas the engine relies on and brings its schema up to date.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { migrations, SCHEMA_VERSION } from './migrations/index.js';
import { systemClock, type Clock } from '../clock.js';

export type Db = Database.Database;

const PAGE_SIZE_BYTES = 65536;
/**
 * SQLite's `application_id` header field (offset 68) marking a file as ours: ASCII "TBen". `file(1)` and any
 * tool can tell a Tuning Bench database from another program's SQLite file by it.
 */
export const APPLICATION_ID = 0x5442656e;
/** The tables every Tuning Bench schema has had since the first migration: how a file from before APPLICATION_ID is recognised. */
const OUR_TABLES = ['runs', 'workloads', 'run_output'];
/**
 * The WAL is checkpointed back into the file once it holds this much, and cut back to it afterwards. SQLite counts
 * its default (1,000 pages) in pages: with 64 KiB pages that let the WAL reach 64 MiB, 30 times a slow run's output
 * (each 100 ms commit adds whole pages), so space freed on a full disk was soon eaten again. 4 MiB is 64 such
 * pages: a checkpoint every few seconds of a flood, well under a second's work each.
 */
const WAL_LIMIT_BYTES = 4 * 1024 * 1024;
/** A waiting writer gives up after this long; the CLI and the desktop app may share one file. */
export const BUSY_TIMEOUT_MS = 5000;

export class DatabaseTooNewError extends Error {
  constructor(file: string, found: number) {
    super(
      `${file} was written by a newer Tuning Bench (schema ${found}, this version knows ${SCHEMA_VERSION}). ` +
        'Update the app, or point it at another file with --db or TUNING_BENCH_DB.',
    );
    this.name = 'DatabaseTooNewError';
  }
}

/** Another program's SQLite file: refused before anything is written, so it stays byte for byte as it was. */
export class ForeignDatabaseError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(
      `${file} is another program's SQLite database (${detail}), not a Tuning Bench one; nothing in it was changed. ` +
        'Point Tuning Bench to its own file with --db or TUNING_BENCH_DB (a new name creates a fresh database).',
    );
    this.name = 'ForeignDatabaseError';
  }
}

/** A file SQLite cannot read as a database, or whose pages are damaged. */
export class DatabaseCorruptError extends Error {
  constructor(
    readonly file: string,
    detail: string,
    /** False when the damage was found only after the file was opened for writing (a page read late). */
    unchanged = true,
  ) {
    super(
      `${file} is damaged or is not a Tuning Bench database (${detail}). ` +
        (unchanged ? 'Nothing in it was changed. ' : 'The damage was found after it was opened for writing. ') +
        '`tuning-bench db check` lists what is damaged. Keep it aside and start a fresh one with `tuning-bench db set-aside` (the desktop app offers the same), ' +
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
export function explainCorruption(error: unknown, file: string, unchanged = false): unknown {
  return isCorruption(error) ? new DatabaseCorruptError(file, error.message, unchanged) : error;
}

/**
 * Renames a damaged database (and its WAL and shared-memory files) to `<file>.damaged-<time>`, so a
 * fresh one can take its place and nothing recorded is thrown away. Returns the new name.
 */
export function setAsideDatabase(file: string, clock: Clock = systemClock): string {
  const aside = `${file}.damaged-${clock.now().toISOString().replace(/[:.]/gu, '-')}`;
  for (const suffix of ['', '-wal', '-shm']) {
    if (fs.existsSync(file + suffix)) fs.renameSync(file + suffix, aside + suffix);
  }
  return aside;
}

/**
 * Every connection this process makes goes through here. SQLite reads `file:` URIs (a read-only look at a file on
 * a full disk needs `?immutable=1`) only if told before its first connection in the process, and better-sqlite3
 * reads that from SQLITE_USE_URI when it loads; the variable is put back at once so no training inherits it.
 * Paths are made absolute, so a file named `file:...` is never read as a URI.
 */
function connect(file: string, options?: Database.Options): Db {
  const before = process.env.SQLITE_USE_URI;
  process.env.SQLITE_USE_URI = '1';
  try {
    return new Database(file === ':memory:' || file.startsWith('file:/') ? file : path.resolve(file), options);
  } finally {
    if (before === undefined) delete process.env.SQLITE_USE_URI;
    else process.env.SQLITE_USE_URI = before;
  }
}

/** What a read-only look at an existing file found: whether it still needs our application_id. */
interface Inspection {
  needsApplicationId: boolean;
}

/**
 * Looks at an existing file without writing to it (read-only, no WAL switch, no migration): refuses another
 * program's database, a newer schema and damage in the pages every start reads, so a refused file is left
 * byte for byte as it was. A file that cannot be opened read-only here (a WAL file without its -shm in a
 * read-only folder) is looked at by the writable open instead.
 */
function inspectExisting(file: string): Inspection {
  // A read-only look at a WAL-mode file still makes its -wal and -shm: those it made are taken away again
  // if the file is refused, so another program's folder is left as it was.
  const sidecars = [`${file}-wal`, `${file}-shm`].filter((sidecar) => !fs.existsSync(sidecar));
  try {
    return inspectReadOnly(file);
  } catch (error) {
    for (const sidecar of sidecars) fs.rmSync(sidecar, { force: true });
    throw error;
  }
}

function inspectReadOnly(file: string): Inspection {
  let db: Db;
  try {
    db = connect(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    if (isCorruption(error)) throw new DatabaseCorruptError(file, error.message);
    return { needsApplicationId: true };
  }
  try {
    const applicationId = db.pragma('application_id', { simple: true }) as number;
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string }>).map(
      (row) => row.name,
    );
    if (applicationId !== APPLICATION_ID) {
      if (applicationId !== 0) throw new ForeignDatabaseError(file, `its application_id is 0x${(applicationId >>> 0).toString(16)}`);
      const ours = OUR_TABLES.every((name) => tables.includes(name));
      if (tables.length > 0 && !ours) {
        const shown = tables.slice(0, 5).join(', ') + (tables.length > 5 ? ', ...' : '');
        throw new ForeignDatabaseError(file, `its tables are ${shown}`);
      }
    }
    const found = db.pragma('user_version', { simple: true }) as number;
    if (found > SCHEMA_VERSION) throw new DatabaseTooNewError(file, found);
    // The pages every start reads (workloads are updated, running runs recovered): damage there is found now,
    // before any write, not after.
    if (tables.includes('workloads')) db.prepare('SELECT * FROM workloads').all();
    if (tables.includes('runs')) db.prepare('SELECT id, status, pid FROM runs').all();
    return { needsApplicationId: applicationId !== APPLICATION_ID };
  } catch (error) {
    if (isCorruption(error)) throw new DatabaseCorruptError(file, error.message);
    if (isReadOnlyRefusal(error)) throw new DatabaseReadOnlyError(file, error instanceof Error ? error.message : String(error));
    throw error;
  } finally {
    db.close();
  }
}

/** What `db check` found: SQLite's "ok" or its problems, and what the check could not cover (said apart). */
export interface DatabaseCheck {
  problems: string[];
  /** Set when part of the file could not be checked, e.g. its -wal on a full disk. */
  note: string | null;
}

/**
 * SQLite's full check of a file, opened read-only: works on a damaged file, and never writes to it. A file this
 * user cannot write (SQLite cannot make its -shm beside a WAL file then) is checked as a copy in the temp folder;
 * one on a full disk (no room for the -shm) is checked alone, as immutable.
 */
export function checkDatabaseFile(file: string): DatabaseCheck {
  // As every command does, a missing file is created (empty, with the current schema) and then checked.
  if (!fs.existsSync(file)) openDatabase(file).close();
  const found = checkInPlace(file);
  if (found.ok) return { problems: found.problems, note: null };
  if (isReadOnlyRefusal(found.error)) return { problems: checkCopy(file), note: null };
  if (!UNWRITABLE_CODES.test(String((found.error as { code?: unknown } | null)?.code))) return { problems: found.problems, note: null };
  const alone = checkInPlace(`file:${uriPath(path.resolve(file))}?immutable=1`);
  if (!alone.ok) return { problems: found.problems, note: null };
  const unread = walBytes(file);
  const why = unwritableReason(file, found.error) ?? 'it cannot be written';
  return { problems: alone.problems, note: unread > 0 ? `checked without its -wal (${Math.ceil(unread / 1024)} KiB could not be read: ${why})` : null };
}

function checkCopy(file: string): string[] {
  const copyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tuning-bench-check-'));
  try {
    const copy = path.join(copyDir, path.basename(file));
    fs.copyFileSync(file, copy);
    if (fs.existsSync(`${file}-wal`)) fs.copyFileSync(`${file}-wal`, `${copy}-wal`);
    return checkInPlace(copy).problems;
  } finally {
    fs.rmSync(copyDir, { recursive: true, force: true });
  }
}

function checkInPlace(file: string): { ok: true; problems: string[] } | { ok: false; problems: string[]; error: unknown } {
  let db: Db;
  try {
    db = connect(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    return { ok: false, problems: [`cannot be opened: ${error instanceof Error ? error.message : String(error)}`], error };
  }
  try {
    return { ok: true, problems: integrityCheck(db) };
  } catch (error) {
    return { ok: false, problems: [`the check itself failed: ${error instanceof Error ? error.message : String(error)}`], error };
  } finally {
    db.close();
  }
}

/** SQLite refusing a file (or its folder) this user may not write: SQLITE_READONLY_* or, opening one, SQLITE_CANTOPEN. */
function isReadOnlyRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN');
}

/** A file this user may read but not write, or in a folder where its -wal and -shm cannot be made. */
export class DatabaseReadOnlyError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(
      `${file} cannot be written by this user (${detail}): Tuning Bench writes to it and keeps its -wal and -shm files beside it. ` +
        'Give the file and its folder write permission, or copy it somewhere writable and use --db; `tuning-bench db check` reads it as it is.',
    );
    this.name = 'DatabaseReadOnlyError';
  }
}

/**
 * Told, in words, before migrations that move a file's data (not only its schema) run: on a large file they take a
 * while (migration 19 moved a 10 M-step run's blocks in 13 s), and the app says why it is waiting. Said from inside
 * the open, so nothing is probed or written beforehand.
 */
export type MigrationNotice = (message: string) => void;

export function openDatabase(file: string, onMigrating?: MigrationNotice): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const exists = file !== ':memory:' && fs.existsSync(file) && fs.statSync(file).size > 0;
  const inspection = exists ? inspectExisting(file) : { needsApplicationId: true };
  let db: Db;
  try {
    db = connect(file);
  } catch (error) {
    if (isCorruption(error)) throw new DatabaseCorruptError(file, error.message);
    if (isReadOnlyRefusal(error)) throw new DatabaseReadOnlyError(file, error instanceof Error ? error.message : String(error));
    // SQLite's own messages ("unable to open database file") do not say which file.
    throw new Error(`${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  try {
    // Before any pragma that writes (WAL mode rewrites the header): a newer file is left byte for byte as it was.
    const found = db.pragma('user_version', { simple: true }) as number;
    if (found > SCHEMA_VERSION) throw new DatabaseTooNewError(file, found);
    // Only takes effect on a new file, before WAL: 64 KiB pages halve the cost of storing output
    // blobs (measured: 100 MB in ~250 ms instead of ~550 ms) and suit the sample tables too.
    db.pragma(`page_size = ${PAGE_SIZE_BYTES}`);
    db.pragma('journal_mode = WAL');
    applyConnectionPragmas(db, BUSY_TIMEOUT_MS);
    migrate(db, file, onMigrating);
    if (inspection.needsApplicationId) db.pragma(`application_id = ${APPLICATION_ID}`);
    return db;
  } catch (error) {
    db.close();
    if (isCorruption(error)) throw new DatabaseCorruptError(file, error.message, false);
    if (isReadOnlyRefusal(error)) throw new DatabaseReadOnlyError(file, error instanceof Error ? error.message : String(error));
    throw error;
  }
}

/** Holds this connection's WAL to WAL_LIMIT_BYTES: each connection checkpoints after its own commits, so every writer sets it. */
/**
 * What every connection to the file sets, the engine's and each worker thread's: a wait for the write lock, foreign
 * keys (a run's delete takes its samples and blocks with it), and NORMAL sync (durable across an application crash
 * in WAL mode; only a power cut can lose the last commits), and the WAL's bound. WAL mode itself and the schema are
 * the engine's connection's to set (openDatabase), once.
 */
export function applyConnectionPragmas(db: Db, busyTimeoutMs: number): void {
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  boundWal(db);
}

/**
 * SQLite's page cache on the connections that stream (the output writer's, the parser's, the ingest task thread's):
 * 2 MiB, where better-sqlite3's default is 16 MiB a connection. Each streams appended rows in or blocks out once, so a
 * page is rarely wanted again, and the default filled with pages nobody reads: a 1 M-line dense import's peak RSS,
 * median of 5 alternated rounds, 345-389 MiB with it and 310-311 with this, at the same speed. The engine's own
 * connection keeps the default for the UI's reads.
 */
const STREAMING_CACHE_KIB = 2048;

export function boundStreamingCache(db: Db): void {
  db.pragma(`cache_size = ${-STREAMING_CACHE_KIB}`);
}

export function boundWal(db: Db): void {
  const pageBytes = db.pragma('page_size', { simple: true }) as number;
  db.pragma(`wal_autocheckpoint = ${Math.max(1, Math.floor(WAL_LIMIT_BYTES / pageBytes))}`);
  db.pragma(`journal_size_limit = ${WAL_LIMIT_BYTES}`);
}

/** SQLite's own full check: "ok", or the problems it found. */
export function integrityCheck(db: Db): string[] {
  return (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((row) => row.integrity_check);
}

function migrate(db: Db, file: string, onMigrating?: MigrationNotice): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) throw new DatabaseTooNewError(file, current);
  if (current === SCHEMA_VERSION) return;
  const slow = migrations.slice(current).filter((migration) => migration.slowConvert !== undefined);
  if (current > 0 && slow.length > 0) {
    const moved = [...new Set(slow.map((migration) => migration.slowConvert))].join('; ');
    onMigrating?.(
      `Updating ${file} for this version (${slow.map((migration) => migration.name).join(', ')}): ${moved}, which takes about a minute a few GB; nothing is lost if it is stopped.`,
    );
  }
  db.transaction(() => {
    for (const migration of migrations.slice(current)) {
      db.exec(migration.sql);
      migration.convert?.(db);
    }
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

/** SQLite failing to write the file, its -wal or its -shm: a full disk, a file-size limit, a failing device, no permission. */
const UNWRITABLE_CODES = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN)/u;
/** Below this much free space the disk counts as full: SQLite's -shm alone needs 32 KiB, a WAL page 64 KiB. */
const FULL_DISK_BYTES = 1024 * 1024;

/**
 * Why `error` (from opening `file` to write) still leaves the file readable, in words for the person; null when it
 * is not a refusal to write (damage, another program's file, a newer schema).
 */
export function unwritableReason(file: string, error: unknown): string | null {
  if (error instanceof DatabaseReadOnlyError) return 'this user may not write it or its folder';
  const code = (error as { code?: unknown } | null)?.code;
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  const sqliteCode = typeof code === 'string' ? code : typeof cause === 'string' ? cause : '';
  if (!UNWRITABLE_CODES.test(sqliteCode) && (error as { code?: unknown } | null)?.code !== 'ENOSPC') return null;
  const free = freeBytes(path.dirname(path.resolve(file)));
  if (free !== null && free < FULL_DISK_BYTES) return `the disk holding it is full (${Math.floor(free / 1024)} KiB free)`;
  return `SQLite could not write it (${sqliteCode || 'ENOSPC'}: ${error instanceof Error ? error.message : String(error)})`;
}

function freeBytes(folder: string): number | null {
  try {
    const stats = fs.statfsSync(folder);
    return stats.bavail * stats.bsize;
  } catch {
    return null;
  }
}

/** A database that could be opened for reading only, and why: what is shown may lack the last changes still in its -wal. */
export interface ReadOnlyDatabase {
  db: Db;
  /** Bytes of -wal the reading connection could not take in (0 when it read them, or there are none). */
  unreadWalBytes: number;
}

/**
 * Opens an existing Tuning Bench file for reading without writing anything beside it: SQLite's read-only open
 * first (it reads the -wal where the -shm can be used), else the file alone as immutable (a full disk cannot give
 * the -shm its 32 KiB). The schema must be current: bringing it up to date would need writing.
 */
export function openDatabaseReadOnly(file: string): ReadOnlyDatabase {
  const attempts: Array<() => ReadOnlyDatabase> = [
    () => ({ db: connect(file, { readonly: true, fileMustExist: true }), unreadWalBytes: 0 }),
    () => ({ db: connect(`file:${uriPath(path.resolve(file))}?immutable=1`, { readonly: true, fileMustExist: true }), unreadWalBytes: walBytes(file) }),
  ];
  let lastError: unknown = null;
  for (const attempt of attempts) {
    let opened: ReadOnlyDatabase;
    try {
      opened = attempt();
    } catch (error) {
      lastError = error;
      continue;
    }
    try {
      const found = opened.db.pragma('user_version', { simple: true }) as number;
      const applicationId = opened.db.pragma('application_id', { simple: true }) as number;
      if (found > SCHEMA_VERSION) throw new DatabaseTooNewError(file, found);
      if (applicationId !== APPLICATION_ID && applicationId !== 0)
        throw new ForeignDatabaseError(file, `its application_id is 0x${(applicationId >>> 0).toString(16)}`);
      if (found < SCHEMA_VERSION) {
        throw new Error(`${file} has an older schema (${found}; this version reads ${SCHEMA_VERSION}) and bringing it up to date needs writing to it`);
      }
      opened.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      return opened;
    } catch (error) {
      opened.db.close();
      if (isCorruption(error)) throw new DatabaseCorruptError(file, error.message);
      if (error instanceof DatabaseTooNewError || error instanceof ForeignDatabaseError || !UNWRITABLE_CODES.test(String((error as { code?: unknown }).code)))
        throw error;
      lastError = error;
    }
  }
  throw lastError instanceof Error ? lastError : new Error(`${file}: ${String(lastError)}`);
}

function walBytes(file: string): number {
  try {
    return fs.statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}

/** A path as a `file:` URI's path: the characters a URI gives meaning to are escaped. */
function uriPath(absolute: string): string {
  return absolute.replace(/[%?#]/gu, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}
