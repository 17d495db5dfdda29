// The contract of step profiles: what a profiled run's window shows, and two profiles compared.
import { z } from 'zod';

const nullableNumber = z.number().nullable();

/** Which tool made a profile. */
export const profileTool = z.enum(['torch.profiler', 'py-spy', 'nsys']);

/** Warm-up and window, in steps; the Python side's defaults (issue 17): 10 and 10. */
export const profileOptions = z.object({
  warmupSteps: z.number().int().min(1).max(100_000).default(10),
  steps: z.number().int().min(1).max(1_000).default(10),
});

/** One operator: self time and calls per profiled step, and its share of the step. */
export const profileOp = z.object({
  name: z.string(),
  selfMs: z.number(),
  calls: z.number(),
  pct: z.number(),
  /** Host (CPU) and device (CUDA) self time per step; the device's is null where CUDA was not traced. */
  selfCpuMs: nullableNumber,
  selfCudaMs: nullableNumber,
});

/** A step's wall time split by where the main thread was (null where the tool cannot tell). */
export const profilePhases = z.object({
  stepMs: nullableNumber,
  dataLoadingMs: nullableNumber,
  forwardMs: nullableNumber,
  backwardMs: nullableNumber,
  optimizerMs: nullableNumber,
  otherMs: nullableNumber,
});

export const profileStep = profilePhases.extend({ step: z.number().int() });

/** Host-device synchronisations in the window, and per step. */
export const profileSyncs = z.object({
  /** `.item()`, `float(t)`, `bool(t)`: each waits for the device (aten::item calls). */
  itemCalls: nullableNumber,
  /** cudaStreamSynchronize / cudaDeviceSynchronize / cudaEventSynchronize calls (CUDA only). */
  streamSyncs: nullableNumber,
  /** Device-to-host copies (CUDA only). */
  memcpyDtoH: nullableNumber,
  perStep: nullableNumber,
});

export const profileGpu = z.object({
  kernels: nullableNumber,
  busyMs: nullableNumber,
  /** Per step: the step's wall time with no kernel or copy running on the GPU. */
  idleMsPerStep: nullableNumber,
  meanKernelUs: nullableNumber,
  peakMemoryMiB: nullableNumber,
});

export const runProfile = z.object({
  runId: z.number().int().positive(),
  /** The run whose command was run again to make this profile (null: profiled in the run itself). */
  sourceRunId: z.number().int().positive().nullable(),
  /** `ok`: a window was profiled; `empty`: none was (the notes say why). */
  status: z.enum(['ok', 'empty']),
  tool: profileTool.nullable(),
  device: z.string().nullable(),
  /** What marked the steps: `optimizer.step` or `tuning_bench.step`. */
  boundary: z.string().nullable(),
  warmupSteps: z.number().int(),
  window: z.object({ fromStep: z.number().int(), toStep: z.number().int() }).nullable(),
  /**
   * When the profiler was on (epoch ms): the run's steps that overlap it are left out of its steady-state
   * summary, and anything that summarises the run again must leave them out too.
   */
  span: z.object({ startedAtMs: z.number(), endedAtMs: z.number() }).nullable().default(null),
  /** Top operators by self time (per step, share of the step). */
  ops: z.array(profileOp),
  /** Means over the window's steps. */
  phases: profilePhases,
  steps: z.array(profileStep),
  syncs: profileSyncs.nullable(),
  gpu: profileGpu.nullable(),
  /** Plain-language readings: what bounds the step and what to try. */
  diagnosis: z.array(z.string()),
  notes: z.array(z.string()),
  /** The Chrome trace (Perfetto, chrome://tracing), beside the database; null when none was written. */
  tracePath: z.string().nullable(),
  createdAt: z.string(),
});

export const profileDelta = z.object({
  name: z.string(),
  ms: nullableNumber,
  baselineMs: nullableNumber,
  deltaMs: nullableNumber,
  /** Share of the step, percent. */
  share: nullableNumber,
  baselineShare: nullableNumber,
});

export const profileComparison = z.object({
  runId: z.number().int().positive(),
  baselineRunId: z.number().int().positive(),
  phases: z.array(profileDelta),
  ops: z.array(profileDelta),
  /** The changes that matter, in words: "data loading: 21.0 → 2.1 ms per step (-18.9 ms)". */
  changes: z.array(z.string()),
});

export type ProfileOptions = z.output<typeof profileOptions>;
export type RunProfile = z.output<typeof runProfile>;
export type ProfileOp = z.output<typeof profileOp>;
export type ProfilePhases = z.output<typeof profilePhases>;
export type ProfileComparison = z.output<typeof profileComparison>;
export type ProfileDelta = z.output<typeof profileDelta>;
