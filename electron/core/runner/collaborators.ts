// What the runner asks of the layers above it, declared here so it never imports them: gpu-control leases GPU settings, profile/ profiles steps.
import type { ProfileOptions } from '../../shared/profile.js';

/** GPU settings held for one run (gpu-control's GpuLease), released when the run ends. */
export interface RunGpuLease {
  /** What was set, stored with the run. */
  readonly record: Record<string, unknown>;
  attachRun(runId: number): void;
  /** Puts the prior settings back; idempotent. */
  release(): Promise<{ ok: boolean; errors: string[] }>;
}

/** The wall-clock span the profiler was on (epoch ms), to leave those steps out of the run's summary. */
export interface ProfiledSpan {
  startedAtMs: number;
  endedAtMs: number;
}

/** What RunManager asks of the profiler; the engine's side of `run --profile` (profile/'s StepProfiler). */
export interface RunProfiler {
  /** The variables that turn profiling on for this run (its folder made afresh). */
  environment(runId: number, options: ProfileOptions): Record<string, string>;
  /**
   * After the run: reads what the profiler wrote, stores the profile, and says which span to leave out of the summary;
   * `finish` completes the profile from that summary (the step numbers the script printed, the unprofiled step time).
   */
  collect(runId: number, run: { startedAtMs: number; sourceRunId: number | null; pathVariable: string | undefined }): ProfileCollection;
}

/** A profile read, and what completes it once the run's summary (made without the profiled steps) is known. */
export interface ProfileCollection {
  span: ProfiledSpan | null;
  finish(training: ProfiledRunFacts): void;
}

export interface ProfiledRunFacts {
  /** The run's steady median step time without the profiled steps, and the re-run source's when this run has none. */
  stepTimeMedianMs: number | null;
  sourceStepTimeMedianMs: number | null;
  /** Each step number the script printed, with when it arrived (ms since the run started). */
  stepMarks: Array<{ step: number; tMs: number }>;
}
