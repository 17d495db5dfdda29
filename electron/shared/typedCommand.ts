// A command typed by the user (New run, New sweep, the CLI) stands in for a workload: its {var} placeholders are its variables.
import type { TypedCommand, Workload } from './api.js';

/** A typed command stands in for a workload: its `{var}` placeholders are its variables. */
export function adHocWorkload(command: TypedCommand): Workload {
  const names = new Set<string>();
  for (const part of command.template) for (const match of part.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/gu)) names.add(match[1]!);
  for (const builtin of ['resources', 'node']) names.delete(builtin);
  return {
    id: 0,
    name: 'ad-hoc command',
    description: '',
    cwd: command.cwd,
    mode: command.mode,
    command: command.template,
    tokensPerStep: '',
    metricRegex: '',
    steps: null,
    env: {},
    variables: [...names].map((name) => ({ name, default: '', description: '' })),
    builtin: false,
    createdAt: '',
  };
}
