// Host telemetry beside a run: samples while it runs, the run's processes measured, a summary at the end.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { cpuPercent, processTree, readCpuTimes, readGroupCounters, readMemory, readOwnChildren } from '../../electron/core/system/procfs.js';
import { readSelfTicks, ticksSince } from '../../electron/core/telemetry/hostSampler.js';
import { tempCore } from '../helpers/tempCore.js';

const harness = tempCore();
afterAll(() => harness.cleanup());

describe('/proc readings', () => {
  it('reads CPU times per core and memory that add up', () => {
    const stat = 'cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 60 0 20 370 50 0 0 0 0 0\ncpu1 40 0 30 430 0 0 0 0 0 0\nintr 1\n';
    const later = 'cpu  200 0 100 850 50 0 0 0 0 0\ncpu0 160 0 20 370 50 0 0 0 0 0\ncpu1 40 0 80 480 0 0 0 0 0 0\nintr 2\n';
    const percent = cpuPercent(readCpuTimes(stat), readCpuTimes(later));
    expect(percent.busy.map((v) => Math.round(v))).toEqual([75, 100, 50]);
    expect(percent.iowait).toBe(0);
    const memory = readMemory('MemTotal: 2048000 kB\nMemAvailable: 1024000 kB\nSwapTotal: 1024 kB\nSwapFree: 0 kB\n');
    expect(memory).toEqual({ usedMiB: 1000, totalMiB: 2000, swapUsedMiB: 1 });
  });
});

describe("the run's processes", () => {
  it("count the CPU of children that ended between two readings (a compiler run per kernel), not as other processes' work", async () => {
    // torch.compile runs a compiler per kernel from its workers: each lives less than a sampling interval. Here eight
    // children of about 0.15 s of CPU each, one after another, then the shell that ran them waits.
    const busyChild = "sh -c 'i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done'";
    const shell = spawn('/bin/sh', ['-c', `for n in 1 2 3 4 5 6 7 8; do ${busyChild}; done; sleep 5`], { stdio: 'ignore' });
    const before = readGroupCounters(shell.pid!);
    const cpuBefore = readCpuTimes();
    // Until the shell is in its sleep: its one child is then `sleep`, which uses no CPU.
    for (let waited = 0; waited < 20_000; waited += 50) {
      if (fs.existsSync(`/proc/${shell.pid}`) && processTree(shell.pid!).some((pid) => fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sleep')) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const after = readGroupCounters(shell.pid!);
    const cpuAfter = readCpuTimes();
    shell.kill('SIGKILL');
    const machineTicks = (cpuAfter.busy[0] ?? 0) - (cpuBefore.busy[0] ?? 0);
    // The children used most of the machine's busy time meanwhile (this test's own process a little).
    expect(machineTicks).toBeGreaterThan(50);
    expect(ticksSince(before, after)).toBeGreaterThan(0.6 * machineTicks);
  }, 30_000);
});

describe("the engine's own children", () => {
  it('are read live, a helper apart from a process that leads a session of its own (a run), and counted once waited for', async () => {
    // Then a second's sleep, so it is surely alive when read, however fast this machine runs the loop.
    const busy = 'i=0; while [ $i -lt 500000 ]; do i=$((i+1)); done; sleep 1';
    const selfBefore = readSelfTicks();
    // A helper as the Python fingerprint's probe is run (about half a second of CPU), and a process in a session of its own.
    const helper = spawn('/bin/sh', ['-c', busy], { stdio: 'ignore' });
    const session = spawn('/bin/sh', ['-c', 'sleep 5'], { stdio: 'ignore', detached: true });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const live = readOwnChildren();
    expect(live.children).toEqual(
      expect.arrayContaining([
        { pid: helper.pid, cpuTicks: expect.any(Number), helper: true },
        { pid: session.pid, cpuTicks: expect.any(Number), helper: false },
      ]),
    );
    const helperLive = live.children.find((child) => child.pid === helper.pid)!.cpuTicks;
    await new Promise((resolve) => helper.on('exit', resolve));
    session.kill('SIGKILL');
    await new Promise((resolve) => session.on('exit', resolve));
    const ended = readOwnChildren();
    expect(ended.children.map((child) => child.pid)).not.toContain(helper.pid);
    // Its whole count, more than it had when read live, is now in the waited-for count.
    expect(ended.waitedTicks - live.waitedTicks).toBeGreaterThan(Math.max(10, helperLive));
    expect(readSelfTicks() - selfBefore).toBeLessThan(ended.waitedTicks - live.waitedTicks);
  }, 30_000);
});

describe('sampling intervals', () => {
  it('are taken from the environment and refused when out of range', async () => {
    const fast = tempCore({ env: { ...process.env, TUNING_BENCH_HOST_INTERVAL_MS: '100' } });
    const run = fast.core.startCommand({ adHoc: { command: ['sleep', '1'], cwd: fast.dir } });
    await fast.core.runner.waitForExit(run.id);
    expect(fast.core.store.telemetry.hostSamples(run.id).length).toBeGreaterThanOrEqual(6);
    await fast.cleanup();
    expect(() => tempCore({ env: { ...process.env, TUNING_BENCH_GPU_INTERVAL_MS: '5' } })).toThrow(/from 50 to 60000, got "5"/);
  });
});

describe('a run with host telemetry', () => {
  it('samples a busy process group and summarises it', async () => {
    // Two busy processes in the run's group for about 1.5 s.
    const script = `${process.execPath} -e "const e=Date.now()+1500;while(Date.now()<e){}" & ${process.execPath} -e "const e=Date.now()+1500;while(Date.now()<e){}"; wait`;
    const run = harness.core.startCommand({ adHoc: { command: ['/bin/sh', '-c', script], cwd: harness.dir } });
    const finished = await harness.core.runner.waitForExit(run.id);
    const samples = harness.core.store.telemetry.hostSamples(run.id);
    expect(samples.length).toBeGreaterThanOrEqual(2);
    // Loose bounds: the machine may be shared; two spinning processes still show clearly above idle.
    expect(Math.max(...samples.map((s) => s.procCpu))).toBeGreaterThan(20);
    expect(Math.max(...samples.map((s) => s.busiestThreadCpu))).toBeGreaterThan(10);
    expect(samples[0]!.cpuPerCore.length).toBeGreaterThan(0);
    expect(finished.summary.host).toMatchObject({ cpuMean: expect.any(Number), rssPeakMiB: expect.any(Number) });
    expect(finished.summary.host!.rssPeakMiB).toBeGreaterThan(10);
  });
});

describe('a run beside a busy CPU', () => {
  it('says so: others used cores meanwhile, and the run is flagged host-busy', async () => {
    // Two CPU hogs outside the run's tree, for longer than the run lasts: each in a session of its own, as processes
    // Tuning Bench did not start are (a child of the engine in its own process group is its helper, its own work).
    const hog = `const e=Date.now()+6000;while(Date.now()<e){}`;
    const hogs = [0, 1].map(() => spawn(process.execPath, ['-e', hog], { stdio: 'ignore', detached: true }));
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const lines = Array.from({ length: 20 }, (_, i) => `sleep 0.1; echo "step ${i + 1}: loss 2.0, time 100.00ms"`).join('; ');
      const run = harness.core.startCommand({ adHoc: { command: ['/bin/sh', '-c', lines], cwd: harness.dir } });
      const finished = await harness.core.runner.waitForExit(run.id);
      // Two spinning hogs on this machine: well over the half core that makes a host busy, however busy it was already.
      expect(finished.summary.host!.otherCpuCoresMean).toBeGreaterThanOrEqual(0.5);
      expect(finished.summary.fairness!.ok).toBe(false);
      expect(finished.summary.fairness!.issues.map((i) => i.kind)).toContain('host-busy');
      expect(finished.summary.fairness!.issues.find((i) => i.kind === 'host-busy')!.message).toMatch(/other processes used \d+\.\d\d CPU cores/u);
    } finally {
      for (const child of hogs) child.kill('SIGKILL');
    }
  });
});
