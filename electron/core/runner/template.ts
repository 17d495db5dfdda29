// Turns a workload's templates and a run's values into the exact argv, cwd and env that will run.
import type { Workload } from '../../shared/api.js';
import { templateVariables, valueProblem, VARIABLE_NAME_SOURCE } from '../../shared/variables.js';

/** Placeholders the engine fills itself, whatever the workload declares. */
export interface BuiltinValues {
  /** The app's bundled resources directory. */
  resources: string;
  /** A Node.js binary (under Electron: Electron itself, run as Node). */
  node: string;
}

export interface ExpandedCommand {
  command: string[];
  cwd: string;
  env: Record<string, string>;
  /** Every declared variable with the value this run used. */
  config: Record<string, string>;
}

export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}

const PLACEHOLDER = new RegExp(`\\{(${VARIABLE_NAME_SOURCE})\\}`, 'gu');
const LEADING_PLACEHOLDER = new RegExp(`^\\{(${VARIABLE_NAME_SOURCE})\\}`, 'u');
const WHOLE_PLACEHOLDER = new RegExp(`^\\{(${VARIABLE_NAME_SOURCE})\\}$`, 'u');

/** Quotes one value for a POSIX shell: safe characters as they are, anything else in single quotes. */
export function shellQuote(value: string): string {
  if (value !== '' && /^[\w@%+=:,./-]+$/u.test(value)) return value;
  return `'${value.replace(/'/gu, `'\\''`)}'`;
}

/**
 * Fills a shell script's placeholders so each value is one literal word wherever it was written: bare,
 * inside "double quotes" or inside 'single quotes'. Quoting only bare placeholders is not enough: in
 * `"{v}"` a single-quoted value is still open to `$(...)`, and in `'{v}'` the value's own quotes close the
 * script's. So the script's quote is closed, the value single-quoted, and the quote reopened.
 */
export function fillShellScript(script: string, valueOf: (name: string) => string, flags: ReadonlySet<string> = new Set()): string {
  let out = '';
  let quote: 'none' | 'single' | 'double' = 'none';
  for (let i = 0; i < script.length;) {
    const char = script[i]!;
    const placeholder = char === '{' ? LEADING_PLACEHOLDER.exec(script.slice(i)) : null;
    if (placeholder) {
      const value = valueOf(placeholder[1]!);
      const end = i + placeholder[0].length;
      // A flag variable (each of its places a whole unquoted word, see shared/variables.ts) left empty is no word at all, not ''.
      const absent = value === '' && flags.has(placeholder[1]!);
      const quoted = absent ? '' : shellQuote(value);
      out += quote === 'single' ? `'${quoted}'` : quote === 'double' ? `"${quoted}"` : quoted;
      i = end;
      continue;
    }
    if (char === '\\' && quote !== 'single') {
      // An escaped character is literal (and an escaped quote does not open or close anything).
      out += script.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (char === "'" && quote !== 'double') quote = quote === 'single' ? 'none' : 'single';
    else if (char === '"' && quote !== 'single') quote = quote === 'double' ? 'none' : 'double';
    out += char;
    i += 1;
  }
  return out;
}

/** The shell that runs a shell-mode workload's script. */
export const SHELL = '/bin/sh';

export function expandWorkload(
  workload: Pick<Workload, 'name' | 'command' | 'cwd' | 'env' | 'variables'> & { mode?: Workload['mode'] },
  values: Record<string, string>,
  builtins: BuiltinValues,
): ExpandedCommand {
  const declared = new Set(workload.variables.map((v) => v.name));
  const unknown = Object.keys(values).filter((name) => !declared.has(name));
  if (unknown.length > 0) {
    const known = [...declared].join(', ') || 'none';
    throw new TemplateError(`workload "${workload.name}" has no variable ${unknown.join(', ')} (it has: ${known})`);
  }
  const config: Record<string, string> = {};
  // Own properties only: a variable named `constructor` or `toString` must never read the object's method.
  for (const variable of workload.variables) config[variable.name] = Object.hasOwn(values, variable.name) ? values[variable.name]! : variable.default;
  const lookup: Record<string, string> = { ...config, resources: builtins.resources, node: builtins.node };
  const mode = workload.mode ?? 'argv';
  const specs = templateVariables(workload.command, mode);
  // A value variable left empty would run as `--batch_size ''`: refused with the fix; a flag's empty value is its absence.
  for (const spec of specs) {
    if (!(spec.name in config)) continue;
    const problem = valueProblem(spec, config[spec.name]);
    if (problem !== null) throw new TemplateError(problem);
  }
  const flags = new Set(specs.filter((spec) => spec.kind === 'flag').map((spec) => spec.name));

  const fill = (template: string, where: string, quote: (value: string) => string = (v) => v): string =>
    template.replace(PLACEHOLDER, (_match, name: string) => {
      const value = Object.hasOwn(lookup, name) ? lookup[name] : undefined;
      if (value === undefined) {
        throw new TemplateError(`${where} uses {${name}}, which is neither a variable of "${workload.name}" nor a built-in`);
      }
      return quote(value);
    });

  let command: string[];
  if (mode === 'shell') {
    if (workload.command.length !== 1) throw new TemplateError(`a shell-mode command is one script string`);
    // Every value is quoted for the place it lands (bare, or inside the script's own quotes), so a value is
    // always literal text of the script, never code.
    const script = workload.command[0]!;
    fill(script, 'the script'); // names every unknown placeholder, as elsewhere
    command = [SHELL, '-c', fillShellScript(script, (name) => lookup[name]!, flags)];
  } else {
    // Each template element stays exactly one argument: a value with spaces is never re-split. A flag variable
    // left empty takes its argument with it (`python train.py {amp}` with amp='' runs without the flag).
    command = workload.command
      .map((arg, i) => fill(arg, `argument ${i + 1}`))
      .filter((_arg, i) => {
        const whole = WHOLE_PLACEHOLDER.exec(workload.command[i]!);
        return !(whole && flags.has(whole[1]!) && lookup[whole[1]!] === '');
      });
  }
  const env: Record<string, string> = {};
  for (const [key, template] of Object.entries(workload.env)) env[key] = fill(template, `env ${key}`);
  return { command, cwd: fill(workload.cwd, 'cwd'), env, config };
}

/**
 * The directory a workload's command runs in, without checking its values (a sweep's `git=` plan needs the
 * repository before any config's values are settled).
 */
export function expandCwd(workload: Pick<Workload, 'name' | 'cwd' | 'variables'>, builtins: BuiltinValues): string {
  const lookup: Record<string, string> = { resources: builtins.resources, node: builtins.node };
  for (const variable of workload.variables) lookup[variable.name] = variable.default;
  return workload.cwd.replace(PLACEHOLDER, (match, name: string) => lookup[name] ?? match);
}
