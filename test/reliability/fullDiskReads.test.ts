// A disk with no room left: before, even `runs` failed ("disk I/O error": SQLite could not give the -shm its 32 KiB),
// so a person could not look at what was recorded until they freed space. Reading works now, saying why nothing can
// be recorded; a recording command is refused before it starts anything, naming the fix.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_ENTRY, runCli, TSX_LOADER } from '../helpers/cli.js';
import { makeTempDir, REPO_ROOT } from '../helpers/tempCore.js';

let dir: string;
let mounted: string | null = null;
afterEach(() => {
  if (mounted !== null) spawnSync('umount', [mounted]);
  mounted = null;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** No file may grow past 8 KiB (the shell's `ulimit -f`; SIGXFSZ ignored so a write fails as on a full disk instead of killing). */
function cliWithNoRoomToGrow(args: string[]) {
  const command = [process.execPath, '--import', TSX_LOADER, CLI_ENTRY, ...args].map((word) => `'${word.replace(/'/gu, `'\\''`)}'`).join(' ');
  return spawnSync('bash', ['-c', `trap '' XFSZ; ulimit -f 8; exec ${command}`], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
}

function recordOneRun(file: string): void {
  const recorded = runCli(['--db', file, 'run', '--', 'echo', 'hello-from-before']);
  expect(recorded.status, recorded.stderr).toBe(0);
}

describe('a database whose files cannot grow', () => {
  it('is read by runs, show, log and db check, and a recording command says what to do', () => {
    dir = makeTempDir('tb-no-room-');
    const file = path.join(dir, 'runs.db');
    recordOneRun(file);
    const before = fs.readFileSync(file);

    const runs = cliWithNoRoomToGrow(['--db', file, 'runs']);
    expect(runs.status, runs.stderr).toBe(0);
    expect(runs.stdout).toMatch(/^1\s+succeeded\b.*echo hello-from-before/mu);
    expect(runs.stderr).toMatch(/open for reading only: SQLite could not write it \(SQLITE_IOERR/u);

    for (const args of [
      ['show', '1'],
      ['log', '1'],
    ]) {
      const read = cliWithNoRoomToGrow(['--db', file, ...args]);
      expect(read.status, read.stderr).toBe(0);
      expect(read.stdout).toContain('hello-from-before');
    }
    const check = cliWithNoRoomToGrow(['--db', file, 'db', 'check']);
    expect(check.status, check.stderr).toBe(0);
    expect(check.stdout).toMatch(/: ok$/mu);

    const reparse = cliWithNoRoomToGrow(['--db', file, 'reparse', '1']);
    expect(reparse.status).toBe(1);
    expect(reparse.stderr).toMatch(/open for reading only .*reparse writes to it, so it was not started/u);

    const record = cliWithNoRoomToGrow(['--db', file, 'run', '--', 'echo', 'never']);
    expect(record.status).toBe(1);
    expect(record.stderr).toMatch(/cannot record in .*runs\.db.*Nothing was started.*ulimit -f.*only read.*still work/u);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    // With room again, it records as before: nothing was left half-done.
    const again = runCli(['--db', file, 'run', '--', 'echo', 'after']);
    expect(again.status, again.stderr).toBe(0);
  }, 120_000);

  // A real full disk needs a small tmpfs: root with the right to mount (CI's container; not every desk).
  const probe = spawnSync('bash', ['-c', 'd=$(mktemp -d) && mount -t tmpfs -o size=4m tmpfs "$d" && umount "$d"; r=$?; rmdir "$d"; exit $r']);
  it.runIf(probe.status === 0)(
    'on a full disk, says the disk is full and where to free space',
    () => {
      dir = makeTempDir('tb-full-disk-');
      expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dir]).status).toBe(0);
      mounted = dir;
      const file = path.join(dir, 'runs.db');
      recordOneRun(file);
      // Fill every byte left.
      spawnSync('bash', ['-c', `dd if=/dev/zero of='${dir}/fill' bs=4k 2>/dev/null; true`]);

      const runs = runCli(['--db', file, 'runs']);
      expect(runs.status, runs.stderr).toBe(0);
      expect(runs.stdout).toContain('hello-from-before');
      expect(runs.stderr).toMatch(new RegExp(`the disk holding it is full \\(\\d+ KiB free\\).*free space on the disk holding ${dir}`, 'u'));
      const record = runCli(['--db', file, 'run', '--', 'echo', 'never']);
      expect(record.status).toBe(1);
      expect(record.stderr).toMatch(/cannot record in .*the disk holding it is full.*Free space on the disk holding/u);
    },
    120_000,
  );
  if (probe.status !== 0) it.skip('on a full disk (skipped: mounting a tmpfs needs root with CAP_SYS_ADMIN)', () => undefined);
});
