// Reads what the Python profiler (resources/python/tuning_bench_profile.py) wrote, into a run's profile.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { RunProfile } from '../../shared/profile.js';
import type { ProfiledSpan } from '../runner/collaborators.js';

/** The names the Python side writes (its SUMMARY_FILE, TRACE_FILE). */
export const SUMMARY_FILE = 'summary.json';
export const TRACE_FILE = 'trace.json';
/** The variable sitecustomize.py looks for. */
export const PROFILE_ENV_VAR = 'TUNING_BENCH_PROFILE';

const num = z.number().nullable().optional().transform((v) => v ?? null);
const stepRecord = z.object({
  step: z.number().int(),
  stepMs: z.number(),
  dataLoadingMs: z.number(),
  forwardMs: z.number(),
  backwardMs: z.number(),
  optimizerMs: z.number(),
  otherMs: z.number(),
});

/** summary.json, version 1; lenient where a field may be missing after a failure. */
export const pythonSummary = z.object({
  version: z.literal(1),
  tool: z.string().nullable(),
  device: z.string().nullable().optional().transform((v) => v ?? null),
  boundary: z.string().nullable().optional().transform((v) => v ?? null),
  warmupSteps: z.number().int(),
  window: z.object({ fromStep: num, toStep: num, startedAt: num, endedAt: num }),
  steps: z.array(stepRecord).default([]),
  ops: z
    .array(z.object({ name: z.string(), calls: z.number(), selfCpuMs: z.number(), selfCudaMs: num }))
    .default([]),
  syncs: z.object({ itemCalls: num, streamSyncs: num, memcpyDtoH: num }).nullable().default(null),
  gpu: z
    .object({ kernels: num, busyMs: num, idleMs: num, meanKernelUs: num, peakMemoryMiB: num })
    .nullable()
    .default(null),
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

/**
 * The profile as stored: per-step means of the phases, each operator's self time and calls per step and
 * its share of the mean step. On CUDA an operator's time is its device time (what bounds a GPU step).
 */
export function toRunProfile(
  summary: PythonSummary,
  context: { runId: number; sourceRunId: number | null; dir: string; createdAt: Date },
): Omit<RunProfile, 'diagnosis' | 'span'> {
  const steps = summary.steps;
  const count = steps.length;
  const phases = {
    stepMs: mean(steps.map((s) => s.stepMs)),
    dataLoadingMs: mean(steps.map((s) => s.dataLoadingMs)),
    forwardMs: mean(steps.map((s) => s.forwardMs)),
    backwardMs: mean(steps.map((s) => s.backwardMs)),
    optimizerMs: mean(steps.map((s) => s.optimizerMs)),
    otherMs: mean(steps.map((s) => s.otherMs)),
  };
  const cuda = summary.device === 'cuda';
  const ops = count === 0 ? [] : summary.ops.map((op) => {
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
  const syncs = summary.syncs
    ? {
        ...summary.syncs,
        perStep: count === 0 ? null : ((summary.syncs.itemCalls ?? 0) + (summary.syncs.streamSyncs ?? 0)) / count,
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
  return {
    runId: context.runId,
    sourceRunId: context.sourceRunId,
    status: count > 0 ? 'ok' : 'empty',
    tool: summary.tool === 'torch.profiler' ? 'torch.profiler' : null,
    device: summary.device,
    boundary: summary.boundary,
    warmupSteps: summary.warmupSteps,
    window: fromStep !== null && toStep !== null ? { fromStep, toStep } : null,
    ops,
    phases,
    steps,
    syncs,
    gpu,
    notes: summary.notes,
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
