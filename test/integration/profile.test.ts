// Step profiles end to end: real PyTorch scripts (unmodified) run with profiling on, read back, compared.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Run } from '../../electron/shared/api.js';
import type { ProfileComparison, RunProfile } from '../../electron/shared/profile.js';
import { REPO_ROOT, tempCore, type TempCore } from '../helpers/tempCore.js';
import { assertTorch, skipTorchTests, TORCH_PYTHON } from '../helpers/torch.js';

const SLEEPY = path.join(REPO_ROOT, 'test/fixtures/profiling/sleepy_loader.py');

let harness: TempCore | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

/** The sleepy script: each batch sleeps `sleepMs` in the Dataset; a small MLP trains on it. */
async function profileSleepy(h: TempCore, sleepMs: number, steps = 24): Promise<{ run: Run; profile: RunProfile }> {
  const started = h.core.startCommand({
    adHoc: { command: [TORCH_PYTHON, SLEEPY, '--steps', String(steps), '--sleep-ms', String(sleepMs), '--width', '128'], cwd: h.dir },
    profile: { warmupSteps: 5, steps: 10 },
  });
  const run = await h.core.runner.waitForExit(started.id);
  expect(
    run.status,
    h.core.store.runs
      .outputAfter(run.id, -1)
      .map((c) => c.data.toString())
      .join(''),
  ).toBe('succeeded');
  const profile = h.core.handlers['profiles.get']({ runId: run.id }, { subscriberId: null }) as RunProfile | null;
  expect(profile).not.toBeNull();
  return { run, profile: profile! };
}

describe.skipIf(skipTorchTests('profile.test.ts'))('profiling an unmodified PyTorch script', () => {
  beforeAll(assertTorch);
  it('finds the matrix multiplies and the share of each step spent waiting for data', async () => {
    harness = tempCore();
    const sleepMs = 40;
    const { profile } = await profileSleepy(harness, sleepMs);
    expect(profile).toMatchObject({ status: 'ok', tool: 'torch.profiler', device: 'cpu', boundary: 'optimizer.step' });
    // Ten steady steps from step 6 (the script prints its steps as the profiler counts them); a step this busy machine
    // slowed to twice the median is left out, said so, and the window runs one step longer.
    const leftOut = profile.steps.filter((s) => s.leftOut !== null);
    for (const step of leftOut) expect(step.leftOut).toMatch(/^an outlier: /u);
    expect(profile).toMatchObject({ keptSteps: 10, numbering: { by: 'script', offset: 0 } });
    expect(profile.window).toEqual({ fromStep: 6, toStep: 15 + leftOut.length });
    expect(profile.steps).toHaveLength(10 + leftOut.length);

    const { stepMs, dataLoadingMs, forwardMs, backwardMs, optimizerMs, otherMs } = profile.phases;
    // The Dataset sleeps sleepMs per batch and makes one 64x128 tensor: waiting is the sleep and a little more.
    expect(dataLoadingMs!).toBeGreaterThanOrEqual(sleepMs);
    expect(dataLoadingMs!).toBeLessThan(sleepMs * 1.5);
    expect(forwardMs!).toBeGreaterThan(0);
    expect(backwardMs!).toBeGreaterThan(0);
    expect(optimizerMs!).toBeGreaterThan(0);
    // The phases account for the whole step.
    expect(dataLoadingMs! + forwardMs! + backwardMs! + optimizerMs! + otherMs!).toBeCloseTo(stepMs!, 1);

    const computeOps = profile.ops
      .filter((op) => op.name.startsWith('aten::'))
      .slice(0, 3)
      .map((op) => op.name);
    expect(computeOps.some((name) => /^aten::(addmm|mm|linear|matmul)$/u.test(name))).toBe(true);
    for (const op of profile.ops) expect(op.pct).toBeCloseTo((100 * op.selfMs) / stepMs!, 6);

    // Shares are read without the profiler's own cost where it measured one (the diagnosis says so).
    const shown = profile.overhead?.estimatedPhases ?? profile.phases;
    const share = Math.round((100 * shown.dataLoadingMs!) / shown.stepMs!);
    expect(profile.diagnosis[0]).toContain(`input-bound: ${share} % of each step is input: ${share} % waiting in the DataLoader`);
    expect(profile.diagnosis[0]).toContain('num_workers');

    // The trace is beside the database and opens as JSON with events.
    expect(profile.tracePath).toBe(path.join(harness.dir, 'profiles', `run-${profile.runId}`, 'trace.json'));
    // Chrome's trace format: {"traceEvents": [...]} from Kineto builds, a bare array from the legacy profiler.
    type TraceEvent = { name: string; ph: string };
    const trace = JSON.parse(fs.readFileSync(profile.tracePath!, 'utf8')) as { traceEvents: TraceEvent[] } | TraceEvent[];
    const traceEvents = Array.isArray(trace) ? trace : trace.traceEvents;
    expect(traceEvents.length).toBeGreaterThan(100);
    expect(traceEvents.some((event) => event.name === 'aten::addmm' && event.ph === 'X')).toBe(true);
  }, 60_000);

  it('compares two configs: the one with a faster input pipeline spends less of each step on data loading', async () => {
    harness = tempCore();
    const slow = await profileSleepy(harness, 40);
    const fast = await profileSleepy(harness, 2);
    const comparison = harness.core.handlers['profiles.compare'](
      { runId: fast.run.id, baselineRunId: slow.run.id },
      { subscriberId: null },
    ) as ProfileComparison;
    const data = comparison.phases.find((phase) => phase.name === 'data loading')!;
    expect(data.deltaMs!).toBeLessThan(-30);
    expect(data.share!).toBeLessThan(data.baselineShare!);
    expect(comparison.changes[0]).toMatch(/^step: .* faster/u);
    expect(comparison.changes.some((change) => change.startsWith('data loading:') && change.includes('faster'))).toBe(true);
    // Of the phases, data loading changed most (the model did the same work in both).
    const largest = comparison.phases.filter((p) => p.name !== 'step').sort((a, b) => Math.abs(b.deltaMs!) - Math.abs(a.deltaMs!))[0]!;
    expect(largest.name).toBe('data loading');
  }, 60_000);

  it('profiles the charlm workload on CPU and leaves the profiled steps out of its throughput', async () => {
    harness = tempCore();
    const workload = harness.core.store.workloads.getByName('charlm')!;
    const started = await harness.core.startRun({
      workload,
      values: { python: TORCH_PYTHON, batch: '4', seq_len: '32', steps: '30', device: 'cpu', threads: '1' },
      profile: { warmupSteps: 8, steps: 5 },
    });
    const run = await harness.core.runner.waitForExit(started.id);
    expect(run.status).toBe('succeeded');
    const profile = harness.core.store.profiles.forRun(run.id)!;
    const extended = profile.steps.length - 5;
    expect(profile).toMatchObject({ status: 'ok', tool: 'torch.profiler', keptSteps: 5, window: { fromStep: 9, toStep: 13 + extended } });
    expect(profile.ops.slice(0, 5).some((op) => /^aten::(mm|addmm|bmm|matmul|linear)$/u.test(op.name))).toBe(true);
    // AdamW on PyTorch 1.13 reads each parameter's step count with .item(), on a CPU tensor: an operator, not a sync.
    expect(profile.ops.find((op) => op.name === 'aten::item')!.calls).toBeGreaterThanOrEqual(2);
    expect(profile.syncs).toBeNull();
    // The profiler's start-up lands in step 8 and its trace export in the window's last: those and the window in between are left out.
    expect(run.summary.profiledSteps).toBeGreaterThanOrEqual(profile.steps.length);
    expect(run.summary.profiledSteps).toBeLessThanOrEqual(profile.steps.length + 2);
    expect(run.summary.throughput.median).not.toBeNull();
    // Kept with the profile, so whatever summarises the run again can leave the same steps out.
    expect(profile.span!.endedAtMs).toBeGreaterThan(profile.span!.startedAtMs);
    expect(profile.span!.startedAtMs).toBeGreaterThan(Date.parse(run.startedAt));
    expect(harness.core.store.profiles.ownSpan(run.id)).toEqual(profile.span);
  }, 60_000);

  it('profiles a run again on request: the same command, marked as a profile of the first run', async () => {
    harness = tempCore();
    const first = harness.core.startCommand({
      adHoc: { command: [TORCH_PYTHON, SLEEPY, '--steps', '14', '--sleep-ms', '1', '--width', '64'], cwd: harness.dir },
    });
    const plain = await harness.core.runner.waitForExit(first.id);
    expect(harness.core.store.profiles.forRun(plain.id)).toBeNull();
    const again = await harness.core.handlers['runs.profile']({ id: plain.id, warmupSteps: 2, steps: 3 }, { subscriberId: null });
    const rerun = await harness.core.runner.waitForExit(again.id);
    expect(rerun.command).toEqual(plain.command);
    expect(rerun).toMatchObject({ notes: `profiling re-run of run #${plain.id}`, tags: ['profile'] });
    const profile = harness.core.store.profiles.forRun(plain.id)!;
    expect(profile).toMatchObject({ runId: rerun.id, sourceRunId: plain.id, status: 'ok', window: { fromStep: 3, toStep: 5 } });
    // The first run was not profiled itself: nothing of its own to leave out of its summary.
    expect(harness.core.store.profiles.ownSpan(plain.id)).toBeNull();
  }, 60_000);
});

describe('profiling what torch.profiler cannot see', () => {
  it('says why there is no profile and which tools could make one', async () => {
    harness = tempCore();
    const started = harness.core.startCommand({
      adHoc: { command: [TORCH_PYTHON, '-c', 'print("no torch here")'], cwd: harness.dir },
      profile: { warmupSteps: 10, steps: 10 },
    });
    const run = await harness.core.runner.waitForExit(started.id);
    expect(run.status).toBe('succeeded');
    const profile = harness.core.store.profiles.forRun(run.id)!;
    expect(profile).toMatchObject({ status: 'empty', tool: null, window: null, ops: [], tracePath: null });
    expect(profile.notes[0]).toContain('never imported torch');
    expect(profile.notes.some((note) => note.includes('py-spy'))).toBe(true);
    expect(profile.notes.some((note) => note.includes('nsys'))).toBe(true);
  }, 30_000);

  it('says so when the command is not Python at all', async () => {
    harness = tempCore();
    const started = harness.core.startCommand({ adHoc: { command: ['/bin/echo', 'hello'], cwd: harness.dir }, profile: { warmupSteps: 10, steps: 10 } });
    await harness.core.runner.waitForExit(started.id);
    const profile = harness.core.store.profiles.forRun(started.id)!;
    expect(profile.status).toBe('empty');
    expect(profile.notes[0]).toContain("the command started no Python that read Tuning Bench's PYTHONPATH");
  }, 30_000);
});
