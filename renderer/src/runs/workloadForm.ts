// Turns the New workload form's text fields into a workloads.create input; the API validates the rest.
import type { WorkloadInput } from '../../../electron/shared/api.js';

/** `argv`: one argument per line; `shell`: the whole text is one script for /bin/sh -c. */
export type CommandMode = 'argv' | 'shell';

export interface WorkloadFormFields {
  name: string;
  mode: CommandMode;
  description: string;
  cwd: string;
  command: string;
  env: string;
  variables: string;
  /** Arithmetic of the variables (`{batch} * {seq_len}`); '' when the log gives tokens/s itself or there are no tokens. */
  tokensPerStep: string;
  /** A regex with named groups; '' for the built-in parsers only. */
  metricRegex: string;
}

/** A stored workload back into the form's text fields, to edit it. */
export function workloadToForm(workload: WorkloadInput): WorkloadFormFields {
  return {
    name: workload.name,
    mode: workload.mode ?? 'argv',
    description: workload.description ?? '',
    cwd: workload.cwd,
    command: workload.mode === 'shell' ? (workload.command[0] ?? '') : workload.command.join('\n'),
    env: Object.entries(workload.env)
      .map(([key, value]) => `${key}=${value}`)
      .join('\n'),
    variables: workload.variables.map((v) => `${v.name}=${v.default}`).join('\n'),
    tokensPerStep: workload.tokensPerStep ?? '',
    metricRegex: workload.metricRegex ?? '',
  };
}

export type ParsedWorkloadForm = { ok: true; input: WorkloadInput } | { ok: false; error: string };

function lines(text: string): { text: string; number: number }[] {
  return text
    .split('\n')
    .map((line, index) => ({ text: line.replace(/\r$/u, ''), number: index + 1 }))
    .filter((line) => line.text.trim() !== '');
}

/** One argument per line, kept exactly as typed: an argument may contain spaces, and nothing re-splits it. */
export function parseCommandLines(text: string): string[] {
  return lines(text).map((line) => line.text);
}

/** `KEY=VALUE` (or `name=default`) per line; `#` starts a comment line. */
function parseAssignments(text: string, what: string, valueRequired: boolean): Record<string, string> | string {
  const result: Record<string, string> = {};
  for (const line of lines(text)) {
    const trimmed = line.text.trim();
    if (trimmed.startsWith('#')) continue;
    const eq = trimmed.indexOf('=');
    if (eq === 0 || (eq < 0 && valueRequired)) return `${what} line ${line.number}: expected NAME=VALUE, got “${trimmed}”`;
    const key = (eq < 0 ? trimmed : trimmed.slice(0, eq)).trim();
    if (Object.hasOwn(result, key)) return `${what} line ${line.number}: ${key} is given twice`;
    result[key] = eq < 0 ? '' : trimmed.slice(eq + 1);
  }
  return result;
}

/** The script as typed, less the blank lines around it (a textarea collects those); the engine runs it with sh -c. */
export function parseShellScript(text: string): string {
  return text
    .replace(/\r\n/gu, '\n')
    .replace(/^\s*\n/u, '')
    .trimEnd();
}

export function parseWorkloadForm(fields: WorkloadFormFields): ParsedWorkloadForm {
  // The API refuses an empty argv, but would take an empty script (one empty element): that is caught here.
  const script = fields.mode === 'shell' ? parseShellScript(fields.command) : null;
  if (script === '') return { ok: false, error: 'the script is empty' };
  const command = script === null ? parseCommandLines(fields.command) : [script];
  const env = parseAssignments(fields.env, 'env', true);
  if (typeof env === 'string') return { ok: false, error: env };
  const variables = parseAssignments(fields.variables, 'variables', false);
  if (typeof variables === 'string') return { ok: false, error: variables };
  return {
    ok: true,
    input: {
      name: fields.name,
      description: fields.description,
      cwd: fields.cwd.trim(),
      mode: fields.mode,
      command,
      env,
      variables: Object.entries(variables).map(([name, value]) => ({ name, default: value, description: '' })),
      tokensPerStep: fields.tokensPerStep.trim(),
      // As typed: a space at either end of a pattern may be meant.
      metricRegex: fields.metricRegex,
    },
  };
}
