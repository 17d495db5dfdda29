// Stop means the whole tree: children that left the run's process group (setsid, os.setpgrp, `set -m`) are stopped too, and a survivor is reported.
import { isRunning, readPid } from '../helpers/processes.js';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../electron/shared/api.js';
import { tempCore, type TempCore } from '../helpers/tempCore.js';

let harness: TempCore | null = null;
const started: number[] = [];
afterEach(async () => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone, as it should be.
    }
  }
  await harness?.cleanup();
  harness = null;
});

describe('stopping a run stops every process it started', () => {
  it('reaches children that called setsid, os.setpgrp() or ran under set -m', async () => {
    harness = tempCore();
    const h = harness;
    const files = ['setsid', 'setpgrp', 'jobcontrol'].map((name) => path.join(h.dir, `${name}.pid`));
    const script = [
      `setsid sleep 300 & echo $! > ${files[0]}`,
      `/usr/bin/python3 -c 'import os, time; os.setpgrp(); time.sleep(300)' & echo $! > ${files[1]}`,
      `bash -c 'set -m; sleep 300 & echo $! > ${files[2]}; wait' &`,
      'sleep 300',
    ].join('\n');
    const run = h.core.startCommand({ adHoc: { command: ['sh', '-c', script], cwd: h.dir } });
    await expect.poll(() => files.every((file) => readPid(file) !== null), { timeout: 10_000 }).toBe(true);
    const pids = files.map((file) => readPid(file)!);
    started.push(...pids);
    expect(pids.every(isRunning)).toBe(true);
    // No wait for the periodic tree walk: stopping walks the tree itself before it signals (ProcessTree.signalAll).
    h.core.runner.stop(run.id);
    const ended = await h.core.runner.waitForExit(run.id);
    expect(ended.status).toBe('stopped');
    await expect.poll(() => pids.filter(isRunning), { timeout: 10_000 }).toEqual([]);
  }, 40_000);

  it('reports a process that left the group and outlived a normal end', async () => {
    harness = tempCore();
    const h = harness;
    const file = path.join(h.dir, 'daemon.pid');
    const statuses: string[] = [];
    h.core.subscribe((event, payload) => {
      if (event === 'runs.onTelemetryStatus') statuses.push((payload as EventPayload<'runs.onTelemetryStatus'>).message);
    });
    const run = h.core.startCommand({ adHoc: { command: ['sh', '-c', `setsid sleep 300 & echo $! > ${file}; sleep 1.2`], cwd: h.dir } });
    await expect.poll(() => readPid(file), { timeout: 10_000 }).not.toBeNull();
    const daemon = readPid(file)!;
    started.push(daemon);
    const ended = await h.core.runner.waitForExit(run.id);
    expect(ended.status).toBe('succeeded');
    expect(ended.survivorPids).toEqual([daemon]);
    expect(statuses.some((message) => message.includes(String(daemon)) && /still running/u.test(message))).toBe(true);
  }, 40_000);
});
