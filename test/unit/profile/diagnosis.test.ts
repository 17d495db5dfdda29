// The readings drawn from a profile: each rule fires on its own evidence and says what to try.
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../../electron/core/profile/diagnosis.js';
import { compareProfiles } from '../../../electron/core/profile/compareProfiles.js';
import type { RunProfile } from '../../../electron/shared/profile.js';

/** A profile of `steps` identical steps with these per-step phases (ms) and facts. */
function profile(phases: { data: number; forward: number; backward: number; optimizer: number; other: number }, more: Partial<RunProfile> = {}): RunProfile {
  const steps = 10;
  const stepMs = phases.data + phases.forward + phases.backward + phases.optimizer + phases.other;
  const step = { stepMs, dataLoadingMs: phases.data, forwardMs: phases.forward, backwardMs: phases.backward, optimizerMs: phases.optimizer, otherMs: phases.other };
  return {
    runId: 1,
    sourceRunId: null,
    status: 'ok',
    tool: 'torch.profiler',
    device: 'cpu',
    boundary: 'optimizer.step',
    warmupSteps: 10,
    window: { fromStep: 11, toStep: 20 },
    span: null,
    ops: [],
    phases: step,
    steps: Array.from({ length: steps }, (_, i) => ({ step: 11 + i, ...step })),
    syncs: { itemCalls: 10, streamSyncs: null, memcpyDtoH: null, perStep: 1 },
    gpu: null,
    diagnosis: [],
    notes: [],
    tracePath: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...more,
  };
}
const noTelemetry = { gpuUtilMean: null, cpuMean: null };

describe('diagnose', () => {
  it('calls a step input-bound with the share that waits for data', () => {
    const readings = diagnose(profile({ data: 26, forward: 30, backward: 34, optimizer: 5, other: 5 }), { gpuUtilMean: 41, cpuMean: 90 });
    expect(readings[0]).toBe(
      'input-bound: 26 % of each step waits for data (26.0 ms of 100.0 ms) while the GPU was 41 % busy; try DataLoader num_workers > 0 ' +
        '(with persistent_workers=True), pin_memory=True on a GPU, or cheaper per-sample work in the Dataset',
    );
  });

  it('calls a CUDA step sync-bound from its .item() calls per step', () => {
    const cuda = profile({ data: 1, forward: 30, backward: 30, optimizer: 5, other: 34 }, { device: 'cuda', syncs: { itemCalls: 12_600, streamSyncs: 0, memcpyDtoH: 12_600, perStep: 1260 } });
    expect(diagnose(cuda, noTelemetry)[0]).toMatch(/^sync-bound: 1,260 `\.item\(\)` calls per step/u);
  });

  it('calls a CUDA step launch-bound when tiny kernels leave the GPU idle', () => {
    const gpu = { kernels: 40_000, busyMs: 200, idleMsPerStep: 80, meanKernelUs: 5, peakMemoryMiB: 900 };
    const readings = diagnose(profile({ data: 1, forward: 40, backward: 50, optimizer: 5, other: 4 }, { device: 'cuda', gpu }), noTelemetry);
    expect(readings).toEqual([
      'launch-bound: many tiny kernels (4,000 per step, 5.0 µs on average) and the GPU idle 80 % of the step; try torch.compile or CUDA graphs, or a larger batch',
    ]);
  });

  it('says compute-bound when matrix multiplies dominate and nothing else stands out', () => {
    const ops = [{ name: 'aten::addmm', selfMs: 50, calls: 3, pct: 50, selfCpuMs: 50, selfCudaMs: null }];
    expect(diagnose(profile({ data: 1, forward: 40, backward: 50, optimizer: 5, other: 4 }, { ops }), noTelemetry)[0]).toMatch(/^compute-bound: matrix multiplies take 50 %/u);
  });

  it('says nothing for a profile with no window', () => {
    expect(diagnose({ ...profile({ data: 0, forward: 0, backward: 0, optimizer: 0, other: 0 }), status: 'empty', steps: [] }, noTelemetry)).toEqual([]);
  });
});

describe('compareProfiles', () => {
  it('names the phase that changed, in ms per step and share, and not the ones that did not', () => {
    const baseline = profile({ data: 40, forward: 10, backward: 20, optimizer: 2, other: 3 }, { runId: 1 });
    const faster = profile({ data: 2, forward: 10, backward: 20, optimizer: 2, other: 3 }, { runId: 2 });
    const comparison = compareProfiles(faster, baseline);
    expect(comparison.phases.find((p) => p.name === 'data loading')).toMatchObject({ ms: 2, baselineMs: 40, deltaMs: -38 });
    expect(comparison.changes).toEqual([
      'step: 75.0 → 37.0 ms per step (-38.0 ms, faster; 100 % → 100 % of the step)',
      'data loading: 40.0 → 2.0 ms per step (-38.0 ms, faster; 53 % → 5 % of the step)',
    ]);
  });
});
