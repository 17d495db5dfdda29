// The engine SIGKILLed mid-run: the next start finds the run interrupted, its output kept, its survivor reported.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processGroupMembers } from '../../electron/core/runner/procStat.js';
import { FLUSH_INTERVAL_MS } from '../../electron/core/store/batchWriter.js';
import { CLI_ENTRY, TSX_LOADER } from '../helpers/cli.js';
import { makeTempDir, tempCore, type TempCore } from '../helpers/tempCore.js';

let harness: TempCore | null = null;
let dir: string | null = null;
afterEach(async () => {
  await harness?.cleanup();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  harness = null;
  dir = null;
});

/** A training that ignores the terminal's hang-up, as `nohup python train.py` would; it stamps each line. */
const SURVIVOR = 'trap "" HUP; echo started; i=0; while :; do i=$((i+1)); echo "tick $i $(date +%s%3N)"; sleep 0.05; done';

describe('an engine killed with SIGKILL mid-run', () => {
  it('leaves an interrupted run with its output up to about a second before the kill, and a stoppable orphan', async () => {
    dir = makeTempDir();
    const db = path.join(dir, 'runs.db');
    const engine = spawn(process.execPath, ['--import', TSX_LOADER, CLI_ENTRY, '--db', db, 'run', '--', 'sh', '-c', SURVIVOR], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let seen = '';
    engine.stdout.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    await expect.poll(() => /tick 30 /u.test(seen), { timeout: 20_000 }).toBe(true);
    const killedAt = Date.now();
    engine.kill('SIGKILL');
    await new Promise((resolve) => engine.once('exit', resolve));

    harness = tempCore({ dbPath: db });
    const core = harness.core;
    const [run] = core.store.runs.list(10);
    expect(run).toMatchObject({ status: 'interrupted' });
    expect(run!.exitReason).toMatch(/engine stopped/);
    const text = Buffer.concat(core.store.runs.outputAfter(run!.id, -1).map((c) => c.data)).toString();
    expect(text.startsWith('started\n')).toBe(true);
    expect(run!.outputBytes).toBe(Buffer.byteLength(text));
    const stamps = [...text.matchAll(/tick \d+ (\d+)/gu)].map((m) => Number(m[1]));
    // Stored at least up to one flush interval (plus scheduling slack) before the kill: DESIGN allows a second.
    expect(killedAt - stamps.at(-1)!).toBeLessThan(1000);
    expect(killedAt - stamps.at(-1)!).toBeLessThan(FLUSH_INTERVAL_MS * 4);

    const orphans = await core.handlers['runs.orphans']({}, { subscriberId: null });
    expect(orphans).toEqual([{ runId: run!.id, pid: run!.pid, command: ['sh', '-c', SURVIVOR] }]);
    expect(processGroupMembers(run!.pid!).length).toBeGreaterThan(0);
    await core.handlers['runs.killOrphan']({ runId: run!.id }, { subscriberId: null });
    await expect.poll(() => processGroupMembers(run!.pid!), { timeout: 10_000 }).toEqual([]);
    expect(await core.handlers['runs.orphans']({}, { subscriberId: null })).toEqual([]);
  }, 60_000);
});
