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
    const stored = Buffer.concat(rows.map((row) => row.data)).toString('latin1');
    // Only whole lines: a kill can leave the last line cut short ("… wall 17"), which would read as a stamp.
    const text = stored.slice(0, stored.lastIndexOf('\n') + 1);
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
    const text = row.data.toString('latin1');
    const stamps = [...text.slice(0, text.lastIndexOf('\n') + 1).matchAll(STAMPED_LINE)];
    return stamps.length > 0 ? Number(stamps.at(-1)![2]) : null;
  } finally {
    db.close();
  }
}

/** What a scan of a run's stamped lines found, read chunk by chunk (a minute's flood is hundreds of MB). */
export interface StampedScan {
  lines: number;
  /** The first line number out of order (a hole or a repeat), or null when 1..lines are all there in order. */
  firstOutOfOrder: { expected: number; found: number } | null;
  newestStampMs: number | null;
  /** When the engine read the newest stored chunk (the run's start plus its t_ms). */
  newestReadMs: number | null;
  /**
   * How late the engine took output in: for each stored chunk, the time it was read (the run's start plus the
   * chunk's t_ms) less the stamp of its first line. The largest, and when (ms after the run's start) it was.
   */
  longestReadLagMs: number;
  longestReadLagAtMs: number;
}

/** Every stamped line of the run, checked in order and timed against when the engine read it, without holding the text. */
export function scanStampedLines(dbPath: string, runId: number): StampedScan {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const startedAtMs = Date.parse(db.prepare<[number], { started_at: string }>('SELECT started_at FROM runs WHERE id = ?').get(runId)!.started_at);
    const scan: StampedScan = { lines: 0, firstOutOfOrder: null, newestStampMs: null, newestReadMs: null, longestReadLagMs: 0, longestReadLagAtMs: 0 };
    let carry = '';
    const rows = db.prepare<[number], { t_ms: number; data: Buffer }>('SELECT t_ms, data FROM run_output WHERE run_id = ? ORDER BY seq').iterate(runId);
    for (const row of rows) {
      scan.newestReadMs = startedAtMs + row.t_ms;
      const text = carry + row.data.toString('latin1');
      const lastNewline = text.lastIndexOf('\n');
      carry = text.slice(lastNewline + 1);
      let firstInChunk = true;
      for (const match of text.slice(0, lastNewline + 1).matchAll(STAMPED_LINE)) {
        const line = Number(match[1]);
        const stampMs = Number(match[2]);
        scan.lines += 1;
        if (scan.firstOutOfOrder === null && line !== scan.lines) scan.firstOutOfOrder = { expected: scan.lines, found: line };
        scan.newestStampMs = stampMs;
        if (firstInChunk) {
          firstInChunk = false;
          const lag = startedAtMs + row.t_ms - stampMs;
          if (lag > scan.longestReadLagMs) {
            scan.longestReadLagMs = lag;
            scan.longestReadLagAtMs = row.t_ms;
          }
        }
      }
    }
    return scan;
  } finally {
    db.close();
  }
}
