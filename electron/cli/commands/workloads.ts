// `tuning-bench workloads [add | edit | rm]`: registered command templates, through the engine's contract.
import type { Core } from '../../core/createCore.js';
import type { Workload, WorkloadInput } from '../../shared/api.js';
import { contractClient, workloadNamed } from '../contract.js';
import { UsageError } from '../errors.js';
import { parseAssignments } from './run.js';
import { stepChoicesFrom } from './steps.js';
import { whereThePersonStands } from '../../core/paths.js';

export interface WorkloadOptions {
  cwd?: string;
  shell?: boolean;
  description?: string;
  tokensPerStep?: string;
  regex?: string;
  env: string[];
  var: string[];
  warmupSteps?: string;
  excludeSteps?: string;
}

export function formatWorkloads(workloads: readonly Workload[]): string {
  return workloads
    .map((w) => {
      const vars = w.variables.map((v) => `${v.name}=${v.default}`).join(' ');
      const steps = w.steps
        ? [
            w.steps.warmupSteps !== null ? `warm-up steps: ${w.steps.warmupSteps}` : '',
            w.steps.excludeSteps.length > 0 ? `steps left out: ${w.steps.excludeSteps.join(', ')}` : '',
          ]
        : [];
      const extras = [w.tokensPerStep ? `tokens/step: ${w.tokensPerStep}` : '', w.metricRegex ? `regex: ${w.metricRegex}` : '', ...steps].filter(Boolean);
      return [`${w.name}${w.builtin ? ' (built-in)' : ''}`, `  ${w.command.join(' ')}`, `  variables: ${vars || 'none'}`, ...extras.map((e) => `  ${e}`)].join(
        '\n',
      );
    })
    .join('\n');
}

/** `{var}` placeholders in the template become variables (their default: `--var NAME=DEFAULT`, else empty). */
function variablesOf(command: readonly string[], defaults: Record<string, string>, previous: Workload['variables'] = []): Workload['variables'] {
  const names = new Set<string>();
  for (const part of command) for (const match of part.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/gu)) names.add(match[1]!);
  for (const name of Object.keys(defaults)) {
    if (!names.has(name)) throw new UsageError(`--var ${name}: the command has no {${name}} placeholder`);
  }
  return [...names]
    .filter((name) => !['resources', 'node'].includes(name))
    .map((name) => {
      const before = previous.find((v) => v.name === name);
      return { name, default: defaults[name] ?? before?.default ?? '', description: before?.description ?? '' };
    });
}

export async function addWorkload(core: Core, name: string, command: string[], options: WorkloadOptions, json: boolean): Promise<void> {
  if (command.length === 0) throw new UsageError('give the command after --, e.g. `tuning-bench workloads add mine -- python train.py --batch {batch}`');
  const template = options.shell ? [command.join(' ')] : command;
  const input: WorkloadInput = {
    name,
    description: options.description ?? '',
    cwd: options.cwd ?? whereThePersonStands(),
    mode: options.shell ? 'shell' : 'argv',
    command: template,
    tokensPerStep: options.tokensPerStep ?? '',
    metricRegex: options.regex ?? '',
    env: parseAssignments(options.env),
    variables: variablesOf(template, parseAssignments(options.var)),
    steps: stepChoicesFrom(options) ?? null,
  };
  const created = await contractClient(core)['workloads.create'](input);
  process.stdout.write(json ? `${JSON.stringify(created, null, 2)}\n` : `registered ${created.name}\n${formatWorkloads([created])}\n`);
}

export async function editWorkload(core: Core, name: string, command: string[], options: WorkloadOptions & { rename?: string }, json: boolean): Promise<void> {
  const current = await workloadNamed(core, name);
  const template = command.length === 0 ? current.command : options.shell ? [command.join(' ')] : command;
  const mode = command.length === 0 ? current.mode : options.shell ? 'shell' : 'argv';
  const input: WorkloadInput = {
    name: options.rename ?? current.name,
    description: options.description ?? current.description,
    cwd: options.cwd ?? current.cwd,
    mode,
    command: template,
    tokensPerStep: options.tokensPerStep ?? current.tokensPerStep,
    metricRegex: options.regex ?? current.metricRegex,
    env: options.env.length > 0 ? parseAssignments(options.env) : current.env,
    variables: variablesOf(template, parseAssignments(options.var), current.variables),
    steps: stepChoicesFrom(options) ?? current.steps,
  };
  const updated = await contractClient(core)['workloads.update']({ id: current.id, workload: input });
  process.stdout.write(
    json
      ? `${JSON.stringify(updated, null, 2)}\n`
      : `updated ${updated.name} (its runs keep what they ran; \`tuning-bench reparse ID\` parses one again with the new regex)\n${formatWorkloads([updated])}\n`,
  );
}

export async function removeWorkload(core: Core, name: string, json: boolean): Promise<void> {
  const current = await workloadNamed(core, name);
  await contractClient(core)['workloads.remove']({ id: current.id });
  process.stdout.write(json ? `${JSON.stringify({ removed: current.name })}\n` : `removed ${current.name}; its runs are kept\n`);
}
