// A command typed by the user (New run, New sweep, the CLI) stands in for a workload: its {var} placeholders are its variables.
import type { TypedCommand, Workload } from './api.js';
import { templateVariables } from './variables.js';

/** The id a typed command's stand-in workload has: no stored workload has it (ids start at 1). */
export const TYPED_COMMAND_WORKLOAD_ID = 0;

/** A typed command stands in for a workload: its `{var}` placeholders are its variables (see variables.ts for their kinds). */
export function adHocWorkload(command: TypedCommand): Workload {
  const names = templateVariables(command.template, command.mode).map((spec) => spec.name);
  return {
    id: TYPED_COMMAND_WORKLOAD_ID,
    name: 'ad-hoc command',
    description: '',
    cwd: command.cwd,
    mode: command.mode,
    command: command.template,
    tokensPerStep: '',
    metricRegex: '',
    steps: null,
    env: {},
    variables: names.map((name) => ({ name, default: '', description: '' })),
    builtin: false,
    createdAt: '',
  };
}
