// Workloads: registered command templates with their variables, and typed commands.
import { z } from 'zod';
import { LIMITS, empty, name, ok, stepChoices, varName } from './common.js';

export const workloadVariable = z.object({
  name: varName,
  default: z.string().max(LIMITS.argChars),
  description: z.string().max(500).default(''),
  /** This variable seeds the workload's randomness: each sweep repeat gets its own value unless the sweep pins it. */
  seed: z.boolean().optional(),
});

export const commandMode = z.enum(['argv', 'shell']);

export const workloadFields = z.object({
  name,
  description: z.string().max(2000).default(''),
  /** Directory the command runs in; `{resources}` names the app's bundled resources. */
  cwd: z.string().min(1).max(LIMITS.argChars),
  /**
   * `argv`: each element is one argument, `{var}` placeholders substituted, never re-split.
   * `shell`: one element, a script for `/bin/sh -c`, each value substituted shell-quoted.
   */
  mode: commandMode.default('argv'),
  command: z.array(z.string().max(LIMITS.argChars)).min(1).max(LIMITS.argCount),
  /** Tokens in one step as arithmetic of the variables (`{batch} * {seq_len}`), to derive tokens/s; '' when unknown. */
  tokensPerStep: z.string().max(500).default(''),
  /** The workload's own metric pattern: a regex whose named groups are metrics (`step (?<step>\\d+).*loss (?<loss>[\\d.]+)`). */
  metricRegex: z.string().max(2000).default(''),
  /** Warm-up and left-out steps for every run of the workload (a run's or sweep's own win); null: the automatic rules. */
  steps: stepChoices.nullable().default(null),
  env: z.record(varName, z.string().max(LIMITS.argChars)).refine((e) => Object.keys(e).length <= LIMITS.envKeys, {
    message: `at most ${LIMITS.envKeys} environment variables`,
  }),
  variables: z.array(workloadVariable).max(LIMITS.variables),
});

export const workloadInput = workloadFields.refine((w) => w.mode === 'argv' || w.command.length === 1, {
  message: 'a shell-mode command is one script string',
  path: ['command'],
});

export const workload = workloadFields.extend({
  id: z.number().int().positive(),
  builtin: z.boolean(),
  createdAt: z.string(),
});

/** What a sweep is asked to do: the same for the plan preview and the start. */
/** A command typed for a run or a sweep, with `{var}` placeholders (no workload registered): values are quoted by the app. */
export const typedCommand = z.object({
  template: z.array(z.string().min(1).max(LIMITS.argChars)).min(1).max(LIMITS.argCount),
  mode: commandMode.default('argv'),
  cwd: z.string().min(1).max(LIMITS.argChars),
});

export type WorkloadVariable = z.output<typeof workloadVariable>;

export type TypedCommand = z.output<typeof typedCommand>;

export type Workload = z.output<typeof workload>;

export type WorkloadInput = z.input<typeof workloadInput>;

/** Workload methods: `workloads.*`. */
export const workloadMethods = {
  'workloads.list': { input: empty, output: z.array(workload) },
  'workloads.create': { input: workloadInput, output: workload },
  /** Changes a workload the user registered (built-in ones are fixed); its runs keep what they ran with. */
  'workloads.update': { input: z.object({ id: z.number().int().positive(), workload: workloadInput }), output: workload },
  /** Removes a workload the user registered; its runs stay, named as they were. */
  'workloads.remove': { input: z.object({ id: z.number().int().positive() }), output: ok },
  'workloads.preview': {
    input: z.object({
      workloadId: z.number().int().positive().optional(),
      /** A typed command instead of a workload. */
      command: typedCommand.optional(),
      values: z.record(varName, z.string().max(LIMITS.argChars)),
    }),
    output: z.object({ command: z.array(z.string()), cwd: z.string(), env: z.record(z.string(), z.string()) }),
  },
} as const;
