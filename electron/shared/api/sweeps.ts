// Sweeps: plans of configs run one at a time, their progress, and the batch-size finder.
import { z } from 'zod';
import { gpuRunSettingsInput } from '../gpuSettings.js';
import { DEFAULT_MAX_WAIT_SECONDS, LIMITS, MAX_RUN_SECONDS, MAX_WAIT_SECONDS, stepChoices, varName } from './common.js';
import { typedCommand } from './workloads.js';
import { DEFAULT_MIN_EFFECT, minEffect } from './compare.js';
import { KNOB_PREFIX } from '../knobs.js';
export const sweepPlan = z.enum(['one-at-a-time', 'ladder', 'grid']);

/** A sweep's variable: one of the command's, `git`, or a knob (`knob.autocast`, applied without changing the script). */
export const sweepVariableName = z
  .string()
  .max(LIMITS.nameChars)
  .superRefine((name, context) => {
    if (name.startsWith(KNOB_PREFIX)) {
      if (!/^[A-Za-z]\w*$/u.test(name.slice(KNOB_PREFIX.length)))
        context.addIssue({ code: 'custom', message: `a knob is ${KNOB_PREFIX}NAME, e.g. ${KNOB_PREFIX}autocast` });
      return;
    }
    // A variable's own refusals, word for word (a name with a dot, `__proto__`).
    const checked = varName.safeParse(name);
    if (!checked.success) for (const issue of checked.error.issues) context.addIssue({ code: 'custom', message: issue.message });
  });

export const sweepVariable = z.object({
  name: sweepVariableName,
  /** A value may be empty where the variable is a flag (a whole argument alone): its absence. See shared/variables.ts. */
  values: z.array(z.string().max(LIMITS.argChars)).min(1).max(64),
});

export const sweepRequest = z.object({
  /** A registered workload, or... */
  workloadId: z.number().int().positive().optional(),
  /** ...a typed command (exactly one of the two). */
  command: typedCommand.optional(),
  /**
   * Untracked or ignored paths (relative to the repository) linked into each `git=` worktree: datasets, outputs the
   * script needs. A tracked directory stands for the untracked and ignored files inside it, each linked on its own;
   * a tracked file is refused (each revision has its own).
   */
  links: z.array(z.string().min(1).max(LIMITS.argChars)).max(64).default([]),
  /** Keep the `git=` worktrees after the sweep (to look at them); removed otherwise. */
  keepWorktrees: z.boolean().default(false),
  name: z.string().trim().max(LIMITS.nameChars).optional(),
  /** Values every config shares (the rest come from the workload's defaults); `knob.NAME` ones are knobs. */
  values: z.record(sweepVariableName, z.string().max(LIMITS.argChars)).default({}),
  /** Variables varied; the first value of each is the baseline's. */
  vary: z.array(sweepVariable).min(1).max(16),
  plan: sweepPlan.default('ladder'),
  repeats: z.number().int().min(1).max(50).default(3),
  /** Keep the workload's seed variable at one value for every repeat (by default each repeat gets its own, so repeats are independent). */
  pinSeed: z.boolean().default(false),
  /** Each run stops after this many steps, or after this long (ends `timed_out`). */
  maxSteps: z.number().int().positive().optional(),
  /** With maxSteps: each run goes on past its step limit until its logged steps span this long (fast steps are a moment's worth). */
  minStepSeconds: z.number().min(0).max(MAX_RUN_SECONDS).optional(),
  timeoutSeconds: z.number().positive().max(MAX_RUN_SECONDS).optional(),
  /**
   * What one step holds, as an expression over the sweep's variables (`{batch}`, `{batch}*{seq_len}`): throughput
   * is then per token or per sample, so configs that change a step's work compare fairly. At most one of the two;
   * a run's own statement of its tokens per step (nanoGPT prints it) wins.
   */
  tokensPerStep: z.string().trim().min(1).max(500).optional(),
  samplesPerStep: z.string().trim().min(1).max(500).optional(),
  /** Warm-up and left-out steps for every run of the sweep (recorded with each run, set by the sweep). */
  steps: stepChoices.optional(),
  /** δ of the `same` verdict in the sweep's closing table: an interval inside 1 ± minEffect. */
  minEffect: minEffect.default(DEFAULT_MIN_EFFECT),
  /** Before each run: wait for a quiet host (others under half a core), no other compute process, low utilisation, and a temperature near idle. */
  waitForIdle: z.boolean().default(true),
  maxWaitSeconds: z.number().min(0).max(MAX_WAIT_SECONDS).default(DEFAULT_MAX_WAIT_SECONDS),
  /** GPU settings held for the whole sweep (a profile or custom), restored at its end. */
  gpuSettings: gpuRunSettingsInput.optional(),
  confirmOtherProcesses: z.boolean().default(false),
});

/** One revision of a `git=` sweep as it ran. */
export const sweepSide = z.object({
  value: z.string(),
  /** The commit it ran; for the working tree, HEAD when the sweep started. */
  commit: z.string(),
  /** The working tree's changes frozen as a commit object (what `git diff` between sides reads); null for a commit or a clean tree. */
  snapshot: z.string().nullable(),
  subject: z.string(),
  date: z.string(),
  /** How a person reads it: `3f2a9c1 faster data loading`, `working tree (on 3f2a9c1)`. */
  label: z.string(),
});

export const sweepConfig = z.object({
  index: z.number().int(),
  name: z.string(),
  values: z.record(z.string(), z.string()),
  /** What differs from the baseline, as VAR=VALUE. */
  changes: z.array(z.string()),
});

export const sweepConfigState = sweepConfig.extend({
  runIds: z.array(z.number().int()),
  status: z.enum(['pending', 'running', 'done', 'oom', 'failed', 'skipped']),
  /** Repeats pooled: median of the runs' steady throughputs, and the same for step time and final loss. */
  throughputMedian: z.number().nullable(),
  throughputUnit: z.string().nullable(),
  stepTimeMsMedian: z.number().nullable(),
  finalLossMedian: z.number().nullable(),
  vramPeakMiB: z.number().nullable(),
  /** Why its runs failed (the first failed run's), with a hint when it missed a path your tree has; null when none failed. */
  failure: z.object({ runId: z.number().int(), exitClass: z.string().nullable(), reason: z.string(), hint: z.string().nullable() }).nullable().default(null),
});

/** A place of a sweep's schedule: "run 3 of 8, batch=32, repeat 2 of 3" (a batch finder's probe 3, of as many as it takes). */
const sweepPlace = z.object({
  /** Its place in the schedule, from 1. */
  run: z.number().int().positive(),
  /** Places in the schedule; null for a batch finder, which does not know how many probes it takes. */
  of: z.number().int().positive().nullable(),
  configIndex: z.number().int().nonnegative(),
  /** The config's name: what it changes against the baseline, or "baseline", or a before/after side's label. */
  config: z.string(),
  /** From 1. */
  repeat: z.number().int().positive(),
  repeats: z.number().int().positive(),
});

export const sweepPlaceNow = sweepPlace.extend({
  /** Waiting for a quiet host and an idle, cool GPU, or running. */
  phase: z.enum(['waiting', 'running']),
  /** When this place began (its wait, or its run when there was none), by the engine's clock. */
  since: z.string(),
  runId: z.number().int().nullable(),
  /** When its run started; null while it waits. */
  runStartedAt: z.string().nullable(),
});

export const sweepRunFailure = sweepPlace.extend({
  runId: z.number().int(),
  exitClass: z.string().nullable(),
  /** The run's own reason (the line that said why), or how it ended. */
  reason: z.string(),
});

export const sweep = z.object({
  id: z.number().int(),
  name: z.string(),
  kind: z.enum(['sweep', 'batch-finder']),
  createdAt: z.string(),
  endedAt: z.string().nullable(),
  workloadId: z.number().int().nullable(),
  workloadName: z.string(),
  plan: z.string(),
  repeats: z.number().int(),
  status: z.enum(['queued', 'running', 'paused', 'succeeded', 'failed', 'cancelled', 'interrupted']),
  configs: z.array(sweepConfigState),
  progress: z.object({
    /** Runs finished or skipped, of all the schedule holds. */
    done: z.number().int(),
    total: z.number().int(),
    currentRunId: z.number().int().nullable(),
    /** What the current run is: "config 2 of 5 (+batch=16), repeat 1 of 3". */
    current: z.string().nullable(),
    /** From the durations measured so far in this sweep; null before the first run ends. */
    etaSeconds: z.number().nullable(),
    waiting: z.string().nullable(),
    /** The place under way (its wait for a quiet machine, then its run), as the engine runs it; null between runs and once ended. */
    now: sweepPlaceNow.nullable().default(null),
    /** Runs of the sweep that failed or timed out so far (a run stopped by Skip or Cancel is not one). */
    failed: z.number().int().nonnegative().default(0),
    /** The latest of them: which place, and why. */
    lastFailure: sweepRunFailure.nullable().default(null),
  }),
  request: z.record(z.string(), z.unknown()),
  /** A sweep over `git=` revisions: the directory whose repository they name and the revisions, baseline first; else null. */
  git: z
    .object({
      cwd: z.string(),
      revisions: z.array(z.string()),
      /** Each revision as resolved when the sweep started: its commit (for the working tree, the snapshot), subject and label. */
      sides: z.array(sweepSide).default([]),
      /** The untracked or ignored paths linked into each worktree. */
      links: z.array(z.string()).default([]),
    })
    .nullable()
    .default(null),
  /** Why it stopped early, for a person to read. */
  error: z.string().nullable(),
  /**
   * Why it ended before its plan when no person cancelled it, though its status says cancelled: a tune's step whose
   * knob did not act in its first run (its other runs would measure the same command again).
   */
  endedNote: z.string().nullable().default(null),
  /** The batch-size finder's answer: the largest batch that fit, the first that did not. */
  result: z.object({ variable: z.string(), largestFit: z.number().nullable(), firstFailure: z.number().nullable(), message: z.string() }).nullable(),
});

export const sweepPreview = z.object({
  configs: z.array(sweepConfig.extend({ command: z.array(z.string()), cwd: z.string(), env: z.record(z.string(), z.string()) })),
  runCount: z.number().int(),
  /** From earlier runs of the workload; null when there are none to go by. */
  estimateSeconds: z.number().nullable(),
  estimateBasis: z.string(),
});

export type Sweep = z.output<typeof sweep>;

export type SweepRequest = z.output<typeof sweepRequest>;

export type SweepConfig = z.output<typeof sweepConfig>;

export type SweepSide = z.output<typeof sweepSide>;

export type SweepPreview = z.output<typeof sweepPreview>;

export type SweepPlaceNow = z.output<typeof sweepPlaceNow>;

export type SweepRunFailure = z.output<typeof sweepRunFailure>;

/** Sweep methods: `sweeps.*`. */
export const sweepMethods = {
  /** The plan a sweep would run: every config's exact command and env, the run count, an estimate. */
  'sweeps.plan': { input: sweepRequest, output: sweepPreview },
  /** Queues a sweep; it runs one run at a time on the GPU. */
  'sweeps.start': { input: sweepRequest, output: sweep },
  'sweeps.list': { input: z.object({ limit: z.number().int().min(1).max(1000).default(100) }), output: z.array(sweep) },
  'sweeps.get': { input: z.object({ id: z.number().int().positive() }), output: sweep },
  /** Pause after the current run; resume; skip the current run; cancel the rest. */
  'sweeps.control': {
    input: z.object({ id: z.number().int().positive(), action: z.enum(['pause', 'resume', 'skip', 'cancel']) }),
    output: sweep,
  },
  /** Doubles a batch variable until out of memory, then bisects to the largest that fits (short runs). */
  'sweeps.findBatch': {
    input: z.object({
      /** A registered workload, or... */
      workloadId: z.number().int().positive().optional(),
      /** ...a typed command whose `{batch}` (or `variable`) placeholder is the batch (exactly one of the two). */
      command: typedCommand.optional(),
      /** Values every probe shares; `knob.NAME` ones are knobs, applied in each probe (a tune's kept knobs). */
      values: z.record(sweepVariableName, z.string().max(LIMITS.argChars)).default({}),
      variable: varName.default('batch'),
      start: z
        .number()
        .int()
        .positive()
        .max(1 << 20)
        .default(1),
      /** The largest batch tried (default: doubling up to about a million): where memory never runs out, as on a CPU, the search stops here. */
      maxBatch: z
        .number()
        .int()
        .positive()
        .max(1 << 20)
        .optional(),
      maxSteps: z.number().int().positive().default(20),
      timeoutSeconds: z.number().positive().max(MAX_RUN_SECONDS).default(300),
      /** What one step holds (as in a sweep): each probe records it, so its throughput is per token or per sample. */
      tokensPerStep: z.string().trim().min(1).max(500).optional(),
      samplesPerStep: z.string().trim().min(1).max(500).optional(),
    }),
    output: sweep,
  },
} as const;
