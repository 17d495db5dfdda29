// A start request made into a stored run and everything needed to spawn it: the command checked, the record inserted, the child's environment, the program found.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Run, RunTypedCommand } from '../../shared/api.js';
import { ApiFailure } from '../../shared/api.js';
import { RUN_MARKER_VARIABLE } from '../system/processTree.js';
import { resolveCommand, unrunnablePath } from '../system/resolveCommand.js';
import { channelFileFor, childEnvironment, loadFileFor } from './childEnvironment.js';
import type { RunProfiler } from './collaborators.js';
import type { RunContext, StartRequest } from './runContext.js';
import { TYPED_COMMAND_WORKLOAD_ID } from '../../shared/typedCommand.js';
import type { ExpandedCommand } from './template.js';
import { KnobError, knobsOfConfig, type KnobSettings } from '../../shared/knobs.js';
import { knobsEnvironment, requestedKnobs } from './knobResults.js';

/** A run stored and ready to spawn. */
export interface RunLaunch {
  record: Run;
  startedAt: Date;
  /** The program as found on PATH (or in cwd), and its arguments. */
  file: string;
  args: string[];
  cwd: string;
  /** The child's whole environment. */
  env: Record<string, string>;
  /** The command's values (for the units in one step). */
  config: Record<string, string>;
  channelFile: string;
  loadFile: { path: string; owned: boolean };
  /** Set when the run is profiled. */
  profiler: RunProfiler | undefined;
  /** The run's marker, in every one of its processes' environment (RUN_MARKER_VARIABLE): how escaped ones are found. */
  processMarker: string;
  /** The knobs asked for (its config's `knob.NAME` values) and the file the Python side reports them in; null without knobs. */
  knobs: { settings: KnobSettings; resultsFile: string } | null;
}

/** A run stored whose program does not exist: it ends at once, with no session. */
export interface UnfoundProgram {
  record: Run;
  program: string;
  cwd: string;
}

/**
 * Checks the command (a bad one throws before anything is stored), inserts the run's record with its GPU settings,
 * and finds the program. `expanded` is the workload's command with these values (or the ad-hoc one).
 */
export function prepareLaunch(context: RunContext, request: StartRequest, base: ExpandedCommand): RunLaunch | UnfoundProgram {
  const { environment, runs } = context;
  const expanded: ExpandedCommand = { ...base, cwd: request.cwdOverride ?? base.cwd, config: { ...base.config, ...request.extraConfig } };
  const cwd = expanded.cwd;
  if (!fs.existsSync(cwd) || !fs.statSync(cwd).isDirectory()) {
    throw new ApiFailure('invalid_input', `the working directory ${cwd} does not exist; create it or change the workload's cwd`);
  }
  const [program, ...args] = expanded.command;
  if (program === undefined || program === '') throw new ApiFailure('invalid_input', 'the command is empty');
  // A script without its execute bit, or a folder: bad input with its fix, never a stored "not found".
  const unrunnable = unrunnablePath(program, cwd);
  if (unrunnable !== null) throw new ApiFailure('invalid_input', unrunnable);
  // Knobs are config values (`knob.NAME`: from --knob, a sweep's --vary, a re-run's config), checked before anything is stored.
  let knobs: KnobSettings;
  try {
    knobs = knobsOfConfig(expanded.config);
  } catch (error) {
    if (error instanceof KnobError) throw new ApiFailure('invalid_input', error.message);
    throw error;
  }
  const hasKnobs = Object.keys(knobs).length > 0;
  const profiler = request.profile ? environment.profiler : undefined;
  if (request.profile && !profiler) throw new ApiFailure('unavailable', 'this engine was built without step profiles');

  const startedAt = environment.clock.now();
  const runEnv = { ...expanded.env };
  // 96 random bits: no other run's processes, on this machine or from another database, carry the same.
  const processMarker = crypto.randomBytes(12).toString('hex');
  const record = runs.insert({
    // A typed command of a sweep stands in for a workload (id 0) but is not one.
    workloadId: request.workload && request.workload.id > 0 ? request.workload.id : null,
    workloadName: request.workload && request.workload.id > 0 ? request.workload.name : null,
    command: expanded.command,
    cwd,
    config: expanded.config,
    env: runEnv,
    startedAt,
    enginePid: environment.engine.pid,
    engineStartTicks: environment.engine.startTicks,
    processMarker,
    sweep: request.sweep ?? null,
    unitsPerStep: request.unitsPerStep ?? null,
    steps: request.steps ?? null,
    checkout: request.checkout ?? null,
    typedCommand: typedCommandOf(request, base),
    knobs: hasKnobs ? requestedKnobs(knobs) : null,
  });
  if (request.gpuSettingsInForce) runs.setGpuSettings(record.id, request.gpuSettingsInForce);
  request.gpuLease?.attachRun(record.id);

  const channelFile = channelFileFor(environment, record.id);
  const loadFile = loadFileFor(environment, runEnv, record.id);
  fs.rmSync(channelFile, { force: true });
  const knobsFile = hasKnobs ? knobsFileFor(channelFile) : null;
  if (knobsFile) fs.rmSync(knobsFile, { force: true });
  const env: Record<string, string> = {
    ...childEnvironment(environment, program, runEnv, record.id, channelFile),
    TUNING_BENCH_LOAD_FILE: loadFile.path,
    ...(profiler && request.profile ? profiler.environment(record.id, request.profile) : {}),
    ...(knobsFile ? knobsEnvironment(knobsFile, knobs) : {}),
    // Last: a marker inherited from an engine that itself runs inside a run is replaced by this run's.
    [RUN_MARKER_VARIABLE]: processMarker,
  };
  const file = resolveCommand(program, cwd, env.PATH);
  if (file === null) return { record, program, cwd };
  const runKnobs = knobsFile ? { settings: knobs, resultsFile: knobsFile } : null;
  return { record, startedAt, file, args, cwd, env, config: expanded.config, channelFile, loadFile, profiler, processMarker, knobs: runKnobs };
}

/** The knobs' results file, beside the run's channel file (same folder, same run and engine). */
function knobsFileFor(channelFile: string): string {
  return channelFile.replace(/\.jsonl$/u, '.knobs.jsonl');
}

/**
 * A typed command stands in for a workload of id 0 (shared/typedCommand.ts): kept as typed, with the values that filled
 * its {variables} (the command's own, before a sweep's `git=`), so it can be edited and run again as typed.
 */
function typedCommandOf(request: StartRequest, base: ExpandedCommand): RunTypedCommand | null {
  const { workload } = request;
  if (!workload || workload.id !== TYPED_COMMAND_WORKLOAD_ID) return null;
  return { template: workload.command, mode: workload.mode, cwd: workload.cwd, values: base.config };
}
