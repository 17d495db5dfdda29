// A run's knobs: the variable that asks the Python side for them, and its results file read back into the run's record.
import fs from 'node:fs';
import { z } from 'zod';
import { KNOB_OFF, knobOutcome, knobsForPython, type KnobOutcome, type KnobSettings, type KnobState, type RunKnobs } from '../../shared/knobs.js';

/** The variable sitecustomize.py looks for (resources/python/tuning_bench_knobs). */
export const KNOBS_ENV_VAR = 'TUNING_BENCH_KNOBS';

/**
 * The most of a results file read: each process writes at most 200 lines (record.py MAX_RECORDS) of well under 1 KiB,
 * so this holds a run of a thousand processes (spawned DataLoader workers each report their global knobs).
 */
export const MAX_RESULTS_BYTES = 4 * 1024 * 1024;

/** The environment that turns the knobs on, or nothing when every knob is off. */
export function knobsEnvironment(file: string, knobs: KnobSettings): Record<string, string> {
  const applied = knobsForPython(knobs);
  if (Object.keys(applied).length === 0) return {};
  return { [KNOBS_ENV_VAR]: JSON.stringify({ knobs: applied, out: file }) };
}

const outcomeLine = knobOutcome.extend({
  knob: z.string(),
  what: z.string().nullable().default(null),
  reason: z.string().nullable().default(null),
  file: z.string().nullable().default(null),
  line: z.number().int().nullable().default(null),
  warmupUntil: z.number().optional(),
});
const torchLine = z.object({ event: z.literal('torch'), torch: z.string().nullable().default(null), cuda: z.boolean().nullable().default(null) });

/** Which state wins when a knob has several outcomes: the script's own later setting, then any place it applied. */
const PRECEDENCE: readonly KnobState[] = ['overridden', 'applied', 'failed', 'skipped', 'unused'];

/** The knobs a run asked for, before anything reported: each `unknown` (or `off`, not applied). */
export function requestedKnobs(knobs: KnobSettings): RunKnobs {
  return {
    requested: { ...knobs },
    torch: null,
    cuda: null,
    knobs: Object.entries(knobs).map(([name, value]) => ({ name, value, state: value === KNOB_OFF ? 'unused' : 'unknown', outcomes: [] })),
    warmupUntilMs: null,
    notes: [],
  };
}

/** What the Python side wrote, folded by knob (outcomes of several processes said once); the file is removed after. */
export function readKnobResults(file: string, knobs: KnobSettings): RunKnobs {
  const result = requestedKnobs(knobs);
  let text: string;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(Math.min(fs.fstatSync(fd).size, MAX_RESULTS_BYTES));
      const read = fs.readSync(fd, buffer, 0, buffer.length, 0);
      text = buffer.subarray(0, read).toString('utf8');
      if (read === MAX_RESULTS_BYTES)
        result.notes.push(`the knobs' results file is larger than ${MAX_RESULTS_BYTES / 1024 / 1024} MiB: only its start was read`);
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') result.notes.push(`the knobs' results could not be read: ${(error as Error).message}`);
    else if (Object.keys(knobsForPython(knobs)).length > 0) {
      result.notes.push('no Python process of this run reported on the knobs: the command may not be Python, or it ended before Python started');
    }
    return result;
  }
  const byKnob = new Map<string, KnobOutcome[]>();
  const seen = new Set<string>();
  const lines = text.split('\n');
  // A last line without its newline was cut short by a kill: not read.
  if (!text.endsWith('\n')) lines.pop();
  for (const line of lines) {
    if (line.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    const torch = torchLine.safeParse(parsed);
    if (torch.success) {
      result.torch ??= torch.data.torch;
      result.cuda ??= torch.data.cuda;
      continue;
    }
    const outcome = outcomeLine.safeParse(parsed);
    if (!outcome.success) continue;
    const { knob, warmupUntil, ...rest } = outcome.data;
    // The first compile to finish is the training's warm-up; a later one (a model loaded again for a test pass at the
    // end, word_language_model's) would make every step before it warm-up.
    if (warmupUntil !== undefined) result.warmupUntilMs = Math.min(result.warmupUntilMs ?? Infinity, warmupUntil * 1000);
    const key = JSON.stringify([knob, rest.status, rest.what, rest.reason, rest.file, rest.line]);
    if (seen.has(key)) continue;
    seen.add(key);
    const list = byKnob.get(knob) ?? [];
    list.push({ status: rest.status, what: rest.what, reason: rest.reason, file: rest.file, line: rest.line, via: rest.via });
    byKnob.set(knob, list);
  }
  for (const knob of result.knobs) {
    const outcomes = byKnob.get(knob.name) ?? [];
    byKnob.delete(knob.name);
    // `unused` from one process means nothing where another process applied it.
    const reached = outcomes.filter((o) => o.status !== 'unused');
    knob.outcomes = reached.length > 0 ? reached : outcomes;
    if (knob.value !== KNOB_OFF) knob.state = PRECEDENCE.find((state) => knob.outcomes.some((o) => o.status === state)) ?? 'unknown';
  }
  // Hooks that failed as a whole (`DataLoader`, `forward`) are the run's notes.
  for (const [name, outcomes] of byKnob) {
    for (const outcome of outcomes) result.notes.push(`${name}: ${outcome.status}${outcome.reason ? ` (${outcome.reason})` : ''}`);
  }
  return result;
}
