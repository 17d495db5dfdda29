// The bytes are the record: output is committed by time and size whatever the parser is doing, so a flood or a slow pattern never costs a run its record.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../electron/shared/api.js';
import { CLI_ENTRY, TSX_LOADER } from '../helpers/cli.js';
import { newestStoredStamp, STAMPED_LINES, storedStampedLines } from '../helpers/stampedOutput.js';
import { makeTempDir, tempCore, type TempCore } from '../helpers/tempCore.js';

let harness: TempCore | null = null;
let dir: string | null = null;
afterEach(async () => {
  await harness?.cleanup();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  harness = null;
  dir = null;
});

/** DESIGN: a crash loses at most a second of output. */
const CRASH_LOSS_BOUND_MS = 1000;

function runIdOf(dbPath: string): number | null {
  if (!fs.existsSync(dbPath)) return null;
  try {
    const db = new Database(dbPath, { readonly: true, fileMustExist: true });
    try {
      return db.prepare<[], { id: number }>('SELECT max(id) AS id FROM runs').get()?.id ?? null;
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

describe('a flood of output', () => {
  it('at 100,000 lines/s: kill -9 of the engine loses at most the last second, and what is kept has no hole', async () => {
    dir = makeTempDir();
    const db = path.join(dir, 'runs.db');
    const engine = spawn(
      process.execPath,
      ['--import', TSX_LOADER, CLI_ENTRY, '--db', db, '--json', 'run', '--', process.execPath, STAMPED_LINES, '100000', '0'],
      {
        cwd: dir,
        stdio: ['ignore', 'ignore', 'ignore'],
      },
    );
    try {
      await expect.poll(() => runIdOf(db), { timeout: 20_000 }).not.toBeNull();
      const runId = runIdOf(db)!;
      await expect.poll(() => newestStoredStamp(db, runId), { timeout: 20_000 }).not.toBeNull();
      // Seconds of flood: before, the writer thread parsed and never committed while lines kept coming.
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      const killedAt = Date.now();
      engine.kill('SIGKILL');
      await new Promise((resolve) => engine.once('exit', resolve));
      const lines = storedStampedLines(db, runId);
      expect(lines.length).toBeGreaterThan(1000);
      expect(lines.map((l) => l.line)).toEqual(Array.from({ length: lines.length }, (_, i) => i + 1));
      expect(killedAt - lines.at(-1)!.stampMs).toBeLessThan(CRASH_LOSS_BOUND_MS);
    } finally {
      engine.kill('SIGKILL');
    }
  }, 60_000);
});

describe("a workload's pattern that takes a quarter of a second a line", () => {
  it('delays only the metrics: output is committed within a second, and the pattern is switched off for the run with a notice', async () => {
    harness = tempCore();
    const h = harness;
    const notices: string[] = [];
    h.core.subscribe((event, payload) => {
      if (event === 'runs.onTelemetryStatus') notices.push((payload as EventPayload<'runs.onTelemetryStatus'>).message);
    });
    // Accepted by V8's linear engine, and still about 0.25 s on a 64 KiB line of a's (the counted repeat multiplies its states).
    const workload = await h.core.handlers['workloads.create'](
      {
        name: 'slow pattern',
        description: '',
        cwd: h.dir,
        mode: 'argv',
        // 200 stamped lines a second for 4 s, and a 64 KiB line of a's every 10th: 20 of them a second.
        command: [process.execPath, STAMPED_LINES, '200', '4', '10', String(64 * 1024 - 2)],
        tokensPerStep: '',
        metricRegex: '(?<x>(a|aa|aaa|aaaa){1,12})+$',
        steps: null,
        env: {},
        variables: [],
      },
      { subscriberId: null },
    );
    const run = h.core.runner.start({ workload, values: {} });
    let worstLagMs = 0;
    let newest: number | null = null;
    while (h.core.runner.isActive(run.id)) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      newest = newestStoredStamp(h.dbPath, run.id) ?? newest;
      if (newest !== null && h.core.runner.isActive(run.id)) worstLagMs = Math.max(worstLagMs, Date.now() - newest);
    }
    const ended = await h.core.runner.waitForExit(run.id);
    expect(ended.status).toBe('succeeded');
    expect(worstLagMs).toBeLessThan(CRASH_LOSS_BOUND_MS);
    const lines = storedStampedLines(h.dbPath, run.id);
    expect(lines.map((l) => l.line)).toEqual(Array.from({ length: 800 }, (_, i) => i + 1));
    expect(notices.some((message) => /pattern .*switched off/iu.test(message))).toBe(true);
    expect(ended.parsingNotes.join('\n')).toMatch(/switched off/u);
    // The run ended about when the program did: parsing did not hold its end for tens of seconds.
    expect(Date.parse(ended.endedAt!) - Date.parse(ended.startedAt)).toBeLessThan(15_000);
  }, 90_000);
});
