// The readings drawn from a profile: each rule fires on its own evidence and says what to try.
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../../electron/core/profile/diagnosis.js';
import { compareProfiles } from '../../../electron/core/profile/compareProfiles.js';
import type { RunProfile } from '../../../electron/shared/profile.js';

/** A profile of `steps` identical steps with these per-step phases (ms) and facts. */
function profile(phases: { data: number; forward: number; backward: number; optimizer: number; other: number }, more: Partial<RunProfile> = {}): RunProfile {
  const steps = 10;
  const stepMs = phases.data + phases.forward + phases.backward + phases.optimizer + phases.other;
  const step = {
    stepMs,
    dataLoadingMs: phases.data,
    forwardMs: phases.forward,
    backwardMs: phases.backward,
    optimizerMs: phases.optimizer,
    otherMs: phases.other,
  };
  return {
    runId: 1,
    sourceRunId: null,
    status: 'ok',
    tool: 'torch.profiler',
    device: 'cpu',
    boundary: 'optimizer.step',
    warmupSteps: 10,
    window: { fromStep: 11, toStep: 20 },
    numbering: { by: 'boundaries', offset: 0 },
    keptSteps: steps,
    span: null,
    ops: [],
    opsComplete: true,
    phases: { ...step, inputMs: 0 },
    steps: Array.from({ length: steps }, (_, i) => ({ step: 11 + i, scriptStep: null, leftOut: null, inputMs: 0, ...step })),
    syncs: null,
    input: null,
    overhead: null,
    interpreter: null,
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
      'input-bound: 26 % of each step is input: 26 % waiting in the DataLoader, 26.0 ms of 100.0 ms while the GPU was 41 % busy; try DataLoader num_workers > 0 ' +
        '(with persistent_workers=True), pin_memory=True on a GPU, or cheaper per-sample work in the Dataset',
    );
  });

  it("counts the script's own batch code as input, naming it, and says what to try for it", () => {
    const base = profile({ data: 0, forward: 30, backward: 34, optimizer: 5, other: 5 });
    const withInput = {
      ...base,
      phases: { ...base.phases, inputMs: 26, stepMs: 100 },
      input: { definition: 'd', traced: true, functions: [{ function: 'get_batch (train.py:116)', msPerStep: 26, callsPerStep: 1 }], note: null },
    };
    expect(diagnose(withInput, noTelemetry)[0]).toBe(
      "input-bound: 26 % of each step is input: 26 % in the script's own batch code (get_batch (train.py:116): 26.0 ms per profiled step), 26.0 ms of 100.0 ms; " +
        'try prepare batches ahead of the step (a DataLoader with num_workers > 0 over a Dataset, or a background thread), and copy them with pin_memory and non_blocking=True on a GPU',
    );
  });

  it('calls a CUDA step sync-bound from the waits for the device, naming the lines that asked for them', () => {
    const syncs = {
      deviceWaits: 12_600,
      memcpyDtoH: 12_600,
      attributed: 12_500,
      sites: [{ site: 'train.py:88', what: '.item()', callsPerStep: 1250 }],
      perStep: 1260,
      itemCalls: null,
      streamSyncs: null,
    };
    const cuda = profile({ data: 1, forward: 30, backward: 30, optimizer: 5, other: 34 }, { device: 'cuda', syncs });
    expect(diagnose(cuda, noTelemetry)[0]).toBe(
      'sync-bound: the host waited for the GPU 1,260 times per step; most from train.py:88 (.item(), 1,250 per step); ' +
        'keep values on the device and read them every N steps, or accumulate them in a tensor',
    );
  });

  it('says nothing of syncs on a CPU, however many .item() calls ran', () => {
    const ops = [{ name: 'aten::item', selfMs: 0.5, calls: 600, pct: 0.5, selfCpuMs: 0.5, selfCudaMs: null }];
    const readings = diagnose(profile({ data: 1, forward: 40, backward: 50, optimizer: 5, other: 4 }, { ops }), noTelemetry);
    expect(readings.join('\n')).not.toMatch(/sync|item/u);
  });

  it('reads shares without the profiler when its overhead was estimated, and says so', () => {
    const base = profile({ data: 20, forward: 30, backward: 45, optimizer: 2, other: 3 });
    const estimatedPhases = { stepMs: 80, dataLoadingMs: 20, inputMs: 0, forwardMs: 24, backwardMs: 32, optimizerMs: 1.5, otherMs: 2.5 };
    const overhead = { profiledStepMs: 100, unprofiledStepMs: 80, source: 'this run', addedMs: 20, pct: 25, perOpUs: 5, estimatedPhases, statement: 's' };
    expect(diagnose({ ...base, overhead }, noTelemetry)[0]).toMatch(
      /^input-bound: 25 % of each step is input: 25 % waiting in the DataLoader, 20\.0 ms of 80\.0 ms \(shares estimated without the profiler's overhead\)/u,
    );
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
    expect(diagnose(profile({ data: 1, forward: 40, backward: 50, optimizer: 5, other: 4 }, { ops }), noTelemetry)[0]).toMatch(
      /^compute-bound: matrix multiplies take 50 %/u,
    );
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
