// One RunSession on its own, with a real pty and the fake nvidia-smi: whatever way it ends, it releases everything it holds.
import { isRunning, readPid } from '../helpers/processes.js';
import { ManualClock } from '../../electron/core/clock.js';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EventPayload, Run } from '../../electron/shared/api.js';
import { EventHub } from '../../electron/core/events.js';
import { PythonFingerprints } from '../../electron/core/telemetry/pythonFingerprint.js';
import type { RunGpuLease } from '../../electron/core/runner/collaborators.js';
import type { RunStore } from '../../electron/core/store/runStore.js';
import type { RunContext, RunnerEnvironment, StartRequest } from '../../electron/core/runner/runContext.js';
import { ownIdentity } from '../../electron/core/system/processIdentity.js';
import { RunFaults } from '../../electron/core/runner/runFaults.js';
import { HeldWrites } from '../../electron/core/runner/heldWrites.js';
import { prepareLaunch, type RunLaunch } from '../../electron/core/runner/runLaunch.js';
import { RunSession } from '../../electron/core/runner/runSession.js';
import { FAKE_NVIDIA_SMI } from '../helpers/fakeGpu.js';
import { REPO_ROOT, tempCore, type TempCore } from '../helpers/tempCore.js';

let harness: TempCore | null = null;
const strays: number[] = [];
const opened: RunSession[] = [];
afterEach(async () => {
  // A test that failed half-way leaves its run going: ended here, before its store closes.
  await Promise.all(opened.splice(0).map((session) => session.close()));
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone, as it should be.
    }
  }
  await harness?.cleanup();
  harness = null;
});

function fakeLease(): RunGpuLease & { release: ReturnType<typeof vi.fn> } {
  return {
    record: { scope: 'run', set: { powerLimitW: 300 } },
    attachRun: vi.fn(),
    release: vi.fn(async () => ({ ok: true, errors: [] })),
  };
}

/**
 * A session's context on a temp core's store, sampling every 50 ms of its clock (the fake nvidia-smi
 * every 50 ms of real time). The clock is moved by hand: the samplers' and the channel's timers fire
 * only when a test moves it, so silence after the end is shown by timers that are gone, not by a wait.
 */
function sessionContext(h: TempCore, clock: ManualClock = new ManualClock()) {
  const events = new EventHub();
  const statuses: string[] = [];
  events.subscribe((event, payload) => {
    if (event === 'runs.onTelemetryStatus') statuses.push((payload as EventPayload<'runs.onTelemetryStatus'>).message);
  });
  const store = h.core.store;
  const environment: RunnerEnvironment = {
    builtins: { resources: path.join(REPO_ROOT, 'resources'), node: process.execPath },
    nodeEnv: {},
    baseEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', FAKE_NVIDIA_SMI_STATE: path.join(h.dir, 'gpu-state.json') },
    channelDir: path.join(h.dir, 'channels'),
    pythonHelperDir: path.join(REPO_ROOT, 'resources/python'),
    flushStore: () => h.core.recording.flush(),
    summarizeStored: (runId, options, stepMarks) => h.core.tasks.summarizeRun(runId, options, stepMarks),
    nvidiaSmi: { binary: FAKE_NVIDIA_SMI, gpu: '0' },
    intervals: { gpuMs: 50, hostMs: 50 },
    pythonFingerprints: new PythonFingerprints(path.join(h.dir, 'python-fingerprints.json')),
    clock,
    engine: ownIdentity(),
  };
  fs.mkdirSync(environment.channelDir, { recursive: true });
  const context: RunContext = {
    runs: store.runs,
    processes: store.processes,
    metricStore: store.metrics,
    telemetry: store.telemetry,
    output: h.core.recording.output,
    events,
    environment,
    faults: new RunFaults(events),
    heldWrites: new HeldWrites(
      clock,
      () => undefined,
      () => undefined,
      (write) => store.runs.withoutWaiting(write),
    ),
  };
  return { context, statuses };
}

/** Starts `script` under sh in a session holding `lease`, its time limit far off. */
function startSession(context: RunContext, h: TempCore, script: string, lease: RunGpuLease) {
  const request: StartRequest = { workload: null, values: {}, gpuLease: lease, timeoutSeconds: 600 };
  const launch = prepareLaunch(context, request, { command: ['sh', '-c', script], cwd: h.dir, env: {}, config: {} }) as RunLaunch;
  expect(launch.file).toBeTruthy();
  const onDidEnd = vi.fn();
  const session = new RunSession(context, launch, request, onDidEnd);
  opened.push(session);
  const started = session.start();
  return { session, started, launch, onDidEnd };
}

/** Samples of both kinds stored for the run so far. */
async function sampleCounts(h: TempCore, runId: number) {
  await h.core.recording.flush();
  return { gpu: h.core.store.telemetry.gpuSamples(runId).length, host: h.core.store.telemetry.hostSamples(runId).length };
}

/** After the session has ended: none of its timers is left on the clock, and moving it a second adds no sample. */
async function expectSamplersStopped(h: TempCore, clock: ManualClock, runId: number) {
  expect(clock.pendingTimers).toBe(0);
  const before = await sampleCounts(h, runId);
  clock.advance(1000);
  expect(await sampleCounts(h, runId)).toEqual(before);
}

/** Host samples come when the clock moves: moved in steps until one is stored. */
async function untilHostSampled(h: TempCore, clock: ManualClock, runId: number) {
  await expect
    .poll(
      async () => {
        clock.advance(50);
        return (await sampleCounts(h, runId)).host;
      },
      { timeout: 10_000 },
    )
    .toBeGreaterThan(0);
}

describe('a RunSession', () => {
  it('close() kills the whole tree and releases its pty, samplers, GPU lease and files', async () => {
    harness = tempCore();
    const h = harness;
    const clock = new ManualClock();
    const { context } = sessionContext(h, clock);
    const pidFile = path.join(h.dir, 'setsid.pid');
    const lease = fakeLease();
    const { session, started, launch, onDidEnd } = startSession(
      context,
      h,
      `echo '{}' > "$TUNING_BENCH_LOAD_FILE"; setsid sleep 300 & echo $! > ${pidFile}; exec sleep 300`,
      lease,
    );
    expect(started.status).toBe('running');
    expect(lease.attachRun).toHaveBeenCalledWith(started.id);
    await expect.poll(() => readPid(pidFile), { timeout: 10_000 }).not.toBeNull();
    const escaped = readPid(pidFile)!;
    strays.push(escaped);
    // Both samplers are running before the close, so their silence after it means something.
    await untilHostSampled(h, clock, started.id);
    await expect.poll(async () => (await sampleCounts(h, started.id)).gpu, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(fs.existsSync(launch.loadFile.path)).toBe(true);

    const ended: Run = await session.close();

    expect(ended).toMatchObject({ id: started.id, status: 'stopped', exitReason: 'stopped because Tuning Bench was closing' });
    expect(await session.finished).toBe(ended);
    expect(isRunning(started.pid!)).toBe(false);
    await expect.poll(() => isRunning(escaped), { timeout: 5_000 }).toBe(false);
    expect(lease.release).toHaveBeenCalledTimes(1);
    expect(h.core.store.runs.get(started.id)!.gpuSettings).toMatchObject({ restored: true });
    expect(onDidEnd).toHaveBeenCalledTimes(1);
    expect(fs.existsSync(launch.loadFile.path)).toBe(false);
    expect(fs.existsSync(launch.channelFile)).toBe(false);
    await expectSamplersStopped(h, clock, started.id);
  }, 40_000);

  it('releases everything when recording its end fails, and says why', async () => {
    harness = tempCore();
    const h = harness;
    // The first reading dates the start; the one at the end fails, before the lease is put back on the normal path.
    let readings = 0;
    const clock = new (class extends ManualClock {
      override now(): Date {
        readings += 1;
        if (readings > 1) throw new Error('the clock is gone');
        return super.now();
      }
    })();
    const { context, statuses } = sessionContext(h, clock);
    const lease = fakeLease();
    const { session, started, launch, onDidEnd } = startSession(context, h, 'exec sleep 300', lease);
    await untilHostSampled(h, clock, started.id);

    const ended = await session.close();

    expect(ended.id).toBe(started.id);
    expect(statuses).toContain('recording the end of the run failed: the clock is gone');
    expect(isRunning(started.pid!)).toBe(false);
    // Released from the finally, in the background: close() of a registry awaits it through the faults' tracker.
    await context.faults.settled();
    expect(lease.release).toHaveBeenCalledTimes(1);
    expect(h.core.store.runs.get(started.id)!.gpuSettings).toMatchObject({ restored: true });
    expect(onDidEnd).toHaveBeenCalledTimes(1);
    expect(fs.existsSync(launch.loadFile.path)).toBe(false);
    await expectSamplersStopped(h, clock, started.id);
  }, 40_000);

  it('stops reading its metrics channel when its end fails before the last read', async () => {
    harness = tempCore();
    const h = harness;
    const clock = new ManualClock();
    const { context, statuses } = sessionContext(h, clock);
    // Storing the survivor it finds comes before the channel's last read on the normal path.
    const runs = Object.create(context.runs) as RunStore;
    runs.setSurvivors = () => {
      throw new Error('the database is gone');
    };
    const faulty: RunContext = { ...context, runs };
    const pidFile = path.join(h.dir, 'daemon.pid');
    const { session, started, launch } = startSession(faulty, h, `setsid sleep 300 & echo $! > ${pidFile}; sleep 1.2`, fakeLease());
    await expect.poll(() => readPid(pidFile), { timeout: 10_000 }).not.toBeNull();
    strays.push(readPid(pidFile)!);

    await session.finished;

    expect(statuses).toContain('recording the end of the run failed: the database is gone');
    fs.appendFileSync(launch.channelFile, '{"step": 1, "loss": 2.5}\n');
    // Several of the channel's polls (every 250 ms), had its timer been left.
    expect(clock.pendingTimers).toBe(0);
    clock.advance(1000);
    await h.core.recording.flush();
    expect(h.core.store.metrics.forRun(started.id)).toEqual([]);
  }, 40_000);
});
