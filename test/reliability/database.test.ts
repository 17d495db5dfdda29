// A damaged database file, and one from a newer version: a clear message, nothing in the file
// changed, the damaged file kept aside on request and a fresh one made in its place.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../electron/core/createCore.js';
import { DatabaseCorruptError } from '../../electron/core/store/open.js';
import { runCli } from '../helpers/cli.js';
import { storeFinishedRun } from '../helpers/storedRuns.js';
import { makeTempDir, REPO_ROOT } from '../helpers/tempCore.js';

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function damagedFile(): { file: string; bytes: Buffer } {
  dir = makeTempDir('tb-damaged-');
  const file = path.join(dir, 'runs.db');
  const bytes = Buffer.from('these bytes were a database once, before a disk went bad\n'.repeat(400));
  fs.writeFileSync(file, bytes);
  return { file, bytes };
}

describe('a damaged database file', () => {
  it('is refused with a clear message and left exactly as it was', () => {
    const { file, bytes } = damagedFile();
    expect(() => createCore({ face: 'headless', dbPath: file, resourcesDir: path.join(REPO_ROOT, 'resources') })).toThrow(DatabaseCorruptError);
    const cli = runCli(['--db', file, 'runs']);
    expect(cli.status).toBe(1);
    expect(cli.stderr).toMatch(/is damaged or is not a Tuning Bench database \(file is not a database\)/u);
    expect(cli.stderr).toMatch(/tuning-bench db set-aside/u);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['runs.db']);
  });

  it('is kept aside on request, and a fresh one takes its place', () => {
    const { file, bytes } = damagedFile();
    const aside = runCli(['--db', file, 'db', 'set-aside']);
    expect(aside.status, aside.stderr).toBe(0);
    const kept = fs.readdirSync(dir).find((name) => name.startsWith('runs.db.damaged-'))!;
    expect(fs.readFileSync(path.join(dir, kept)).equals(bytes)).toBe(true);
    const fresh = runCli(['--db', file, 'db', 'check']);
    expect(fresh.status, fresh.stderr).toBe(0);
    expect(fresh.stdout).toMatch(/: ok$/mu);
    expect(runCli(['--db', file, '--json', 'runs']).stdout.trim()).toBe('[]');
  });

  it('a file whose pages are damaged fails the integrity check, clearly', () => {
    dir = makeTempDir('tb-damaged-');
    const file = path.join(dir, 'runs.db');
    expect(runCli(['--db', file, 'run', '--', 'sh', '-c', 'seq 1 20000']).status).toBe(0);
    // Overwrite pages past the header and the schema: SQLite opens it, but what it reads is garbage.
    const handle = fs.openSync(file, 'r+');
    const size = fs.fstatSync(handle).size;
    fs.writeSync(handle, Buffer.alloc(Math.min(200_000, size - 200_000), 0xa5), 0, undefined, 200_000);
    fs.closeSync(handle);
    const check = runCli(['--db', file, 'db', 'check']);
    expect(check.status).not.toBe(0);
    expect(check.stdout + check.stderr).toMatch(/damaged|malformed|corrupt|Page|btree/iu);
  });
});

describe('a database from a newer version', () => {
  it('is refused with what to do, and left untouched', () => {
    dir = makeTempDir('tb-newer-');
    const file = path.join(dir, 'runs.db');
    const db = new Database(file);
    db.pragma('user_version = 999');
    db.close();
    const before = fs.readFileSync(file);
    const cli = runCli(['--db', file, 'runs']);
    expect(cli.status).toBe(1);
    expect(cli.stderr).toMatch(/written by a newer Tuning Bench \(schema 999.*Update the app, or point it at another file/u);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });
});

/** Bytes that look random but are the same on every run of the test (so the same pages are hit). */
function seededNoise(bytes: number, seed: number): Buffer {
  const noise = Buffer.alloc(bytes);
  let state = seed >>> 0;
  for (let i = 0; i < bytes; i++) {
    // xorshift32: enough to look like a disk's garbage, and reproducible.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    noise[i] = state & 0xff;
  }
  return noise;
}

describe('a database damaged in the middle', () => {
  it('makes no command hang: each ends at once, naming the file and `db check`', async () => {
    dir = makeTempDir('tb-damaged-middle-');
    const file = path.join(dir, 'runs.db');
    const core = createCore({ face: 'headless', dbPath: file, resourcesDir: path.join(REPO_ROOT, 'resources') });
    const stepLines = (run: number) => Array.from({ length: 3000 }, (_, i) => `run ${run} step ${i} loss 0.5 ${'x'.repeat(60)}\n`).join('');
    for (let run = 1; run <= 6; run++) await storeFinishedRun(core, [Buffer.from(stepLines(run))], `stored-${run}`);
    await core.close();
    // As the probe did: 600 KB of garbage over the middle of a good file.
    const handle = fs.openSync(file, 'r+');
    const size = fs.fstatSync(handle).size;
    expect(size).toBeGreaterThan(1_500_000);
    fs.writeSync(handle, seededNoise(600_000, 26), 0, undefined, Math.floor(size / 2) - 300_000);
    fs.closeSync(handle);

    const failed: string[] = [];
    for (const command of [['runs'], ['show', '1'], ['log', '3'], ['workloads'], ['run', '--', 'true']]) {
      const cli = runCli(['--db', file, ...command], { timeoutMs: 30_000 });
      // A hang is killed by the timeout: no status then.
      expect(cli.signal, `${command.join(' ')} hung:\n${cli.stderr}`).toBeNull();
      if (cli.status === 0) continue;
      failed.push(command[0]!);
      expect(cli.stderr, command.join(' ')).toContain(file);
      expect(cli.stderr, command.join(' ')).toMatch(/tuning-bench db check/u);
    }
    // The damage was read: some command met it.
    expect(failed.length).toBeGreaterThan(0);
  }, 240_000);
});
