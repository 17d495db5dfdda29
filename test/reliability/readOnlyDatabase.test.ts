// A database this user may read but not write (the file and its folder read-only): before, every command said
// only "attempt to write a readonly database" (or "unable to open database file"), `db check` included; then reads
// were refused too, though nothing in them needs writing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_ENTRY, runCli, TSX_LOADER } from '../helpers/cli.js';
import { makeTempDir, REPO_ROOT } from '../helpers/tempCore.js';

let dir: string;
afterEach(() => {
  fs.chmodSync(dir, 0o755);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The CLI as a user without write permission: root ignores file modes, so as root it runs as `nobody`. */
function cliWithoutWriteAccess(args: string[]) {
  const asNobody = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
  const [program, ...rest] = [...asNobody, process.execPath, '--import', TSX_LOADER, CLI_ENTRY, ...args];
  return spawnSync(program!, rest, { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
}

describe('a read-only database', () => {
  it('is checked by `db check`, read by `runs` and `log` (saying it is read-only), and a recording command says what to do', () => {
    dir = makeTempDir('tb-read-only-');
    const file = path.join(dir, 'runs.db');
    expect(runCli(['--db', file, 'run', '--', 'echo', 'hello']).status).toBe(0);
    fs.chmodSync(file, 0o444);
    fs.rmSync(path.join(dir, 'channels'), { recursive: true, force: true });
    fs.chmodSync(dir, 0o555);
    const before = fs.readFileSync(file);

    const check = cliWithoutWriteAccess(['--db', file, 'db', 'check']);
    expect(check.status, check.stderr).toBe(0);
    expect(check.stdout).toMatch(/: ok/u);

    // Reading works, and says the file is read-only and what to do to record again.
    const runs = cliWithoutWriteAccess(['--db', file, 'runs']);
    expect(runs.status, runs.stderr).toBe(0);
    expect(runs.stdout).toMatch(/^1\s+succeeded\b.*echo hello/mu);
    expect(runs.stderr).toContain(file);
    expect(runs.stderr).toMatch(/open for reading only: this user may not write it.*make the file and its folder writable/u);
    const log = cliWithoutWriteAccess(['--db', file, 'log', '1']);
    expect(log.status, log.stderr).toBe(0);
    expect(log.stdout).toContain('hello');

    // Recording is refused before anything starts, naming the file and the fix.
    const record = cliWithoutWriteAccess(['--db', file, 'run', '--', 'echo', 'again']);
    expect(record.status).toBe(1);
    expect(record.stderr).toContain(file);
    expect(record.stderr).toMatch(/cannot record in .*may not write it.*Nothing was started.*Make the file and its folder writable.*only read.*still work/u);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['runs.db']);
  }, 90_000);
});
