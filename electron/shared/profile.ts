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
  /** Waiting in a torch DataLoader iterator. */
  dataLoadingMs: nullableNumber,
  /** The script's own batch code called by the training loop (see `input.definition`); null in profiles made before it was timed. */
  inputMs: nullableNumber.default(null),
  forwardMs: nullableNumber,
  backwardMs: nullableNumber,
  optimizerMs: nullableNumber,
  otherMs: nullableNumber,
});

export const profileStep = profilePhases.extend({
  /** Numbered by step boundaries (optimizer steps or tuning_bench.step() calls) from the run's start. */
  step: z.number().int(),
  /** The same step as the script numbers it (from the step numbers it printed), when known. */
  scriptStep: z.number().int().nullable().default(null),
  /** Left out of the means and operators (an evaluation, a checkpoint, an outlier): why; null for a kept step. */
  leftOut: z.string().nullable().default(null),
});

/** A line of the script where the host waited for the device (CUDA only). */
export const profileSyncSite = z.object({ site: z.string(), what: z.string(), callsPerStep: z.number() });

/**
 * Host-device synchronisations in the kept steps (CUDA only: on a CPU nothing waits for a device, and a profile
 * says nothing about syncs).
 */
export const profileSyncs = z.object({
  /** CUDA runtime calls in which the host waited for the device (stream, device, event syncs, synchronous copies). */
  deviceWaits: nullableNumber.default(null),
  /** Device-to-host copies. */
  memcpyDtoH: nullableNumber,
  /** Of the waits, those the script asked for by reading a CUDA tensor (.item(), float(t), .cpu()...), by line. */
  attributed: nullableNumber.default(null),
  sites: z.array(profileSyncSite).default([]),
  perStep: nullableNumber,
  /** Profiles made before issue 29 counted every aten::item, CPU tensors included. */
  itemCalls: nullableNumber.default(null),
  streamSyncs: nullableNumber.default(null),
});

/** How the profile defined input time, and the script's own batch code that took it. */
export const profileInput = z.object({
  definition: z.string(),
  /** Whether the script's own batch code was timed (not for compiled models, nor under a debugger). */
  traced: z.boolean(),
  functions: z.array(z.object({ function: z.string(), msPerStep: z.number(), callsPerStep: z.number() })),
  note: z.string().nullable(),
});

/**
 * What profiling cost: the profiled steps against the run's unprofiled steady steps, and the phases as they would
 * be without it, estimated from the operators each phase recorded (each recorded operator taken to cost the same).
 */
export const profileOverhead = z.object({
  profiledStepMs: z.number(),
  unprofiledStepMs: z.number(),
  /** Whose unprofiled steps: this run's, or the run it profiles again (when this one had none outside the window). */
  source: z.string(),
  addedMs: z.number(),
  /** addedMs as a percentage of the unprofiled step. */
  pct: z.number(),
  /** The added time per recorded host operator; null when the overhead is within noise or no operators were placed. */
  perOpUs: nullableNumber,
  /** The phases without the profiler's cost, scaled to the unprofiled step; null when not estimated. */
  estimatedPhases: profilePhases.nullable(),
  /** In words: what the profiler added, and how it skews the shares. */
  statement: z.string(),
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
   * `script`: `window` and each step's `scriptStep` are the script's own step numbers (script = boundary + offset);
   * `boundaries`: numbered by step boundaries from the run's start (the script printed no step numbers to match).
   */
  numbering: z.object({ by: z.enum(['script', 'boundaries']), offset: z.number().int() }).default({ by: 'boundaries', offset: 0 }),
  /** Steps the means and operators rest on (the window's, less those left out). */
  keptSteps: z.number().int().nonnegative().default(0),
  /**
   * When the profiler was on (epoch ms): the run's steps that overlap it are left out of its steady-state
   * summary, and anything that summarises the run again must leave them out too.
   */
  span: z.object({ startedAtMs: z.number(), endedAtMs: z.number() }).nullable().default(null),
  /** Operators by self time (per kept step, share of the step): every one the kept steps ran, or the top 25 in older profiles. */
  ops: z.array(profileOp),
  /** `ops` holds every operator (an operator missing from it did not run). */
  opsComplete: z.boolean().default(false),
  /** Means over the window's steps. */
  phases: profilePhases,
  steps: z.array(profileStep),
  syncs: profileSyncs.nullable(),
  input: profileInput.nullable().default(null),
  overhead: profileOverhead.nullable().default(null),
  /** The Python interpreter that ran the script. */
  interpreter: z.string().nullable().default(null),
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
export type ProfileStep = z.output<typeof profileStep>;
export type ProfileOverhead = z.output<typeof profileOverhead>;
export type ProfileDelta = z.output<typeof profileDelta>;
