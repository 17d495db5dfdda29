// Reads the stamped lines of test/fixtures/programs/stampedLines.mjs back from a database file, from another connection (as another process would).
import path from 'node:path';
import Database from 'better-sqlite3';
import { REPO_ROOT } from './tempCore.js';

export const STAMPED_LINES = path.join(REPO_ROOT, 'test/fixtures/programs/stampedLines.mjs');

/** `step N: loss X, 991 tok/s, wall STAMP`, as the program writes it (the pty may add a \r). */
const STAMPED_LINE = /^step (\d+): loss [-\d.]+, 991 tok\/s, wall (\d+)\r?$/gmu;

export interface StampedLine {
  line: number;
  stampMs: number;
}

/** Every stamped line stored for the run, in order (a read-only connection: the writer may still be going, or dead). */
export function storedStampedLines(dbPath: string, runId: number): StampedLine[] {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare<[number], { data: Buffer }>('SELECT data FROM run_output WHERE run_id = ? ORDER BY seq').all(runId);
    const text = Buffer.concat(rows.map((row) => row.data)).toString('latin1');
    return [...text.matchAll(STAMPED_LINE)].map((match) => ({ line: Number(match[1]), stampMs: Number(match[2]) }));
  } finally {
    db.close();
  }
}

/** The newest stamp stored so far, or null: how far behind the program the store is right now. */
export function newestStoredStamp(dbPath: string, runId: number): number | null {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare<[number], { data: Buffer }>('SELECT data FROM run_output WHERE run_id = ? ORDER BY seq DESC LIMIT 1').get(runId);
    if (!row) return null;
    const stamps = [...row.data.toString('latin1').matchAll(STAMPED_LINE)];
    return stamps.length > 0 ? Number(stamps.at(-1)![2]) : null;
  } finally {
    db.close();
  }
}
