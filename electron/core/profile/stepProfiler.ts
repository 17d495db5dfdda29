// Step profiles of runs: asks the Python side for one (an env variable), then reads, diagnoses and stores it.
import fs from 'node:fs';
import path from 'node:path';
import type { ProfileOptions, RunProfile } from '../../shared/profile.js';
import type { ProfileCollection, ProfiledRunFacts, RunProfiler } from '../runner/collaborators.js';
import type { ProfileStore } from '../store/profileStore.js';
import type { TelemetryStore } from '../store/telemetryStore.js';
import { storedGpuSamples, summarizeGpu, summarizeHost } from '../telemetry/summary.js';
import { resolveCommand } from '../system/resolveCommand.js';
import { diagnose } from './diagnosis.js';
import { PROFILE_ENV_VAR, profiledSpan, readPythonSummary, toRunProfile, type ProfiledSpan, type StepRecord } from './profileFile.js';
import { scriptStepOffset } from './numbering.js';
import { profilerOverhead } from './overhead.js';
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

  collect(runId: number, run: { startedAtMs: number; sourceRunId: number | null; pathVariable: string | undefined }): ProfileCollection {
    try {
      return this.collectOrThrow(runId, run);
    } catch (error) {
      // The run's own record must still be completed; the profile says what went wrong.
      this.options.profiles.save({
        ...emptyProfile(runId, run.sourceRunId, this.options.clock.now(), [`the profile could not be read: ${(error as Error).message}`]),
        diagnosis: [],
      });
      return { span: null, finish: () => undefined };
    }
  }

  private collectOrThrow(runId: number, run: { startedAtMs: number; sourceRunId: number | null; pathVariable: string | undefined }): ProfileCollection {
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
    if (profile.status !== 'ok') profile.notes.push(...otherTools(run.pathVariable, read.ok ? read.summary.interpreter : null));
    const telemetry = this.telemetryDuring(runId, span ? { fromMs: span.startedAtMs - run.startedAtMs, toMs: span.endedAtMs - run.startedAtMs } : null);
    const steps = read.ok ? read.summary.steps : [];
    const store = (complete: Omit<RunProfile, 'diagnosis'>) => this.options.profiles.save({ ...complete, diagnosis: diagnose(complete, telemetry) });
    // Stored now, so a failure below leaves a profile; completed once the run's summary is made.
    store({ ...profile, notes: [...profile.notes, ...leftOutNotes(profile)] });
    return {
      span,
      finish: (training) => {
        if (profile.status !== 'ok') return;
        store(completeProfile(profile, steps, span?.endedAtMs ?? null, training, run.startedAtMs, sourceRunId));
      },
    };
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

/** The profile with the script's step numbers, the profiler's measured overhead, and notes on what was left out. */
function completeProfile(
  profile: Omit<RunProfile, 'diagnosis'>,
  steps: readonly StepRecord[],
  windowEndedAtMs: number | null,
  training: ProfiledRunFacts,
  runStartedAtMs: number,
  sourceRunId: number | null,
): Omit<RunProfile, 'diagnosis'> {
  const offset = scriptStepOffset(
    steps.map((s) => ({ step: s.step, endedAtMs: s.endedAt === null ? null : s.endedAt * 1000 })),
    training.stepMarks.map((m) => ({ step: m.step, atMs: runStartedAtMs + m.tMs })),
    windowEndedAtMs,
  );
  const numbered: Omit<RunProfile, 'diagnosis'> =
    offset === null
      ? profile
      : {
          ...profile,
          numbering: { by: 'script', offset },
          window: profile.window && { fromStep: profile.window.fromStep + offset, toStep: profile.window.toStep + offset },
          steps: profile.steps.map((s) => ({ ...s, scriptStep: s.step + offset })),
        };
  const unprofiled =
    training.stepTimeMedianMs !== null
      ? { stepMs: training.stepTimeMedianMs, source: 'this run' }
      : training.sourceStepTimeMedianMs !== null && sourceRunId !== null
        ? { stepMs: training.sourceStepTimeMedianMs, source: `run ${sourceRunId}` }
        : null;
  const overhead = profilerOverhead(
    profile.phases,
    steps.filter((s) => s.kept),
    unprofiled,
  );
  const notes = [...profile.notes, ...leftOutNotes(numbered)];
  if (offset !== null && offset !== 0) {
    const first = profile.steps[0]!.step;
    notes.push(
      `steps are numbered as the script prints them: the script's step ${first + offset} ended at the ${ordinal(first)} step boundary since the run started ` +
        "(the trace's step slices count boundaries)",
    );
  }
  if (unprofiled === null) notes.push("the profiler's overhead is unknown: the run had no steady steps outside the profiled window to measure it against");
  return { ...numbered, overhead, notes };
}

/** Which steps were left out of the means and why, numbered as the profile shows them. */
function leftOutNotes(profile: Omit<RunProfile, 'diagnosis'>): string[] {
  const left = profile.steps.filter((s) => s.leftOut !== null);
  if (left.length === 0) return [];
  return [
    `left out of the means and operators: ${left.map((s) => `step ${s.scriptStep ?? s.step} (${s.leftOut})`).join('; ')}; ` +
      `the window ran ${profile.steps.length} steps to keep ${profile.steps.length - left.length}`,
  ];
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
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
    numbering: { by: 'boundaries', offset: 0 },
    keptSteps: 0,
    span: null,
    ops: [],
    opsComplete: false,
    phases: { stepMs: null, dataLoadingMs: null, inputMs: null, forwardMs: null, backwardMs: null, optimizerMs: null, otherMs: null },
    steps: [],
    syncs: null,
    input: null,
    overhead: null,
    interpreter: null,
    gpu: null,
    notes,
    tracePath: null,
    createdAt: createdAt.toISOString(),
  };
}

/**
 * What profiles a command torch.profiler could not, each said installed or not: looked up on PATH and beside the
 * interpreter that ran (where `pip install` puts a tool in a virtual environment).
 */
export function otherTools(pathVariable: string | undefined, interpreter: string | null): string[] {
  const search = [interpreter ? path.dirname(interpreter) : null, pathVariable].filter((p): p is string => Boolean(p)).join(path.delimiter);
  const where = (tool: string) => resolveCommand(tool, process.cwd(), search);
  const pySpy = where('py-spy');
  const nsys = where('nsys');
  return [
    pySpy
      ? `py-spy is installed (${pySpy}): it samples any Python program's stacks without changing it: \`py-spy record --format speedscope -o profile.json -- COMMAND\` (open in https://www.speedscope.app)`
      : 'py-spy is not installed (not on PATH): it samples the stacks of any Python program, torch or not: `pip install py-spy`, then `py-spy record --format speedscope -o profile.json -- COMMAND`',
    nsys
      ? `nsys (Nsight Systems) is installed (${nsys}): \`nsys profile -o report COMMAND\` traces CUDA kernels and host threads of any program`
      : 'nsys is not installed (not on PATH): NVIDIA Nsight Systems, in the CUDA toolkit, traces CUDA kernels and host threads of programs in any language: `nsys profile -o report COMMAND`',
  ];
}
