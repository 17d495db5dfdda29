// What a variable of a command is, decided in one place for `run`, `sweep`, the engine and the UI: its name, its kind, and which values it may take.
import { KNOB_PREFIX } from './knobs.js';

/*
 * A command (a registered workload's template, or one typed for a run or a sweep) names its variables
 * with `{name}` placeholders. Two kinds:
 *   - a VALUE variable sits inside an argument or a word (`--batch_size {batch}` has it as the whole next
 *     argument, but `--batch_size={batch}`, `bs{batch}` and `--batch_size {batch}` all need a value there):
 *     it must not be empty, since `--batch_size ''` is never what anyone meant;
 *   - a FLAG variable is a whole argument (or a whole word of a shell script) on its own that does not
 *     follow an option (`-x`, `--name`), so nothing around it needs it: `python train.py {amp}`. Its value
 *     may be empty, and an empty value means the argument is absent, so `--vary amp=,--amp` sweeps
 *     argparse's `store_true` flags (and `{extra}` can be `--compile --fused`, or nothing).
 * A placeholder written both ways is a value variable. `{resources}` and `{node}` are the engine's own.
 *
 * Extending the model (tokens per step as `{batch}*{seq}`, knobs as `knob.autocast`) means adding a kind or
 * a name grammar here; every face reads variables through these functions.
 */

/** A variable's name: letters, digits and `_`, not starting with a digit. */
export const VARIABLE_NAME_SOURCE = '[A-Za-z_][A-Za-z0-9_]*';
const VARIABLE_NAME = new RegExp(`^${VARIABLE_NAME_SOURCE}$`, 'u');
/** Placeholders in a template, globally. */
const PLACEHOLDERS = new RegExp(`\\{(${VARIABLE_NAME_SOURCE})\\}`, 'gu');
/** A template element that is one placeholder and nothing else: a flag variable's place. */
const WHOLE_PLACEHOLDER = new RegExp(`^\\{(${VARIABLE_NAME_SOURCE})\\}$`, 'u');

/** Placeholders the engine fills itself (see runner/template.ts BuiltinValues): never a variable of the command. */
export const BUILTIN_PLACEHOLDERS: ReadonlySet<string> = new Set(['resources', 'node']);

export type VariableKind = 'value' | 'flag';

export interface VariableSpec {
  name: string;
  kind: VariableKind;
}

export type CommandMode = 'argv' | 'shell';

export function isVariableName(name: string): boolean {
  return VARIABLE_NAME.test(name);
}

/** Placeholder names in a piece of text, in order of first appearance, builtins included. */
export function placeholderNames(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(PLACEHOLDERS)) if (!names.includes(match[1]!)) names.push(match[1]!);
  return names;
}

/** An option's word (`-b`, `--batch_size`): a placeholder right after one is that option's value. */
function isOption(word: string | undefined): boolean {
  return word !== undefined && /^--?[A-Za-z]/u.test(word);
}

/**
 * Every variable a template names, in order of first appearance, with its kind: `flag` where each of its
 * placeholders stands alone (a whole argv element; a whole unquoted word of a shell script) and follows no
 * option, else `value`.
 */
export function templateVariables(template: readonly string[], mode: CommandMode): VariableSpec[] {
  const order: string[] = [];
  const embedded = new Set<string>();
  const note = (name: string, alone: boolean) => {
    if (BUILTIN_PLACEHOLDERS.has(name)) return;
    if (!order.includes(name)) order.push(name);
    if (!alone) embedded.add(name);
  };
  if (mode === 'argv') {
    template.forEach((element, i) => {
      const whole = WHOLE_PLACEHOLDER.exec(element);
      if (whole) note(whole[1]!, !isOption(template[i - 1]));
      else for (const name of placeholderNames(element)) note(name, false);
    });
  } else {
    for (const script of template) for (const { name, alone } of shellPlaceholders(script)) note(name, alone);
  }
  return order.map((name) => ({ name, kind: embedded.has(name) ? 'value' : 'flag' }));
}

/**
 * The placeholders of a shell script, each with whether it is a whole unquoted word (whitespace, `;`, `|`,
 * `&`, `(`, `)` or the script's ends around it) and so a flag's place. Quotes and backslashes are followed as
 * fillShellScript (runner/template.ts) follows them.
 */
export function shellPlaceholders(script: string): Array<{ name: string; alone: boolean }> {
  const found: Array<{ name: string; alone: boolean }> = [];
  let quote: 'none' | 'single' | 'double' = 'none';
  for (let i = 0; i < script.length;) {
    const char = script[i]!;
    if (char === '{') {
      const match = new RegExp(`^\\{(${VARIABLE_NAME_SOURCE})\\}`, 'u').exec(script.slice(i));
      if (match) {
        const end = i + match[0].length;
        const alone = quote === 'none' && isShellWordBreak(script[i - 1]) && isShellWordBreak(script[end]) && !isOption(wordBefore(script, i));
        found.push({ name: match[1]!, alone });
        i = end;
        continue;
      }
    }
    if (char === '\\' && quote !== 'single') {
      i += 2;
      continue;
    }
    if (char === "'" && quote !== 'double') quote = quote === 'single' ? 'none' : 'single';
    else if (char === '"' && quote !== 'single') quote = quote === 'double' ? 'none' : 'double';
    i += 1;
  }
  return found;
}

/** The whitespace-separated word before position `at` of a script, if any. */
function wordBefore(script: string, at: number): string | undefined {
  const words = script.slice(0, at).trimEnd().split(/\s+/u);
  return words.at(-1) || undefined;
}

/** Whether a character ends a shell word (or there is none: the script's ends). */
export function isShellWordBreak(char: string | undefined): boolean {
  return char === undefined || /[\s;|&()]/u.test(char);
}

/**
 * Why a value cannot be this variable's, with what to give instead; null when it can. `give` writes how this
 * face takes a value (`--set batch=16` in the CLI; the default is `batch=16`).
 */
export function valueProblem(spec: VariableSpec, value: string | undefined, give: (name: string) => string = (name) => `${name}=16`): string | null {
  if (value === undefined || value === '') {
    if (spec.kind === 'flag') return null;
    return (
      `{${spec.name}} has no value: the command needs one where it is written. Give it (${give(spec.name)}), ` +
      `or, for a flag that is there or not, write {${spec.name}} alone as an argument (python train.py {${spec.name}}) and give it --amp or nothing`
    );
  }
  return null;
}

/** A variable's value as a person reads it: a flag's empty value is the flag left out. */
export function describeValue(value: string): string {
  return value === '' ? '(absent)' : value;
}

/** `NAME=VALUE` (as `--set` takes it; the value may be empty, for a flag), or why not. */
export function parseAssignment(text: string): { name: string; value: string } | { error: string } {
  const equals = text.indexOf('=');
  const name = equals < 0 ? text : text.slice(0, equals);
  if (equals < 0 || !isAssignable(name)) {
    return { error: `takes VAR=VALUE (a variable name is letters, digits and _, e.g. batch=16; amp= leaves a flag out), got "${text}"` };
  }
  return { name, value: text.slice(equals + 1) };
}

/**
 * `NAME=V1,V2,...` (as `--vary` takes it): the first value is the baseline's. A value may be empty where the
 * variable is a flag (`amp=,--amp`: without, then with); whether it may is decided with the command (valueProblem).
 */
/** A variable of the command, or a knob (`knob.autocast`: applied in the run, never in the command). */
function isAssignable(name: string): boolean {
  return isVariableName(name) || (name.startsWith(KNOB_PREFIX) && isVariableName(name.slice(KNOB_PREFIX.length)));
}

export function parseVary(text: string): { name: string; values: string[] } | { error: string } {
  const equals = text.indexOf('=');
  const name = equals < 0 ? text : text.slice(0, equals);
  if (equals < 0 || !isAssignable(name) || equals === text.length - 1) {
    return { error: `takes VAR=V1,V2,... (the first value is the baseline's; amp=,--amp sweeps a flag without and with), got "${text}"` };
  }
  return { name, values: text.slice(equals + 1).split(',') };
}
