// The knobs: standard PyTorch speed-ups applied to an unmodified script (resources/python/tuning_bench_knobs/), their values, and what a run recorded of them.
import { z } from 'zod';

/** In a run's config and a sweep's variables, a knob is `knob.NAME` (`--vary knob.autocast=off,bf16`). */
export const KNOB_PREFIX = 'knob.';

/** Every knob takes `off`: not applied (a sweep's baseline). */
export const KNOB_OFF = 'off';

type KnobKind = { kind: 'switch' } | { kind: 'count'; min: number; max: number } | { kind: 'choice'; values: readonly string[] };

export interface KnobSpec {
  name: string;
  /** One line on what it does, for the Knobs section and the CLI's errors. */
  explanation: string;
  /** Only where PyTorch sees a CUDA device (skipped with that reason elsewhere). */
  cudaOnly: boolean;
  type: KnobKind;
}

// Counts are bounded by what a machine could use: 64 loader workers or prefetched batches per worker, 1024 threads.
export const KNOBS: readonly KnobSpec[] = [
  {
    name: 'workers',
    type: { kind: 'count', min: 1, max: 64 },
    cudaOnly: false,
    explanation: 'DataLoader workers for loaders the script makes with none (num_workers=0): batches load while the model trains.',
  },
  {
    name: 'pinMemory',
    type: { kind: 'switch' },
    cudaOnly: true,
    explanation: "Pinned host memory for DataLoader batches: faster copies to the GPU (a loader's own pin_memory stands).",
  },
  {
    name: 'persistentWorkers',
    type: { kind: 'switch' },
    cudaOnly: false,
    explanation: 'DataLoader workers kept alive between epochs instead of started again (needs workers).',
  },
  {
    name: 'prefetch',
    type: { kind: 'count', min: 1, max: 64 },
    cudaOnly: false,
    explanation: 'Batches each DataLoader worker loads ahead (prefetch_factor; needs workers).',
  },
  {
    name: 'autocast',
    type: { kind: 'choice', values: ['bf16', 'fp16'] },
    cudaOnly: false,
    explanation: "Mixed precision: the model's forward under torch.autocast (fp16 on CUDA with a GradScaler; bf16 on CPU too).",
  },
  { name: 'tf32', type: { kind: 'switch' }, cudaOnly: true, explanation: 'TF32 for float32 matmuls and convolutions on NVIDIA GPUs from Ampere on.' },
  {
    name: 'cudnnBenchmark',
    type: { kind: 'switch' },
    cudaOnly: true,
    explanation: 'cudnn.benchmark: cuDNN times its convolution algorithms once per shape and keeps the fastest.',
  },
  {
    name: 'matmulPrecision',
    type: { kind: 'choice', values: ['high', 'medium'] },
    cudaOnly: true,
    explanation: 'torch.set_float32_matmul_precision: float32 matmuls in TF32 (high) or bfloat16 (medium).',
  },
  {
    name: 'compile',
    type: { kind: 'switch' },
    cudaOnly: false,
    explanation: "torch.compile on the model's first call (torch 2.0 and newer); the compiling steps count as warm-up.",
  },
  {
    name: 'channelsLast',
    type: { kind: 'switch' },
    cudaOnly: false,
    explanation: 'The model and its 4-D inputs in channels-last memory format (convolutional networks).',
  },
  {
    name: 'threads',
    type: { kind: 'count', min: 1, max: 1024 },
    cudaOnly: false,
    explanation: "torch.set_num_threads(N): CPU threads for PyTorch's operators (a script's own call stands).",
  },
];

const BY_NAME = new Map(KNOBS.map((spec) => [spec.name, spec]));

export const KNOB_NAMES: readonly string[] = KNOBS.map((spec) => spec.name);

/** The values a knob takes, in words (`1-64`, `bf16|fp16`, `on`), each with `off`. */
export function knobValues(spec: KnobSpec): string {
  const { type } = spec;
  const values = type.kind === 'switch' ? 'on' : type.kind === 'count' ? `${type.min}-${type.max}` : type.values.join('|');
  return `${values}|${KNOB_OFF}`;
}

/** Each knob with its values, for an error that says what would do. */
export function knobList(): string {
  return KNOBS.map((spec) => `${spec.name}=${knobValues(spec)}`).join(', ');
}

const SWITCH_WORDS: Record<string, 'on' | 'off'> = { on: 'on', true: 'on', yes: 'on', '1': 'on', off: 'off', false: 'off', no: 'off', '0': 'off' };

/** A knob's value made canonical (`on`/`off` for a switch, a count's digits), or the reason it is not one. */
export function checkKnob(name: string, value: string): { ok: true; value: string } | { ok: false; error: string } {
  const spec = BY_NAME.get(name);
  if (!spec) return { ok: false, error: `no knob "${name}": the knobs are ${knobList()}` };
  const text = value.trim();
  if (text.toLowerCase() === KNOB_OFF) return { ok: true, value: KNOB_OFF };
  const { type } = spec;
  if (type.kind === 'switch') {
    const word = SWITCH_WORDS[text.toLowerCase()];
    if (word) return { ok: true, value: word };
  } else if (type.kind === 'count') {
    if (/^\d+$/u.test(text)) {
      const count = Number(text);
      if (count >= type.min && count <= type.max) return { ok: true, value: String(count) };
    }
  } else if (type.values.includes(text)) {
    return { ok: true, value: text };
  }
  return { ok: false, error: `${name}: "${value}" is not one of its values (${knobValues(spec)})` };
}

/** `NAME=VALUE`, or a switch's `NAME` alone (on), as `--knob` takes it. */
export function parseKnobAssignment(text: string): { ok: true; name: string; value: string } | { ok: false; error: string } {
  const equals = text.indexOf('=');
  const name = (equals < 0 ? text : text.slice(0, equals)).trim();
  const spec = BY_NAME.get(name);
  if (equals < 0 && spec?.type.kind !== 'switch') {
    return { ok: false, error: spec ? `${name} needs a value: ${name}=${knobValues(spec)}` : `no knob "${name}": the knobs are ${knobList()}` };
  }
  const checked = checkKnob(name, equals < 0 ? 'on' : text.slice(equals + 1));
  return checked.ok ? { ok: true, name, value: checked.value } : checked;
}

/** Knobs for a run: name to value, each checked and made canonical (an unknown knob or a bad value is refused, naming the valid ones). */
export const knobSettings = z
  .record(z.string().max(40), z.string().max(40))
  .superRefine((knobs, context) => {
    for (const [name, value] of Object.entries(knobs)) {
      const checked = checkKnob(name, value);
      if (!checked.ok) context.addIssue({ code: z.ZodIssueCode.custom, message: checked.error, path: [name] });
    }
  })
  .transform((knobs) => Object.fromEntries(Object.entries(knobs).map(([name, value]) => [name, (checkKnob(name, value) as { value: string }).value])));

export type KnobSettings = z.output<typeof knobSettings>;

/** `knob.NAME` (a sweep's variable or a config's key) to NAME; null for any other variable. */
export function knobOfVariable(variable: string): string | null {
  return variable.startsWith(KNOB_PREFIX) ? variable.slice(KNOB_PREFIX.length) : null;
}

/** The knobs a config holds (its `knob.NAME` values), checked; throws with the valid ones named. */
export function knobsOfConfig(config: Record<string, string>): KnobSettings {
  const knobs: KnobSettings = {};
  for (const [key, value] of Object.entries(config)) {
    const name = knobOfVariable(key);
    if (name === null) continue;
    const checked = checkKnob(name, value);
    if (!checked.ok) throw new KnobError(BY_NAME.has(name) ? `${KNOB_PREFIX}${checked.error}` : checked.error);
    knobs[name] = checked.value;
  }
  return knobs;
}

/** Knobs as config keys, `knob.NAME`: how a run records them, and how compare tells configs apart. */
export function knobsAsConfig(knobs: KnobSettings): Record<string, string> {
  return Object.fromEntries(Object.entries(knobs).map(([name, value]) => [`${KNOB_PREFIX}${name}`, value]));
}

/** The knobs the Python side applies (`off` ones left out), typed as it reads them: counts as numbers, switches as true. */
export function knobsForPython(knobs: KnobSettings): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(knobs)) {
    const spec = BY_NAME.get(name);
    if (!spec || value === KNOB_OFF) continue;
    out[name] = spec.type.kind === 'count' ? Number(value) : spec.type.kind === 'switch' ? true : value;
  }
  return out;
}

export class KnobError extends Error {}

/** What a knob did at one place, as the Python side recorded it. */
export const knobOutcome = z.object({
  status: z.enum(['applied', 'skipped', 'overridden', 'failed', 'unused']),
  /** What was set (`num_workers=4 (was 0)`), for an applied one. */
  what: z.string().nullable(),
  /** Why not, for the others. */
  reason: z.string().nullable(),
  /** The script's call it applied at (absolute path, 1-based line); null where it applies to the whole process. */
  file: z.string().nullable(),
  line: z.number().int().nullable(),
  /**
   * The package whose code the script's line called to get here (`transformers` where a Trainer made the loader or
   * called the model): the change that keeps the knob is then in that package's settings. Null: the script's own call.
   */
  via: z.string().nullable().default(null),
});

/**
 * A knob's state over the run: `applied` somewhere (and not undone), `overridden` (the script set it itself later),
 * `failed`, `skipped` (with why), `unused` (nothing reached it), `unknown` (no Python process reported).
 */
export const knobState = z.enum(['applied', 'overridden', 'failed', 'skipped', 'unused', 'unknown']);

/** The knobs a run asked for and what each did, with where. */
export const runKnobs = z.object({
  /** As asked, `off` included. */
  requested: z.record(z.string(), z.string()),
  /** The torch the script imported (null: none reported). */
  torch: z.string().nullable().default(null),
  cuda: z.boolean().nullable().default(null),
  knobs: z.array(z.object({ name: z.string(), value: z.string(), state: knobState, outcomes: z.array(knobOutcome) })),
  /** The knobs' own warm-up (the first torch.compile to finish its first call), epoch ms: steps under way before it ended are warm-up. */
  warmupUntilMs: z.number().nullable().default(null),
  notes: z.array(z.string()).default([]),
});

export type RunKnobs = z.output<typeof runKnobs>;
export type KnobOutcome = z.output<typeof knobOutcome>;
export type KnobState = z.output<typeof knobState>;

/** The knobs in force: applied and not overridden. */
export function knobsInForce(knobs: RunKnobs | null): string[] {
  return (knobs?.knobs ?? []).filter((knob) => knob.state === 'applied').map((knob) => `${knob.name}=${knob.value}`);
}

/** `train.py:52` of an outcome (the file's last part), or null. */
export function outcomeSite(outcome: Pick<KnobOutcome, 'file' | 'line'>): string | null {
  if (outcome.file === null) return null;
  const base = outcome.file.split('/').at(-1) ?? outcome.file;
  return outcome.line === null ? base : `${base}:${outcome.line}`;
}

/** Places shown per knob in a line: a loader made at many lines is said in a count past these. */
const MAX_OUTCOMES_SHOWN = 3;

/**
 * One line per knob asked for: its state, where (file:line), and what it set or why not; then the run's notes.
 * `workers=4: applied at train.py:52 (num_workers=4 (was 0))`, `tf32=on: skipped (no CUDA device here: ...)`.
 */
export function knobLines(knobs: RunKnobs): string[] {
  const lines: string[] = [];
  for (const knob of knobs.knobs) {
    const head = `${knob.name}=${knob.value}: ${knob.value === KNOB_OFF ? 'off' : knob.state}`;
    if (knob.outcomes.length === 0) {
      lines.push(knob.state === 'unknown' ? `${head} (no Python process reported on it)` : head);
      continue;
    }
    // The outcome that decided the state first, then the others (a loader left alone beside one changed).
    const ordered = [...knob.outcomes].sort((a, b) => Number(b.status === knob.state) - Number(a.status === knob.state));
    const parts = ordered.slice(0, MAX_OUTCOMES_SHOWN).map((o) => {
      const site = outcomeSite(o);
      const words = o.status === 'applied' ? o.what : o.reason;
      return `${o.status === knob.state ? '' : `${o.status} `}${site ? `at ${site} ` : ''}${words ? `(${words})` : ''}`.trim();
    });
    const more = knob.outcomes.length > MAX_OUTCOMES_SHOWN ? `; and ${knob.outcomes.length - MAX_OUTCOMES_SHOWN} more places` : '';
    lines.push(`${head} ${parts.join('; ')}${more}`);
  }
  return [...lines, ...knobs.notes];
}
