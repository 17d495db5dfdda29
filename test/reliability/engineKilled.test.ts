// The engine SIGKILLed mid-run with clocks locked: the database passes integrity_check, the run is
// interrupted with its output kept, its survivor reported, and the GPU's clocks are put back.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processGroupMembers } from '../../electron/core/system/procStat.js';
import { FLUSH_INTERVAL_MS } from '../../electron/core/store/batchWriter.js';
import { integrityCheck } from '../../electron/core/store/open.js';
import { FAKE_NVIDIA_SMI } from '../helpers/fakeGpu.js';
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
  it('leaves a sound database, an interrupted run with its output up to about a second before the kill, a stoppable orphan, and clocks to restore', async () => {
    dir = makeTempDir();
    const db = path.join(dir, 'runs.db');
    const gpuState = path.join(dir, 'gpu-state.json');
    const gpuEnv = { TUNING_BENCH_NVIDIA_SMI: FAKE_NVIDIA_SMI, FAKE_NVIDIA_SMI_STATE: gpuState, FAKE_NVIDIA_SMI_ROOT: '1' };
    const engine = spawn(process.execPath, ['--import', TSX_LOADER, CLI_ENTRY, '--db', db, 'run', '--lock-clocks', '2250', '--', 'sh', '-c', SURVIVOR], {
      cwd: dir,
      env: { ...process.env, ...gpuEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let seen = '';
    engine.stdout.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    await expect.poll(() => /tick 30 /u.test(seen), { timeout: 20_000 }).toBe(true);
    const killedAt = Date.now();
    engine.kill('SIGKILL');
    await new Promise((resolve) => engine.once('exit', resolve));

    // Clocks still locked: nobody was left to put them back.
    expect(JSON.parse(fs.readFileSync(gpuState, 'utf8')).gpus['0'].gpuClockLock).toEqual([2250, 2250]);
    harness = tempCore({ dbPath: db, env: { ...process.env, ...gpuEnv } });
    const core = harness.core;
    expect(integrityCheck(core.store.db)).toEqual(['ok']);
    // The engine's next start restores them (the CLI does it at once; the desktop asks first, via the same call).
    const restored = await core.handlers['gpu.restoreAbandoned']({}, { subscriberId: null });
    expect(restored.restored.map((e) => e.operation)).toEqual(['lockClocks']);
    expect(JSON.parse(fs.readFileSync(gpuState, 'utf8')).gpus['0'].gpuClockLock).toBeNull();
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
    expect(orphans).toMatchObject([{ runId: run!.id, command: ['sh', '-c', SURVIVOR] }]);
    // The shell that ignored the hang-up, in the run's process group (the pty's first process died with the terminal).
    const members = processGroupMembers(run!.pid!);
    expect(orphans[0]!.pids.some((pid) => members.includes(pid))).toBe(true);
    expect(run!.gpuSettings).toMatchObject({ setBy: 'run', clockLock: { minMHz: 2250, maxMHz: 2250 } });
    expect(processGroupMembers(run!.pid!).length).toBeGreaterThan(0);
    await core.handlers['runs.killOrphan']({ runId: run!.id }, { subscriberId: null });
    await expect.poll(() => processGroupMembers(run!.pid!), { timeout: 10_000 }).toEqual([]);
    expect(await core.handlers['runs.orphans']({}, { subscriberId: null })).toEqual([]);
  }, 60_000);
});
