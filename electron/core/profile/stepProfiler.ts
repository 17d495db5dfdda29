// Step profiles of runs: asks the Python side for one (an env variable), then reads, diagnoses and stores it.
import fs from 'node:fs';
import path from 'node:path';
import type { ProfileOptions, RunProfile } from '../../shared/profile.js';
import type { RunProfiler } from '../runner/collaborators.js';
import type { ProfileStore } from '../store/profileStore.js';
import type { TelemetryStore } from '../store/telemetryStore.js';
import { storedGpuSamples, summarizeGpu, summarizeHost } from '../telemetry/summary.js';
import { resolveCommand } from '../system/resolveCommand.js';
import { diagnose } from './diagnosis.js';
import { PROFILE_ENV_VAR, profiledSpan, readPythonSummary, toRunProfile, type ProfiledSpan } from './profileFile.js';
import type { Clock } from '../clock.js';

export interface StepProfilerOptions {
  /** Where each run's folder (summary.json, trace.json) goes: `profiles/` beside the database. */
  dir: string;
  profiles: ProfileStore;
  telemetry: TelemetryStore;
  /** When each profile was made. */
  clock: Clock;
}

export class StepProfiler implements RunProfiler {
  /** The runs asked to be profiled, with the run they re-run. */
  private readonly sources = new Map<number, number | null>();

  constructor(private readonly options: StepProfilerOptions) {}

  runDir(runId: number): string {
    return path.join(this.options.dir, `run-${runId}`);
  }

  /** Remembers that the next profile of `runId` re-runs `sourceRunId`'s command. */
  markRerun(runId: number, sourceRunId: number): void {
    this.sources.set(runId, sourceRunId);
  }

  environment(runId: number, options: ProfileOptions): Record<string, string> {
    const dir = this.runDir(runId);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    return { [PROFILE_ENV_VAR]: JSON.stringify({ outDir: dir, warmupSteps: options.warmupSteps, steps: options.steps }) };
  }

  collect(runId: number, run: { startedAtMs: number; sourceRunId: number | null; pathVariable: string | undefined }): ProfiledSpan | null {
    try {
      return this.collectOrThrow(runId, run);
    } catch (error) {
      // The run's own record must still be completed; the profile says what went wrong.
      this.options.profiles.save({ ...emptyProfile(runId, run.sourceRunId, this.options.clock.now(), [`the profile could not be read: ${(error as Error).message}`]), diagnosis: [] });
      return null;
    }
  }

  private collectOrThrow(runId: number, run: { startedAtMs: number; sourceRunId: number | null; pathVariable: string | undefined }): ProfiledSpan | null {
    const dir = this.runDir(runId);
    const sourceRunId = this.sources.get(runId) ?? run.sourceRunId;
    this.sources.delete(runId);
    const read = readPythonSummary(dir);
    const createdAt = this.options.clock.now();
    let profile: Omit<RunProfile, 'diagnosis'>;
    let span: ProfiledSpan | null = null;
    if (read.ok) {
      span = profiledSpan(read.summary);
      profile = { ...toRunProfile(read.summary, { runId, sourceRunId, dir, createdAt }), span };
    } else {
      profile = emptyProfile(runId, sourceRunId, createdAt, [read.reason]);
    }
    if (profile.status !== 'ok') profile.notes.push(...otherTools(run.pathVariable));
    const telemetry = this.telemetryDuring(runId, span ? { fromMs: span.startedAtMs - run.startedAtMs, toMs: span.endedAtMs - run.startedAtMs } : null);
    this.options.profiles.save({ ...profile, diagnosis: diagnose(profile, telemetry) });
    return span;
  }

  /** GPU utilisation and CPU load while the window ran (the whole run when the window is unknown). */
  private telemetryDuring(runId: number, window: { fromMs: number; toMs: number } | null) {
    const inside = <T extends { tMs: number }>(samples: T[]) => {
      if (!window) return samples;
      const kept = samples.filter((s) => s.tMs >= window.fromMs && s.tMs <= window.toMs);
      return kept.length > 0 ? kept : samples;
    };
    const gpu = summarizeGpu(inside(storedGpuSamples(this.options.telemetry, runId)));
    const host = summarizeHost(inside(this.options.telemetry.hostSamples(runId)));
    return { gpuUtilMean: gpu?.utilMean ?? null, cpuMean: host?.cpuMean ?? null };
  }
}

function emptyProfile(runId: number, sourceRunId: number | null, createdAt: Date, notes: string[]): Omit<RunProfile, 'diagnosis'> {
  return {
    runId,
    sourceRunId,
    status: 'empty',
    tool: null,
    device: null,
    boundary: null,
    warmupSteps: 0,
    window: null,
    span: null,
    ops: [],
    phases: { stepMs: null, dataLoadingMs: null, forwardMs: null, backwardMs: null, optimizerMs: null, otherMs: null },
    steps: [],
    syncs: null,
    gpu: null,
    notes,
    tracePath: null,
    createdAt: createdAt.toISOString(),
  };
}

/** What profiles a command torch.profiler could not: said with how to get each tool. */
export function otherTools(pathVariable: string | undefined): string[] {
  const here = (tool: string) => resolveCommand(tool, process.cwd(), pathVariable) !== null;
  return [
    here('py-spy')
      ? 'py-spy is installed: it samples any Python program\'s stacks without changing it: `py-spy record --format speedscope -o profile.json -- COMMAND` (open in https://www.speedscope.app)'
      : 'for Python that is not PyTorch, py-spy samples the stacks of any Python program: install it with `pip install py-spy`, then `py-spy record --format speedscope -o profile.json -- COMMAND`',
    here('nsys')
      ? 'nsys (Nsight Systems) is on PATH: `nsys profile -o report COMMAND` traces CUDA kernels and host threads of any program'
      : 'for CUDA programs in any language, NVIDIA Nsight Systems (`nsys`, in the CUDA toolkit) traces kernels and host threads: `nsys profile -o report COMMAND`',
  ];
}
