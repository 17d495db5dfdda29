// What the New run form starts with: the last command typed (remembered), or a copy of a run to edit and run again.
import type { Run, Workload } from '../../../electron/shared/api.js';
import { knobOfVariable } from '../../../electron/shared/knobs.js';
import { shellJoin } from '../shared/format.js';

export type RunSource = 'workload' | 'typed';

/** The form's fields that outlive it: what was run last, so the next New run starts there. */
export interface RememberedRunFields {
  source: RunSource;
  workloadId: number | null;
  typedScript: string;
  typedCwd: string;
  /** The values given to the typed command's {variables}. */
  typedValues: Record<string, string>;
}

const REMEMBERED_KEY = 'tuning-bench.newRun';

export function readRememberedRunFields(): Partial<RememberedRunFields> {
  try {
    const parsed: unknown = JSON.parse(window.localStorage.getItem(REMEMBERED_KEY) ?? '{}');
    if (parsed === null || typeof parsed !== 'object') return {};
    const fields = parsed as Record<string, unknown>;
    return {
      ...(fields.source === 'workload' || fields.source === 'typed' ? { source: fields.source } : {}),
      ...(typeof fields.workloadId === 'number' ? { workloadId: fields.workloadId } : {}),
      ...(typeof fields.typedScript === 'string' ? { typedScript: fields.typedScript } : {}),
      ...(typeof fields.typedCwd === 'string' ? { typedCwd: fields.typedCwd } : {}),
      ...(isStringRecord(fields.typedValues) ? { typedValues: fields.typedValues } : {}),
    };
  } catch {
    // Storage switched off or a value from elsewhere: the form starts empty.
    return {};
  }
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string');
}

export function rememberRunFields(fields: RememberedRunFields): void {
  try {
    window.localStorage.setItem(REMEMBERED_KEY, JSON.stringify(fields));
  } catch {
    // Not remembered, and nothing else lost.
  }
}

/** The form filled in from a run, to change one thing and run it again. */
export interface FieldsFromRun {
  source: RunSource;
  workloadId: number | null;
  /** The run's values of its workload's variables, or of its typed command's. */
  values: Record<string, string>;
  typedScript: string;
  typedCwd: string;
  perStep: string;
  perStepUnit: 'tokens' | 'samples';
  /** The knobs the run asked for (its config's `knob.NAME` values), as the Knobs section's fields. */
  knobs: Record<string, string>;
}

/**
 * A run as the form's fields: its workload and values where its workload still makes that command; else, for a run of
 * a typed command, the command as it was typed with its {variables} and their values (in the directory typed, not a
 * before/after side's temporary worktree); else (a run stored before typed commands were kept) the command that ran,
 * as a script typed here (a shell script as it was; an argv quoted as a shell would read it) in its directory.
 */
export function fieldsFromRun(run: Run, workloads: readonly Workload[]): FieldsFromRun {
  const perStep = run.unitsPerStep?.tokens ?? run.unitsPerStep?.samples ?? null;
  const knobs: Record<string, string> = {};
  const variables: Record<string, string> = {};
  for (const [key, value] of Object.entries(run.config)) {
    const knob = knobOfVariable(key);
    if (knob === null) variables[key] = value;
    else knobs[knob] = value;
  }
  const units = { perStep: perStep === null ? '' : String(perStep), perStepUnit: run.unitsPerStep?.samples != null ? 'samples' : 'tokens', knobs } as const;
  const workload = run.workloadId === null ? undefined : workloads.find((w) => w.id === run.workloadId);
  if (workload) return { source: 'workload', workloadId: workload.id, values: variables, typedScript: '', typedCwd: '', ...units };
  const typed = run.typedCommand;
  if (typed)
    return {
      source: 'typed',
      workloadId: null,
      values: { ...typed.values },
      typedScript: typed.mode === 'shell' ? typed.template.join(' ') : asScript(typed.template),
      typedCwd: typed.cwd,
      ...units,
    };
  return { source: 'typed', workloadId: null, values: {}, typedScript: asScript(run.command), typedCwd: run.cwd, ...units };
}

/** An argv as the typed field holds it: a `/bin/sh -c` script as it was, else quoted as a shell would read it. */
function asScript(command: readonly string[]): string {
  const [program, flag, script] = command;
  return program === '/bin/sh' && flag === '-c' && command.length === 3 && script !== undefined ? script : shellJoin(command);
}
