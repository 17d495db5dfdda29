// Reads what the Python profiler (resources/python/tuning_bench_profiler/) wrote, into a run's profile.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { RunProfile } from '../../shared/profile.js';
import type { ProfiledSpan } from '../runner/collaborators.js';

/** The names the Python side writes (window.py SUMMARY_FILE, TRACE_FILE). */
export const SUMMARY_FILE = 'summary.json';
export const TRACE_FILE = 'trace.json';
/** The variable sitecustomize.py looks for. */
export const PROFILE_ENV_VAR = 'TUNING_BENCH_PROFILE';

const num = z
  .number()
  .nullable()
  .optional()
  .transform((v) => v ?? null);
const phaseKinds = ['data', 'input', 'forward', 'backward', 'optimizer', 'other'] as const;
export type PhaseKind = (typeof phaseKinds)[number];

const stepRecord = z.object({
  step: z.number().int(),
  /** Wall-clock time the step ended (epoch seconds): what matches it to the step number the script printed. */
  endedAt: num,
  stepMs: z.number(),
  dataLoadingMs: z.number(),
  inputMs: z.number().default(0),
  forwardMs: z.number(),
  backwardMs: z.number(),
  optimizerMs: z.number(),
  otherMs: z.number(),
  noGradForwardMs: z.number().default(0),
  saveMs: z.number().default(0),
  kept: z.boolean().default(true),
  leftOut: z.string().nullable().default(null),
  /** Host operators recorded in each phase of the step (where the profiler's own cost falls). */
  opCounts: z.record(z.enum(phaseKinds), z.number()).nullable().default(null),
});
export type StepRecord = z.output<typeof stepRecord>;

/** summary.json, version 2 (1 is read too); lenient where a field may be missing after a failure. */
export const pythonSummary = z.object({
  version: z.union([z.literal(1), z.literal(2)]),
  tool: z.string().nullable(),
  device: z
    .string()
    .nullable()
    .optional()
    .transform((v) => v ?? null),
  boundary: z
    .string()
    .nullable()
    .optional()
    .transform((v) => v ?? null),
  interpreter: z.string().nullable().default(null),
  torchImport: z.string().nullable().default(null),
  warmupSteps: z.number().int(),
  window: z.object({ fromStep: num, toStep: num, startedAt: num, endedAt: num }),
  steadyWindow: z.boolean().default(true),
  steps: z.array(stepRecord).default([]),
  ops: z.array(z.object({ name: z.string(), calls: z.number(), selfCpuMs: z.number(), selfCudaMs: num })).default([]),
  syncs: z
    .object({
      deviceWaits: num,
      memcpyDtoH: num,
      attributed: num,
      sites: z.array(z.object({ site: z.string(), what: z.string(), callsPerStep: z.number() })).default([]),
      itemCalls: num,
      streamSyncs: num,
    })
    .nullable()
    .default(null),
  input: z
    .object({
      definition: z.string(),
      traced: z.boolean(),
      functions: z.array(z.object({ function: z.string(), msPerStep: z.number(), callsPerStep: z.number() })).default([]),
      note: z.string().nullable().default(null),
    })
    .nullable()
    .default(null),
  gpu: z.object({ kernels: num, busyMs: num, idleMs: num, meanKernelUs: num, peakMemoryMiB: num }).nullable().default(null),
  trace: z.string().nullable().default(null),
  notes: z.array(z.string()).default([]),
});
export type PythonSummary = z.output<typeof pythonSummary>;

/** The wall-clock span the profiler was on (epoch ms): the runner declares it, as it asks for it. */
export type { ProfiledSpan };

export type ReadOutcome = { ok: true; summary: PythonSummary } | { ok: false; reason: string };

export function readPythonSummary(dir: string): ReadOutcome {
  const file = path.join(dir, SUMMARY_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return {
      ok: false,
      reason:
        `the profiler wrote no ${SUMMARY_FILE}: the command started no Python that read Tuning Bench's PYTHONPATH ` +
        '(not a Python program, or Python run with -I, -S or -E, which ignore it)',
    };
  }
  try {
    const parsed = pythonSummary.safeParse(JSON.parse(text));
    if (!parsed.success) return { ok: false, reason: `${file} is not a profile summary this version reads: ${parsed.error.issues[0]?.message ?? ''}` };
    return { ok: true, summary: parsed.data };
  } catch (error) {
    return { ok: false, reason: `${file} is not JSON (${(error as Error).message})` };
  }
}

const mean = (values: readonly number[]) => (values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length);

/** Per-step means of the phases over `steps`. */
export function meanPhases(steps: readonly StepRecord[]): RunProfile['phases'] {
  return {
    stepMs: mean(steps.map((s) => s.stepMs)),
    dataLoadingMs: mean(steps.map((s) => s.dataLoadingMs)),
    inputMs: mean(steps.map((s) => s.inputMs)),
    forwardMs: mean(steps.map((s) => s.forwardMs)),
    backwardMs: mean(steps.map((s) => s.backwardMs)),
    optimizerMs: mean(steps.map((s) => s.optimizerMs)),
    otherMs: mean(steps.map((s) => s.otherMs)),
  };
}

/**
 * The profile as stored: per-step means of the phases over the kept steps, each operator's self time and calls per
 * kept step and its share of the mean step. On CUDA an operator's time is its device time (what bounds a GPU step).
 * Steps are numbered by boundaries here; numbering.ts renumbers them as the script does once its output is read.
 */
export function toRunProfile(
  summary: PythonSummary,
  context: { runId: number; sourceRunId: number | null; dir: string; createdAt: Date },
): Omit<RunProfile, 'diagnosis' | 'span'> {
  const kept = summary.steps.filter((s) => s.kept);
  const count = kept.length;
  const phases = meanPhases(kept);
  const cuda = summary.device === 'cuda';
  const complete = summary.version >= 2;
  const ops =
    count === 0
      ? []
      : summary.ops.map((op) => {
          const selfMs = (cuda && op.selfCudaMs !== null ? op.selfCudaMs : op.selfCpuMs) / count;
          return {
            name: op.name,
            selfMs,
            calls: op.calls / count,
            pct: phases.stepMs ? (100 * selfMs) / phases.stepMs : 0,
            selfCpuMs: op.selfCpuMs / count,
            selfCudaMs: op.selfCudaMs === null ? null : op.selfCudaMs / count,
          };
        });
  // Only a device wait is a sync: on a CPU (or from a profiler that counted every aten::item) nothing is said of syncs.
  const syncs =
    cuda && summary.syncs && summary.syncs.deviceWaits !== null
      ? {
          deviceWaits: summary.syncs.deviceWaits,
          memcpyDtoH: summary.syncs.memcpyDtoH,
          attributed: summary.syncs.attributed,
          sites: summary.syncs.sites,
          perStep: count === 0 ? null : summary.syncs.deviceWaits / count,
          itemCalls: null,
          streamSyncs: null,
        }
      : null;
  const gpu = summary.gpu
    ? {
        kernels: summary.gpu.kernels,
        busyMs: summary.gpu.busyMs,
        idleMsPerStep: summary.gpu.idleMs === null || count === 0 ? null : summary.gpu.idleMs / count,
        meanKernelUs: summary.gpu.meanKernelUs,
        peakMemoryMiB: summary.gpu.peakMemoryMiB,
      }
    : null;
  const fromStep = summary.window.fromStep;
  const toStep = summary.window.toStep;
  const tracePath = summary.trace ? path.join(context.dir, path.basename(summary.trace)) : null;
  const notes = [...summary.notes];
  if (!summary.steadyWindow) {
    notes.push('more than half the profiled steps held evaluations, checkpoints or ran far longer than the rest: none is left out, so the means include them');
  }
  return {
    runId: context.runId,
    sourceRunId: context.sourceRunId,
    status: count > 0 ? 'ok' : 'empty',
    tool: summary.tool === 'torch.profiler' ? 'torch.profiler' : null,
    device: summary.device,
    boundary: summary.boundary,
    warmupSteps: summary.warmupSteps,
    window: fromStep !== null && toStep !== null ? { fromStep, toStep } : null,
    numbering: { by: 'boundaries', offset: 0 },
    keptSteps: count,
    ops,
    opsComplete: complete,
    phases,
    steps: summary.steps.map((s) => ({
      step: s.step,
      scriptStep: null,
      leftOut: s.kept ? null : (s.leftOut ?? 'left out'),
      stepMs: s.stepMs,
      dataLoadingMs: s.dataLoadingMs,
      inputMs: s.inputMs,
      forwardMs: s.forwardMs,
      backwardMs: s.backwardMs,
      optimizerMs: s.optimizerMs,
      otherMs: s.otherMs,
    })),
    syncs,
    input: summary.input,
    overhead: null,
    interpreter: summary.interpreter,
    gpu,
    notes,
    tracePath: tracePath && fs.existsSync(tracePath) ? tracePath : null,
    createdAt: context.createdAt.toISOString(),
  };
}

/** The span to leave out of the run's summary, when the window ran. */
export function profiledSpan(summary: PythonSummary): ProfiledSpan | null {
  const { startedAt, endedAt } = summary.window;
  if (startedAt === null || endedAt === null) return null;
  return { startedAtMs: startedAt * 1000, endedAtMs: endedAt * 1000 };
}
