// Tuning an unmodified script: the knobs' ladder (baseline, +workers, +autocast, +TF32, +cudnn.benchmark, +compile), each step kept only when faster and within the quality gate.
import { z } from 'zod';
import { DEFAULT_MAX_WAIT_SECONDS, interval, LIMITS, MAX_RUN_SECONDS, MAX_WAIT_SECONDS, varName } from './common.js';
import { DEFAULT_MIN_EFFECT, minEffect, qualityGate } from './compare.js';
import { typedCommand } from './workloads.js';

/**
 * The ladder's steps, in the order they are tried; `threads` only when asked (`--threads N`); `batch` last: the
 * largest batch that fits with the knobs kept, tried where the command has a batch placeholder.
 */
export const TUNE_STEPS = ['workers', 'autocast', 'tf32', 'cudnnBenchmark', 'compile', 'threads', 'batch'] as const;
export const tuneStepName = z.enum(TUNE_STEPS);

/** The seeds' ladder: what `tune` tries unless told otherwise. */
export const DEFAULT_TUNE_STEPS: readonly (typeof TUNE_STEPS)[number][] = ['workers', 'autocast', 'tf32', 'cudnnBenchmark', 'compile', 'batch'];

/** Short runs by default: 30 steps hold a warm-up and a steady stretch of a small script (the steady-state finder needs about 10). */
export const DEFAULT_TUNE_MAX_STEPS = 30;

/**
 * ...and, where steps are fast, at least this long of them: 30 steps of Lightning's quick-start at 300 steps/s are a
 * tenth of a second, all of it warm-up (its first 167 steps, 0.9 s, were slower), and a run's throughput would be its
 * warm-up's. Counted from the first logged step, so imports and a compile before it do not use it up.
 */
export const DEFAULT_TUNE_MIN_STEP_SECONDS = 5;

export const tuneRequest = z
  .object({
    command: typedCommand,
    /** The ladder in order; without it, the seeds' ladder (and the threads step where a count is given). */
    steps: z.array(tuneStepName).min(1).max(TUNE_STEPS.length).optional(),
    /** DataLoader workers tried (the optimisation plans' num_workers=4). */
    workers: z.number().int().min(1).max(64).default(4),
    autocast: z.enum(['bf16', 'fp16']).default('bf16'),
    /** torch.set_num_threads for the `threads` step. */
    threads: z.number().int().min(1).max(1024).optional(),
    /** Values of the command's `{var}` placeholders, for every run (`--set batch=32`): the batch's is the batch it runs at now. */
    values: z.record(varName, z.string().max(LIMITS.argChars)).default({}),
    /** The placeholder that is the batch size: every step's work per step comes from it, and the `batch` step tries larger ones. */
    batchVariable: varName.default('batch'),
    /** What one step holds, as a sweep's (`{batch}*{seq_len}`); with a batch placeholder and neither given, samples per step are `{batch}`. */
    tokensPerStep: z.string().trim().min(1).max(500).optional(),
    samplesPerStep: z.string().trim().min(1).max(500).optional(),
    /** Each run stops after this many steps (default DEFAULT_TUNE_MAX_STEPS unless timeoutSeconds is given), or after this long. */
    maxSteps: z.number().int().positive().optional(),
    /** With the step limit: each run goes on past it until its logged steps span this long (default DEFAULT_TUNE_MIN_STEP_SECONDS; 0: the limit alone). */
    minStepSeconds: z.number().min(0).max(MAX_RUN_SECONDS).optional(),
    timeoutSeconds: z.number().positive().max(MAX_RUN_SECONDS).optional(),
    /** Runs per side in a step's first round; more are added, a round at a time, while the verdict is undecided. */
    repeats: z.number().int().min(2).max(20).default(2),
    /** The most runs per side one step may take before its verdict is left undecided. */
    maxRepeats: z.number().int().min(2).max(50).default(4),
    minEffect: minEffect.default(DEFAULT_MIN_EFFECT),
    gate: qualityGate.default(() => qualityGate.parse({})),
    waitForIdle: z.boolean().default(true),
    maxWaitSeconds: z.number().min(0).max(MAX_WAIT_SECONDS).default(DEFAULT_MAX_WAIT_SECONDS),
  })
  .transform((request) => ({ ...request, steps: request.steps ?? defaultTuneSteps(request.threads) }));

/** The seeds' ladder, with the threads step before the batch when a thread count is given (asking for it). */
function defaultTuneSteps(threads: number | undefined): (typeof TUNE_STEPS)[number][] {
  if (threads === undefined) return [...DEFAULT_TUNE_STEPS];
  const batch = DEFAULT_TUNE_STEPS.indexOf('batch');
  return [...DEFAULT_TUNE_STEPS.slice(0, batch), 'threads', ...DEFAULT_TUNE_STEPS.slice(batch)];
}

/** Where a kept knob goes in the script for good: the change in words and as a unified diff. */
export const tuneSuggestion = z.object({
  knobs: z.array(z.string()),
  /** The script file (absolute) and the 1-based line the knob applied at; null where it applies to the whole process and no line was recorded. */
  file: z.string().nullable(),
  line: z.number().int().nullable(),
  /** `train.py:52: DataLoader(..., num_workers=4, persistent_workers=True)`. */
  text: z.string(),
  /** A unified diff against the file as it is now (a/PATH, b/PATH relative to the command's directory); null when no exact edit could be made (the text says why). */
  diff: z.string().nullable(),
});

export const tuneStep = z.object({
  name: z.string(),
  /** The knob tried, as NAME=VALUE, with those set beside it (`persistentWorkers=on`); empty for the baseline. */
  knobs: z.record(z.string(), z.string()),
  status: z.enum(['baseline', 'kept', 'rejected', 'skipped', 'failed', 'cancelled']),
  /** Why it was kept, rejected, skipped or failed, in words. */
  reason: z.string(),
  /** What it was measured against: `baseline`, or the knobs kept before it. */
  against: z.string(),
  sweepIds: z.array(z.number().int()),
  runIds: z.array(z.number().int()),
  throughput: z.object({ median: z.number().nullable(), ci95: interval, unit: z.string().nullable() }),
  speedup: z.object({ ratio: z.number().nullable(), ci95: interval, verdict: z.string(), reason: z.string().nullable() }),
  n: z.object({ candidate: z.number().int(), against: z.number().int() }),
  stepTimeMs: z.number().nullable(),
  /** Its runs' median train loss at the tune's `lossAt` (the work every step's runs reached); their final loss where that is null. */
  finalLoss: z.number().nullable(),
  /** Peak GPU memory of its runs (null without a GPU). */
  vramPeakMiB: z.number().nullable(),
  gate: z.enum(['pass', 'fail', 'n/a']),
  gateReason: z.string(),
  /** What the knob's record says it did in the runs (`applied`, `skipped`...), with where. */
  knobState: z.string().nullable(),
  kept: z.boolean(),
});

export const tuneResult = z.object({
  status: z.enum(['succeeded', 'failed', 'cancelled']),
  command: z.string(),
  cwd: z.string(),
  steps: z.array(tuneStep),
  /** The knobs kept, NAME to VALUE. */
  kept: z.record(z.string(), z.string()),
  /** The kept combination against the baseline, measured side by side (never the steps' speedups multiplied). */
  total: z
    .object({
      ratio: z.number().nullable(),
      ci95: interval,
      verdict: z.string(),
      reason: z.string().nullable(),
      sweepIds: z.array(z.number().int()),
      measuredBy: z.string(),
    })
    .nullable(),
  suggestions: z.array(tuneSuggestion),
  /** Every suggestion's edit as one patch (`git apply` or `patch -p1` in `patchDir`); null when none could be made. */
  patch: z.string().nullable(),
  /**
   * Where the patch applies: the command's directory, or, when a file it changes lies outside it (`python
   * /elsewhere/train.py`), the deepest directory holding them all. Null without a patch (and in tunes kept before it
   * was said: theirs applies in the command's directory).
   */
  patchDir: z.string().nullable().default(null),
  /**
   * The confidence of every interval in it: 95 % shared between the looks a step may take at its runs (one per round
   * while undecided), so a knob is called faster when it is not at most 5 % of the time.
   */
  confidence: z.number().gt(0).lt(1).default(0.95),
  /**
   * Where the steps' losses are read: the largest work every step's runs reached (`step 146`, `9,344 samples`), as runs
   * of fast steps stop after a stretch of time at unequal work; null where they are final losses (no common work, or a
   * tune kept before this was said).
   */
  lossAt: z.string().nullable().default(null),
  /** Machine facts the ladder went by (torch version, CUDA). */
  machine: z.object({ torch: z.string().nullable(), cuda: z.boolean().nullable() }),
  notes: z.array(z.string()),
  error: z.string().nullable(),
  /** The batch kept by the `batch` step: the placeholder, the batch it ran at and the larger one kept; null or absent when none was (absent in tunes kept before the step existed). */
  batch: z.object({ variable: z.string(), from: z.number().int(), to: z.number().int() }).nullable().optional(),
});

export type TuneRequest = z.output<typeof tuneRequest>;
export type TuneStep = z.output<typeof tuneStep>;
export type TuneResult = z.output<typeof tuneResult>;
export type TuneSuggestion = z.output<typeof tuneSuggestion>;
export type TuneStepName = z.output<typeof tuneStepName>;

/** A tune as kept: its request and its steps so far (written after each step), so a reloaded page or a resume finds it. */
export const tuneRecord = z.object({
  id: z.number().int(),
  createdAt: z.string(),
  endedAt: z.string().nullable(),
  /** `interrupted`: its engine stopped while it ran; `tune.resume` goes on from the step it reached. */
  status: z.enum(['running', 'succeeded', 'failed', 'cancelled', 'interrupted']),
  /** The run whose page started it, or null (the CLI, a typed command). */
  sourceRunId: z.number().int().nullable(),
  request: tuneRequest,
  result: tuneResult,
});

export type TuneRecord = z.output<typeof tuneRecord>;

export const tuneId = z.object({ id: z.number().int().positive() });

/** Tuning methods: `tune.*`. */
export const tuneMethods = {
  /**
   * Runs the knobs' ladder on a typed command and answers when it ends (each step is a sweep: its progress comes as
   * `sweeps.onDidChange`; cancelling the step's sweep ends the ladder there).
   */
  'tune.run': { input: tuneRequest, output: tuneResult },
  /** Starts the ladder and answers at once with the tune as kept; `tunes.onDidChange` follows it step by step. */
  'tune.start': { input: z.object({ request: tuneRequest, sourceRunId: z.number().int().positive().nullable().default(null) }), output: tuneRecord },
  'tune.get': { input: tuneId, output: tuneRecord },
  /** The newest tunes first; of one run's page with `sourceRunId`. */
  'tune.list': {
    input: z.object({ sourceRunId: z.number().int().positive().optional(), limit: z.number().int().min(1).max(1000).default(20) }),
    output: z.array(tuneRecord),
  },
  /** Stops a running tune: its step's sweep is cancelled and no further step starts. */
  'tune.cancel': { input: tuneId, output: tuneRecord },
  /** Goes on with a cancelled or interrupted tune from the first step it did not decide, with the knobs it had kept. */
  'tune.resume': { input: tuneId, output: tuneRecord },
  /** The tune as a report to keep or send: Markdown or one self-contained HTML page (the answer, the table, each step's reason, the patch). */
  'tune.export': {
    input: tuneId.extend({ format: z.enum(['md', 'html']) }),
    output: z.object({ content: z.string(), filename: z.string(), mimeType: z.string() }),
  },
} as const;
