// A Tuning Bench database says so (application_id); another program's SQLite file and a damaged one are refused and left byte for byte as they were.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { APPLICATION_ID } from '../../electron/core/store/open.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/tempCore.js';

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('which SQLite files Tuning Bench adopts', () => {
  it('marks its own databases with its application_id, including ones made before the mark existed', () => {
    dir = makeTempDir('tb-appid-');
    const file = path.join(dir, 'runs.db');
    // A command that records makes the database (one that only reads refuses a file that is not there: a typo).
    expect(runCli(['--db', file, 'run', '--', 'true']).status).toBe(0);
    const db = new Database(file, { readonly: true });
    expect(db.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    db.close();
    // An older Tuning Bench file (application_id 0, our tables): adopted and marked.
    const legacy = new Database(file);
    legacy.pragma('application_id = 0');
    legacy.close();
    expect(runCli(['--db', file, 'runs']).status).toBe(0);
    const again = new Database(file, { readonly: true });
    expect(again.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    again.close();
  });

  for (const [label, prepare] of [
    ['tables of its own', (db: Database.Database) => db.exec("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ada')")],
    ['an application_id of its own', (db: Database.Database) => db.pragma('application_id = 1234')],
  ] as const) {
    it(`refuses another program's SQLite file with ${label}, naming it, and changes no byte`, () => {
      dir = makeTempDir('tb-foreign-');
      const file = path.join(dir, 'contacts.sqlite');
      const db = new Database(file);
      prepare(db);
      db.close();
      const before = fs.readFileSync(file);
      for (const args of [['runs'], ['run', '--', 'true'], ['workloads']]) {
        const cli = runCli(['--db', file, ...args]);
        expect(cli.status).toBe(1);
        expect(cli.stderr).toContain(file);
        expect(cli.stderr).toMatch(/another program's SQLite database/u);
      }
      expect(fs.readFileSync(file).equals(before)).toBe(true);
      expect(fs.readdirSync(dir)).toEqual(['contacts.sqlite']);
    });
  }

  it('refuses a database whose runs table is damaged without writing to it, and db check still reports on it', () => {
    dir = makeTempDir('tb-damaged-runs-');
    const file = path.join(dir, 'runs.db');
    expect(runCli(['--db', file, 'run', '--', 'sh', '-c', 'echo hello']).status).toBe(0);
    const probe = new Database(file);
    probe.pragma('wal_checkpoint(TRUNCATE)');
    const { rootpage } = probe.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'runs'").get() as { rootpage: number };
    const pageSize = probe.pragma('page_size', { simple: true }) as number;
    probe.close();
    // The b-tree page header of the runs table (its first bytes) overwritten: any read of runs fails as corrupt.
    const handle = fs.openSync(file, 'r+');
    fs.writeSync(handle, Buffer.alloc(64, 0xa5), 0, 64, (rootpage - 1) * pageSize + (rootpage === 1 ? 100 : 0));
    fs.closeSync(handle);
    for (const suffix of ['-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
    const before = fs.readFileSync(file);

    const cli = runCli(['--db', file, 'runs']);
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain(file);
    expect(cli.stderr).toMatch(/damaged.*Nothing in it was changed/su);
    expect(fs.readFileSync(file).equals(before)).toBe(true);

    const check = runCli(['--db', file, 'db', 'check']);
    expect(check.status).toBe(1);
    expect(check.stdout).toContain(file);
    expect(check.stdout).not.toMatch(/: ok$/mu);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('names the file when it cannot be opened at all', () => {
    dir = makeTempDir('tb-unopenable-');
    const file = path.join(dir, 'a-directory.db');
    fs.mkdirSync(file);
    const cli = runCli(['--db', file, 'runs']);
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain(file);
  });
});

describe("another program's SQLite file in WAL mode", () => {
  it('is refused with nothing created beside it (no empty -wal or -shm left behind)', () => {
    dir = makeTempDir('tb-foreign-wal-');
    const file = path.join(dir, 'places.sqlite');
    const foreign = new Database(file);
    foreign.pragma('journal_mode = WAL');
    foreign.exec("CREATE TABLE places (url TEXT); INSERT INTO places VALUES ('https://example.org')");
    foreign.close();
    expect(fs.readdirSync(dir)).toEqual(['places.sqlite']);
    const before = fs.readFileSync(file);
    const cli = runCli(['--db', file, 'runs']);
    expect(cli.status).toBe(1);
    expect(cli.stderr).toMatch(/another program's SQLite database/u);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['places.sqlite']);
  });
});
