// What the New run form starts with: the last command typed (remembered), or a copy of a run to edit and run again.
import type { Run, Workload } from '../../../electron/shared/api.js';
import { shellJoin } from '../shared/format.js';

export type RunSource = 'workload' | 'typed';

/** The form's fields that outlive it: what was run last, so the next New run starts there. */
export interface RememberedRunFields {
  source: RunSource;
  workloadId: number | null;
  typedScript: string;
  typedCwd: string;
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
    };
  } catch {
    // Storage switched off or a value from elsewhere: the form starts empty.
    return {};
  }
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
  /** The run's values of its workload's variables. */
  values: Record<string, string>;
  typedScript: string;
  typedCwd: string;
  perStep: string;
  perStepUnit: 'tokens' | 'samples';
}

/**
 * A run as the form's fields: its workload and values where its workload still makes that command, else its command
 * as a script typed here (a shell script as it was; an argv quoted as a shell would read it) in its directory.
 */
export function fieldsFromRun(run: Run, workloads: readonly Workload[]): FieldsFromRun {
  const perStep = run.unitsPerStep?.tokens ?? run.unitsPerStep?.samples ?? null;
  const units = { perStep: perStep === null ? '' : String(perStep), perStepUnit: run.unitsPerStep?.samples != null ? 'samples' : 'tokens' } as const;
  const workload = run.workloadId === null ? undefined : workloads.find((w) => w.id === run.workloadId);
  if (workload) return { source: 'workload', workloadId: workload.id, values: { ...run.config }, typedScript: '', typedCwd: '', ...units };
  const [program, flag, script] = run.command;
  const typedScript = program === '/bin/sh' && flag === '-c' && run.command.length === 3 && script !== undefined ? script : shellJoin(run.command);
  return { source: 'typed', workloadId: null, values: {}, typedScript, typedCwd: run.cwd, ...units };
}
