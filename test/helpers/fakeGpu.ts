// A core wired to the fake nvidia-smi with its own GPU state file, and a synthetic run on it.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { EventPayload } from '../../electron/shared/api.js';
import { makeTempDir, REPO_ROOT, tempCore, type TempCore } from './tempCore.js';

export const FAKE_NVIDIA_SMI = path.join(REPO_ROOT, 'test/fixtures/fake-nvidia-smi');

const stateDirs: string[] = [];
afterEach(() => {
  for (const dir of stateDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A core whose nvidia-smi is the fake, optionally with a fault (see test/fixtures/fakeNvidiaSmi/README.md). */
export function coreWithFakeGpu(fault?: string, extraEnv: NodeJS.ProcessEnv = {}): TempCore {
  const stateDir = makeTempDir('tb-fake-gpu-');
  stateDirs.push(stateDir);
  return tempCore({
    env: {
      ...process.env,
      TUNING_BENCH_NVIDIA_SMI: FAKE_NVIDIA_SMI,
      FAKE_NVIDIA_SMI_STATE: path.join(stateDir, 'gpu-state.json'),
      ...(fault ? { FAKE_NVIDIA_SMI_FAULT: fault } : {}),
      ...extraEnv,
    },
  });
}

/** Runs the synthetic workload to its end; returns the run, the telemetry status messages, and the GPU samples. */
export async function runSynthetic(h: TempCore, steps = '150') {
  const statuses: string[] = [];
  h.core.subscribe((event, payload) => {
    if (event === 'runs.onTelemetryStatus') statuses.push((payload as EventPayload<'runs.onTelemetryStatus'>).message);
  });
  const workload = h.core.store.workloads.getByName('synthetic')!;
  const run = h.core.runner.start({ workload, values: { steps, batch: '8' } });
  const finished = await h.core.runner.waitForExit(run.id);
  return { finished, statuses, samples: h.core.store.telemetry.gpuSamples(run.id) };
}
