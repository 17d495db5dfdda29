// `tuning-bench run`: one command or workload in a pty, its output streamed here and recorded.
import type { Core } from '../../core/createCore.js';
import { DEFAULT_TERMINAL } from '../../core/runner/runManager.js';
import type { Run, TypedCommand } from '../../shared/api.js';
import { adHocWorkload } from '../../shared/typedCommand.js';
import { parseAssignment, templateVariables, valueProblem } from '../../shared/variables.js';
import { formatRunDetails } from '../format.js';
import { UsageError } from '../errors.js';
import { stepChoicesFrom } from './steps.js';
import { contractClient, workloadNamed } from '../contract.js';
import type { GpuRunSettings } from '../../shared/gpuSettings.js';
import type { ProfileOptions } from '../../shared/profile.js';
import { withConfirmation } from './gpu.js';
import { StopSignals } from '../stopSignals.js';
import { knobOfVariable, knobsAsConfig, knobsOfConfig, KnobError, parseKnobAssignment, type KnobSettings } from '../../shared/knobs.js';

export interface RunCommandOptions {
  workload?: string;
  cwd: string;
  set: string[];
  timeout?: number;
  maxSteps?: number;
  /** With maxSteps: go on past the count until the logged steps span this long. */
  minSeconds?: number;
  tokensPerStep?: number;
  samplesPerStep?: number;
  warmupSteps?: string;
  excludeSteps?: string;
  commandArgs: string[];
  json: boolean;
  /** For the run's duration only: journaled, applied before it starts, restored after. */
  gpuSettings?: GpuRunSettings;
  /** Lock even though other processes use the GPU (--yes). */
  confirm?: boolean;
  /** Profile a window of steady steps (--profile). */
  profile?: ProfileOptions | undefined;
  /** `--knob NAME=VALUE` (or a switch's NAME alone): standard speed-ups applied without changing the script. */
  knob?: string[];
}

/**
 * The run's knobs: each `--knob`, and any `--set knob.NAME=VALUE` (as a sweep writes them), checked; an unknown knob
 * or a bad value is refused with the valid ones named.
 */
export function parseKnobs(knobArgs: readonly string[], values: Record<string, string>): KnobSettings {
  const knobs: KnobSettings = {};
  try {
    Object.assign(knobs, knobsOfConfig(values));
  } catch (error) {
    if (error instanceof KnobError) throw new UsageError(`--set ${error.message}`);
    throw error;
  }
  for (const text of knobArgs) {
    const parsed = parseKnobAssignment(text);
    if (!parsed.ok) throw new UsageError(`--knob ${parsed.error}`);
    knobs[parsed.name] = parsed.value;
  }
  return knobs;
}

/** `--set` values, read by the shared variable model (an empty value leaves a flag out). */
export function parseAssignments(assignments: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const assignment of assignments) {
    const parsed = parseAssignment(assignment);
    if ('error' in parsed) throw new UsageError(`--set ${parsed.error}`);
    values[parsed.name] = parsed.value;
  }
  return values;
}

/**
 * A command typed after `--` with `{var}` placeholders is a template, as in a sweep and the UI: `--set` gives
 * its values. Each `--set` must name a placeholder, and each placeholder of a value must get one.
 */
function typedRunCommand(commandArgs: readonly string[], cwd: string, values: Record<string, string>): TypedCommand | null {
  const specs = templateVariables(commandArgs, 'argv');
  const unused = Object.keys(values).filter((name) => !specs.some((spec) => spec.name === name));
  if (unused.length > 0) {
    const name = unused[0]!;
    throw new UsageError(
      `--set ${name}=...: the command has no {${name}} placeholder. Write {${name}} where the value goes, ` +
        `e.g. \`tuning-bench run --set ${name}=16 -- python train.py --${name} {${name}}\`` +
        (specs.length > 0 ? ` (its placeholders: ${specs.map((spec) => spec.name).join(', ')})` : ''),
    );
  }
  for (const spec of specs) {
    // Said, never assumed: a placeholder with no --set at all is a value forgotten, even where empty would leave a flag out.
    if (values[spec.name] === undefined) {
      throw new UsageError(
        `the command has {${spec.name}}: give its value with --set ${spec.name}=VALUE` +
          (spec.kind === 'flag' ? ` (--set ${spec.name}= leaves it out: a flag such as --amp, there or not)` : ''),
      );
    }
    const problem = valueProblem(spec, values[spec.name], (name) => `--set ${name}=16`);
    if (problem !== null) throw new UsageError(problem);
  }
  return specs.length === 0 ? null : { template: [...commandArgs], mode: 'argv', cwd };
}

export async function runCommand(core: Core, options: RunCommandOptions): Promise<void> {
  // Before anything is applied or started: a signal from here on stops cleanly whatever exists by then.
  const stops = new StopSignals();
  try {
    await recordRun(core, options, stops);
  } finally {
    stops.dispose();
  }
}

async function recordRun(core: Core, options: RunCommandOptions, stops: StopSignals): Promise<void> {
  if (options.minSeconds !== undefined && options.maxSteps === undefined) {
    throw new UsageError('--min-seconds stretches a step limit: give --max-steps N with it (e.g. --max-steps 30 --min-seconds 5)');
  }
  const assigned = parseAssignments(options.set);
  const knobs = parseKnobs(options.knob ?? [], assigned);
  const values = Object.fromEntries(Object.entries(assigned).filter(([name]) => knobOfVariable(name) === null));
  // Recorded in the run's config as `knob.NAME`, where re-runs and comparisons find them like any value.
  const knobConfig = Object.keys(knobs).length > 0 ? { extraConfig: knobsAsConfig(knobs) } : {};
  const terminal = {
    cols: process.stdout.isTTY ? Math.max(20, process.stdout.columns) : DEFAULT_TERMINAL.cols,
    rows: process.stdout.isTTY ? Math.max(5, process.stdout.rows) : DEFAULT_TERMINAL.rows,
  };

  if (options.tokensPerStep !== undefined && options.samplesPerStep !== undefined) {
    throw new UsageError('give --tokens-per-step or --samples-per-step, not both');
  }
  const unitsPerStep =
    options.tokensPerStep === undefined && options.samplesPerStep === undefined
      ? null
      : { tokens: options.tokensPerStep ?? null, samples: options.samplesPerStep ?? null };

  const choices = stepChoicesFrom(options);
  const steps = choices ? { ...choices, setBy: 'run' as const } : undefined;
  let run: Run;
  if (options.workload !== undefined) {
    if (options.commandArgs.length > 0) throw new UsageError('give either --workload NAME or a COMMAND after --, not both');
    const workload = await workloadNamed(core, options.workload);
    run = await withConfirmation(options.confirm === true, (confirm) =>
      core.startRun({
        workload,
        values,
        timeoutSeconds: options.timeout,
        maxSteps: options.maxSteps,
        minStepSeconds: options.minSeconds,
        unitsPerStep,
        steps,
        profile: options.profile,
        ...knobConfig,
        ...terminal,
        gpuSettings: options.gpuSettings,
        confirmOtherProcesses: confirm,
        stopBeforeStart: stops.signal,
      }),
    );
  } else {
    if (options.commandArgs.length === 0) {
      throw new UsageError('nothing to run: give --workload NAME, or a command after --, e.g. `tuning-bench run -- python train.py`');
    }
    const typed = typedRunCommand(options.commandArgs, options.cwd, values);
    const adHoc = { command: options.commandArgs, cwd: options.cwd };
    run = await withConfirmation(options.confirm === true, (confirm) =>
      core.startRun({
        ...(typed === null ? { workload: null, values: {}, adHoc } : { workload: adHocWorkload(typed), values }),
        timeoutSeconds: options.timeout,
        maxSteps: options.maxSteps,
        minStepSeconds: options.minSeconds,
        unitsPerStep,
        steps,
        profile: options.profile,
        ...knobConfig,
        ...terminal,
        gpuSettings: options.gpuSettings,
        confirmOtherProcesses: confirm,
        stopBeforeStart: stops.signal,
      }),
    );
  }

  // With --json, stdout carries only the final object; the live output goes to stderr.
  const live = options.json ? process.stderr : process.stdout;
  const subscription = core.subscribe((event, payload) => {
    if (event === 'runs.onOutput' && payload.runId === run.id) live.write(payload.data);
    // A full disk, a busy database, GPU settings not restored: said here as on the run page.
    if (event === 'runs.onTelemetryStatus' && payload.runId === run.id) {
      const status = payload;
      if (status.level !== 'info' || /resumed/u.test(status.message)) process.stderr.write(`\ntuning-bench: ${status.message}\n`);
    }
  });
  // After SIGHUP the terminal is gone: a write to it fails with EIO, which must not end the process before the run is stopped.
  const ignoreClosedTerminal = () => undefined;
  process.stdout.on('error', ignoreClosedTerminal);
  process.stderr.on('error', ignoreClosedTerminal);
  const api = contractClient(core);
  // A run that has just ended cannot be stopped: nothing to say then.
  stops.onStop((reason) => void api['runs.stop']({ id: run.id, reason }).catch(() => undefined));

  try {
    const finished = await core.waitForExit(run.id);
    if (!options.json && finished.outputBytes > 0) live.write('\n');
    process.stdout.write(options.json ? `${JSON.stringify(finished, null, 2)}\n` : `${formatRunDetails(finished)}\n`);
    if (options.profile && !options.json) {
      const profile = await api['profiles.get']({ runId: finished.id });
      for (const line of [...(profile?.diagnosis ?? []), ...(profile?.notes ?? [])]) process.stdout.write(`  profile   ${line}\n`);
      process.stdout.write(`  profile   \`tuning-bench profile ${finished.id}\` for the bottleneck table (--json for all of it)\n`);
    }
    // The command never started: that is not "the command ran", whatever it would have returned.
    if (finished.exitClass === 'not_found') process.exitCode = 1;
    // A full disk or a long lock kept the ending out of the file (unstoredEndings tries once more): the exit status says so.
    if (core.unstoredEndings().includes(finished.id)) {
      process.stderr.write(
        `tuning-bench: run ${finished.id} could not be recorded in ${core.dbPath}: the disk is full or another process holds the file. Its ending above is not stored; the run will show as interrupted.\n`,
      );
      process.exitCode = 1;
    }
  } finally {
    subscription.unsubscribe();
  }
}
