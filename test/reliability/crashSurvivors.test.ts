// After the engine dies mid-run: the next CLI command names the surviving training, the UI still lists it afterwards, and the run ended when it last wrote.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readProcTable } from '../../electron/core/system/procStat.js';
import { CLI_ENTRY, runCli, TSX_LOADER } from '../helpers/cli.js';
import { makeTempDir, tempCore, type TempCore } from '../helpers/tempCore.js';

let harness: TempCore | null = null;
let dir: string | null = null;
afterEach(async () => {
  await harness?.cleanup();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  harness = null;
  dir = null;
});

/** Ignores the hang-up, as `nohup python train.py` would, and writes a line until line 20, then stays quiet. */
const SURVIVOR = 'trap "" HUP; i=0; while [ $i -lt 20 ]; do i=$((i+1)); echo "tick $i"; sleep 0.05; done; sleep 300';

describe('processes that outlive a crashed engine', () => {
  it('are named by the next CLI command, still listed for the UI after it, and the run ends at its last output', async () => {
    dir = makeTempDir();
    const db = path.join(dir, 'runs.db');
    const engine = spawn(process.execPath, ['--import', TSX_LOADER, CLI_ENTRY, '--db', db, 'run', '--', 'sh', '-c', SURVIVOR], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let seen = '';
    /** When the last line reached us: the engine stored it earlier, so the run's end can be no later. */
    let lastLineSeenAt = Number.POSITIVE_INFINITY;
    engine.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('tick 20') && lastLineSeenAt === Number.POSITIVE_INFINITY) lastLineSeenAt = Date.now();
    });
    await expect.poll(() => seen.includes('tick 20'), { timeout: 20_000 }).toBe(true);
    // Quiet for a while before the crash (the scenario, not a wait for something): a run ended at the crash or at the
    // recovery would end at least this long after its last line.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    engine.kill('SIGKILL');
    await new Promise((resolve) => engine.once('exit', resolve));

    const cli = runCli(['--db', db, '--json', 'runs']);
    expect(cli.status, cli.stderr).toBe(0);
    expect(cli.stderr).toMatch(/run 1 was interrupted, but its processes are still running \(process(es)? \d+/u);
    const [listed] = JSON.parse(cli.stdout) as Array<{ status: string; startedAt: string; endedAt: string }>;
    expect(listed!.status).toBe('interrupted');
    const endedAt = Date.parse(listed!.endedAt);
    expect(endedAt).toBeLessThanOrEqual(lastLineSeenAt);
    expect(endedAt).toBeGreaterThanOrEqual(Date.parse(listed!.startedAt));

    // The UI opens the database after the CLI already recovered the run: the survivor is still offered to stop.
    harness = tempCore({ dbPath: db });
    const orphans = await harness.core.handlers['runs.orphans']({}, { subscriberId: null });
    expect(orphans).toHaveLength(1);
    // Every survivor, not a group's: once the shell that led the group is gone, the one listed first may lead none.
    const { pids } = orphans[0]!;
    await harness.core.handlers['runs.killOrphan']({ runId: 1 }, { subscriberId: null });
    const alive = () => readProcTable().filter((entry) => pids.includes(entry.pid) && !entry.zombie);
    await expect.poll(alive, { timeout: 10_000 }).toEqual([]);
    expect(await harness.core.handlers['runs.orphans']({}, { subscriberId: null })).toEqual([]);
  }, 60_000);
});
