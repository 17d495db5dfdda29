// `tuning-bench steps RUN_ID --warmup N --exclude LIST`: a run's warm-up and left-out steps set by hand, its summary
// made again from what it stored; and the same flags for `run`, `sweep` and `workloads add|edit`.
import type { Core } from '../../core/createCore.js';
import type { Run } from '../../shared/api.js';
import { contractClient } from '../contract.js';
import { UsageError } from '../errors.js';
import { formatRunDetails } from '../format.js';

export interface StepFlags {
  /** A whole number of steps, or `auto` for the automatic rule. */
  warmupSteps?: string;
  /** Steps to leave out: `40,41,90-95`. */
  excludeSteps?: string;
}

/** Most steps one `--exclude-steps` may name (a range counts each step): the contract's bound. */
const MAX_EXCLUDED = 10_000;

/** `40,41,90-95` → [40, 41, 90, 91, 92, 93, 94, 95]. */
export function parseStepList(text: string): number[] {
  const steps = new Set<number>();
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const range = /^(\d+)(?:-(\d+))?$/u.exec(part);
    if (!range) throw new UsageError(`--exclude-steps takes steps and ranges, e.g. 40,41,90-95; "${part}" is neither`);
    const from = Number(range[1]);
    const to = range[2] === undefined ? from : Number(range[2]);
    if (to < from) throw new UsageError(`--exclude-steps: the range ${part} runs backwards`);
    if (to - from + steps.size >= MAX_EXCLUDED)
      throw new UsageError(`--exclude-steps names more than ${MAX_EXCLUDED} steps; set warm-up steps for a long start instead`);
    for (let step = from; step <= to; step++) steps.add(step);
  }
  return [...steps].sort((a, b) => a - b);
}

function warmupOf(text: string): number | null {
  if (text === 'auto') return null;
  if (!/^\d+$/u.test(text)) throw new UsageError(`--warmup-steps takes a whole number of steps, or auto for the automatic rule; got "${text}"`);
  return Number(text);
}

/** The choices the flags give; undefined when neither flag was given. */
export function stepChoicesFrom(flags: StepFlags): { warmupSteps: number | null; excludeSteps: number[] } | undefined {
  if (flags.warmupSteps === undefined && flags.excludeSteps === undefined) return undefined;
  return {
    warmupSteps: flags.warmupSteps === undefined ? null : warmupOf(flags.warmupSteps),
    excludeSteps: flags.excludeSteps === undefined ? [] : parseStepList(flags.excludeSteps),
  };
}

export async function stepsCommand(core: Core, id: number, flags: StepFlags, json: boolean): Promise<void> {
  const current = await contractClient(core)['runs.get']({ id });
  const given = stepChoicesFrom(flags);
  // Only what is given changes: `--exclude-steps` alone keeps the warm-up set before.
  const own = current.steps;
  const choices = {
    warmupSteps: flags.warmupSteps === undefined ? (own?.warmupSteps ?? null) : given!.warmupSteps,
    excludeSteps: flags.excludeSteps === undefined ? (own?.excludeSteps ?? []) : given!.excludeSteps,
  };
  if (given === undefined) {
    process.stdout.write(json ? `${JSON.stringify(current.steps, null, 2)}\n` : `${describeSteps(current)}\n`);
    return;
  }
  const run = await contractClient(core)['runs.setSteps']({ id, ...choices });
  process.stdout.write(json ? `${JSON.stringify(run, null, 2)}\n` : `${describeSteps(run)}\n${formatRunDetails(run)}\n`);
}

function describeSteps(run: Run): string {
  if (run.steps === null) return `run ${run.id}: no steps set by hand (the automatic warm-up rule, and its workload's choices if any)`;
  const warmup = run.steps.warmupSteps === null ? 'warm-up by the automatic rule' : `warm-up ${run.steps.warmupSteps} steps`;
  const left = run.steps.excludeSteps.length === 0 ? 'no steps left out' : `steps left out: ${run.steps.excludeSteps.join(', ')}`;
  return `run ${run.id}: ${warmup}, ${left} (set by the ${run.steps.setBy})`;
}
