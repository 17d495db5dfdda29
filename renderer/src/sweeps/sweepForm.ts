// The New sweep form's fields as typed, turned into a sweeps.plan / sweeps.start request (or what is wrong with them),
// and a batch the finder found put back into them.
import type { WorkKind } from '../shared/runForm/workKind.js';
import type { MethodInput, SweepRequest, TypedCommand, Workload } from '../../../electron/shared/api.js';
import { DEFAULT_MAX_WAIT_SECONDS, MAX_RUN_SECONDS, MAX_WAIT_SECONDS } from '../../../electron/shared/api.js';
import { parseMinutes } from '../shared/duration.js';
import { parseStepLimit } from '../shared/runForm/stepLimit.js';
import { sweepKnobsFromFields } from '../shared/runForm/knobFieldValues.js';

export type SweepPlanKind = SweepRequest['plan'];
export type SweepRequestInput = MethodInput<'sweeps.plan'>;
export type FindBatchInput = MethodInput<'sweeps.findBatch'>;

/** One varied variable: its values as typed, comma-separated, the first being the baseline's. */
export interface VaryField {
  name: string;
  values: string;
}

export interface SweepFields {
  /** Sweep a registered workload, or a command typed here whose {placeholders} are its variables. */
  source: 'workload' | 'typed';
  workloadId: number | null;
  /** The typed command: a script for /bin/sh -c, and the directory it runs in. */
  typedScript: string;
  typedCwd: string;
  name: string;
  /** Shared values as typed; a variable not typed here keeps the workload's default. */
  shared: Record<string, string>;
  vary: VaryField[];
  plan: SweepPlanKind;
  repeats: string;
  maxSteps: string;
  /** Minutes, as every duration in the app's forms (shared/duration.ts). */
  timeLimitMinutes: string;
  waitForIdle: boolean;
  maxWaitMinutes: string;
  /** What one step holds, as an expression over the variables (`{batch}`, `{batch}*{seq_len}`): per-sample or per-token throughput. */
  work: { kind: WorkKind; expression: string };
  /** Warm-up steps of every run, set by hand; '' for the automatic rule. */
  warmupSteps: string;
  finder: { variable: string; start: string; steps: string };
  /** The Knobs section: NAME to its values as typed, comma-separated (absent in drafts saved before knobs). */
  knobs?: Record<string, string>;
}

export const PLANS: ReadonlyArray<{ id: SweepPlanKind; name: string; explanation: string }> = [
  { id: 'one-at-a-time', name: 'One at a time', explanation: 'The baseline, then each other value alone against it: what each change does by itself.' },
  { id: 'ladder', name: 'Ladder', explanation: 'The baseline, then each step adds one more change to the step before: what the changes add up to, in order.' },
  { id: 'grid', name: 'Grid', explanation: 'Every combination of the values: shows how changes interact, but the run count multiplies.' },
];

/** The contract's bounds (electron/shared/api.ts sweepRequest). */
const MAX_REPEATS = 50;
/** The finder's default probe length (sweeps.findBatch maxSteps): long enough to allocate, short enough to be quick. */
export const FINDER_STEPS_DEFAULT = 20;
/** The variable the finder looks for first: most workloads call it this. */
const BATCH_VARIABLE = 'batch';

/** A fresh form for a workload: nothing varied yet but one row ready for its batch (or first) variable. */
export function initialSweepFields(workload: Workload | null): SweepFields {
  const names = workload?.variables.map((v) => v.name) ?? [];
  const first = names.includes(BATCH_VARIABLE) ? BATCH_VARIABLE : (names[0] ?? '');
  return {
    source: 'workload',
    workloadId: workload?.id ?? null,
    typedScript: '',
    typedCwd: '',
    name: '',
    shared: {},
    vary: first === '' ? [] : [{ name: first, values: '' }],
    plan: 'ladder',
    repeats: '3',
    maxSteps: '',
    timeLimitMinutes: '',
    waitForIdle: true,
    maxWaitMinutes: String(DEFAULT_MAX_WAIT_SECONDS / 60),
    work: { kind: 'none', expression: '' },
    warmupSteps: '',
    finder: { variable: first, start: '', steps: String(FINDER_STEPS_DEFAULT) },
  };
}

/** The typed command the fields hold, or null until both the command and its directory are given. */
export function typedCommandOf(fields: Pick<SweepFields, 'typedScript' | 'typedCwd'>): TypedCommand | null {
  const script = fields.typedScript.trim();
  const cwd = fields.typedCwd.trim();
  return script === '' || cwd === '' ? null : { template: [script], mode: 'shell', cwd };
}

/**
 * A typed command's variables follow its placeholders as they are typed: a varied row whose name is empty (or
 * no longer a placeholder) takes the first placeholder not yet varied, so `{batch}` typed is ready to vary.
 */
export function withTypedCommand(fields: SweepFields, workload: Workload): SweepFields {
  const names = workload.variables.map((v) => v.name);
  const taken = new Set(fields.vary.map((row) => row.name).filter((name) => names.includes(name)));
  const vary = fields.vary.map((row) => {
    if (names.includes(row.name)) return row;
    const free = names.find((name) => !taken.has(name)) ?? '';
    taken.add(free);
    return free === row.name ? row : { ...row, name: free };
  });
  return vary.every((row, index) => row === fields.vary[index]) ? fields : { ...fields, vary };
}

/** Another workload: its own variables, the rest of the settings kept. */
export function withWorkload(fields: SweepFields, workload: Workload): SweepFields {
  if (fields.workloadId === workload.id) return fields;
  const fresh = initialSweepFields(workload);
  return { ...fields, workloadId: workload.id, shared: {}, vary: fresh.vary, finder: { ...fresh.finder, steps: fields.finder.steps } };
}

/** "8, 16,32 " → ["8", "16", "32"]; empty items (a trailing comma) are dropped. */
export function splitValues(text: string): string[] {
  return text
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

/** The value a shared variable has in the form: as typed, else the workload's default. */
export function sharedValue(fields: SweepFields, workload: Workload, name: string): string {
  return fields.shared[name] ?? workload.variables.find((v) => v.name === name)?.default ?? '';
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

function wholeNumber(text: string, what: string, min: number, max: number): Parsed<number> {
  const trimmed = text.trim();
  if (!/^\d+$/u.test(trimmed)) return { ok: false, error: `${what}: give a whole number` };
  const value = Number(trimmed);
  if (value < min || value > max) return { ok: false, error: `${what}: give a whole number from ${min} to ${max}` };
  return { ok: true, value };
}

/**
 * The request the form describes, without GPU settings (the caller adds those). Shared values are every
 * variable not varied, as the form shows them, so the preview and the start see exactly what is on screen.
 */
export function parseSweepFields(fields: SweepFields, workload: Workload | null): Parsed<SweepRequestInput> {
  const typed = fields.source === 'typed' ? typedCommandOf(fields) : null;
  if (fields.source === 'typed' && typed === null) {
    return {
      ok: false,
      error: fields.typedScript.trim() === '' ? 'type the command to sweep, with {placeholders} for what varies' : 'give the directory the command runs in',
    };
  }
  if (!workload) return { ok: false, error: 'choose a workload' };
  if (typed && workload.variables.length === 0)
    return { ok: false, error: 'put a {placeholder} in the command where a value varies, e.g. --batch_size {batch}' };
  const known = new Set(workload.variables.map((v) => v.name));
  const vary: Array<{ name: string; values: string[] }> = [];
  for (const row of fields.vary) {
    const values = splitValues(row.values);
    if (row.name === '' && values.length === 0) continue;
    if (!known.has(row.name)) return { ok: false, error: `choose which variable to vary for the values “${row.values}”` };
    if (values.length === 0) return { ok: false, error: `${row.name}: give its values, comma-separated (the first is the baseline's)` };
    if (vary.some((v) => v.name === row.name)) return { ok: false, error: `${row.name} is varied twice: give all its values in one row` };
    vary.push({ name: row.name, values });
  }
  const knobs = sweepKnobsFromFields(fields.knobs ?? {});
  if (!knobs.ok) return knobs;
  vary.push(...knobs.vary);
  if (vary.length === 0) return { ok: false, error: 'vary at least one variable or knob: give it a baseline value and one or more to try' };

  const values: Record<string, string> = { ...knobs.shared };
  for (const variable of workload.variables) {
    if (!vary.some((v) => v.name === variable.name)) values[variable.name] = sharedValue(fields, workload, variable.name);
  }
  const repeats = wholeNumber(fields.repeats, 'Repeats', 1, MAX_REPEATS);
  if (!repeats.ok) return repeats;
  const maxSteps = parseStepLimit(fields.maxSteps);
  if (!maxSteps.ok) return { ok: false, error: `Per-run limit: ${maxSteps.error.replace(/^Stop after: /u, '')}` };
  const timeout = parseMinutes(fields.timeLimitMinutes, { what: 'Per-run limit', maxSeconds: MAX_RUN_SECONDS });
  if (!timeout.ok) return timeout;
  const maxWait = fields.waitForIdle
    ? parseMinutes(fields.maxWaitMinutes, { what: 'Wait at most', maxSeconds: MAX_WAIT_SECONDS, allowZero: true })
    : ({ ok: true, seconds: undefined } as const);
  if (!maxWait.ok) return maxWait;

  const work = parseWork(fields, workload);
  if (!work.ok) return work;
  const warmup = (fields.warmupSteps ?? '').trim();
  if (warmup !== '' && !/^\d+$/u.test(warmup)) return { ok: false, error: 'Warm-up steps: a whole number, or empty for the automatic rule' };

  const target = typed ? { command: typed } : { workloadId: workload.id };
  const request: SweepRequestInput = { ...target, values, vary, plan: fields.plan, repeats: repeats.value, waitForIdle: fields.waitForIdle, ...work.value };
  const name = fields.name.trim();
  if (name !== '') request.name = name;
  if (maxSteps.steps !== undefined) request.maxSteps = maxSteps.steps;
  if (timeout.seconds !== undefined) request.timeoutSeconds = timeout.seconds;
  if (maxWait.seconds !== undefined) request.maxWaitSeconds = maxWait.seconds;
  if (warmup !== '') request.steps = { warmupSteps: Number(warmup), excludeSteps: [] };
  return { ok: true, value: request };
}

/** The batch-size finder's request: the baseline's values (shared ones and each varied variable's first) for the rest. */
export function parseFinderFields(fields: SweepFields, workload: Workload | null): Parsed<FindBatchInput> {
  if (!workload) return { ok: false, error: 'choose a workload' };
  const { variable } = fields.finder;
  if (!workload.variables.some((v) => v.name === variable)) return { ok: false, error: 'choose the variable that sets the batch size' };
  const values: Record<string, string> = {};
  for (const v of workload.variables) values[v.name] = sharedValue(fields, workload, v.name);
  for (const row of fields.vary) {
    const first = splitValues(row.values)[0];
    if (first !== undefined && Object.hasOwn(values, row.name)) values[row.name] = first;
  }
  delete values[variable];
  const start = wholeNumber(fields.finder.start === '' ? finderStartDefault(fields, workload) : fields.finder.start, 'Start at', 1, 1 << 20);
  if (!start.ok) return start;
  const steps = wholeNumber(fields.finder.steps, 'Steps per probe', 1, Number.MAX_SAFE_INTEGER);
  if (!steps.ok) return steps;
  const work = parseWork(fields, workload);
  if (!work.ok) return work;
  return { ok: true, value: { workloadId: workload.id, values, variable, start: start.value, maxSteps: steps.value, ...work.value } };
}

/** A variable name that sets a step's work (the engine's list: electron/core/compare/compare.ts WORK_VARIABLE). */
const WORK_VARIABLE = /(?:^|_)(?:batch|bs|mbs|gbs|micro|seq|sequence|block|ctx|context|len|length|accum|accumulation)(?:_|$|size|len|steps)/iu;

/** The work expression the form suggests: `{batch}` when a batch-like variable exists. */
export function suggestedWork(workload: Workload | null): string {
  const batch = workload?.variables.find((v) => WORK_VARIABLE.test(v.name) && /batch|bs/iu.test(v.name));
  return batch ? `{${batch.name}}` : '';
}

/** The work per step the form gives, checked for placeholders the workload has. */
export function parseWork(fields: SweepFields, workload: Workload): Parsed<{ tokensPerStep?: string; samplesPerStep?: string }> {
  const work = fields.work ?? { kind: 'none', expression: '' };
  const expression = work.expression.trim();
  if (work.kind === 'none' || expression === '') return { ok: true, value: {} };
  const names = new Set(workload.variables.map((v) => v.name));
  for (const match of expression.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/gu)) {
    if (!names.has(match[1]!))
      return { ok: false, error: `Work per step: {${match[1]}} is not a variable of this command (it has ${[...names].map((n) => `{${n}}`).join(', ')})` };
  }
  if (!/^[\d\s+\-*/().{}A-Za-z_]+$/u.test(expression)) return { ok: false, error: 'Work per step: use {variables}, numbers and + - * / ( ) only' };
  return { ok: true, value: work.kind === 'tokens' ? { tokensPerStep: expression } : { samplesPerStep: expression } };
}

/** Where the finder starts unless told: the variable's value in the form when it is a whole number, else 1. */
export function finderStartDefault(fields: SweepFields, workload: Workload): string {
  const { variable } = fields.finder;
  const row = fields.vary.find((v) => v.name === variable);
  const value = row ? (splitValues(row.values)[0] ?? '') : sharedValue(fields, workload, variable);
  return /^[1-9]\d{0,6}$/u.test(value) ? value : '1';
}

/**
 * "Use 24": the finder's answer goes where the form uses that variable: appended to its varied values, or as
 * its shared value when it is not varied. A form on another workload switches to the finder's first.
 */
export function withFoundValue(fields: SweepFields, workload: Workload, variable: string, value: number): SweepFields {
  const base = withWorkload(fields, workload);
  const text = String(value);
  const row = base.vary.find((v) => v.name === variable);
  if (row) {
    const values = splitValues(row.values);
    if (values.includes(text)) return base;
    const next = values.length === 0 ? text : `${values.join(', ')}, ${text}`;
    return { ...base, vary: base.vary.map((v) => (v === row ? { ...v, values: next } : v)) };
  }
  return { ...base, shared: { ...base.shared, [variable]: text } };
}

/** Compares a preview with the form now: the same request, GPU settings included. */
export function requestKey(request: SweepRequestInput): string {
  return JSON.stringify(request);
}

/** Each variable's value in the baseline config: the first varied value, else the shared one (a saved workload's defaults). */
export function baselineValues(fields: SweepFields, workload: Workload): Record<string, string> {
  const values: Record<string, string> = {};
  for (const variable of workload.variables) {
    const row = fields.vary.find((v) => v.name === variable.name);
    values[variable.name] = row ? (splitValues(row.values)[0] ?? '') : sharedValue(fields, workload, variable.name);
  }
  return values;
}

/** What each of New sweep's sections gets: the form as it stands, and a change to merge into it. */
export interface SweepSectionProps {
  fields: SweepFields;
  onChange: (change: Partial<SweepFields>) => void;
}
