#!/usr/bin/env node
// tuning-bench: the engine on the command line, for headless boxes and scripts (contract in DESIGN.md).
import fs from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { createCore, type Core } from '../core/createCore.js';
import type { ReadOnlyState } from '../core/store/store.js';
import { defaultDatabasePath, defaultRendererDir, whereThePersonStands } from '../core/paths.js';
import { checkDatabaseFile, setAsideDatabase, unwritableReason } from '../core/store/open.js';
import { ApiFailure, DEFAULT_GATE_ABSOLUTE, type Run } from '../shared/api.js';
import { knobList } from '../shared/knobs.js';
import { formatRunDetails, formatRunTable } from './format.js';
import { runCommand } from './commands/run.js';
import { importCommand, reparseCommand } from './commands/ingest.js';
import { addWorkload, editWorkload, formatWorkloads, removeWorkload, type WorkloadOptions } from './commands/workloads.js';
import { stepsCommand, type StepFlags } from './commands/steps.js';
import { findBatchCommand, sweepCommand, type SweepCommandOptions } from './commands/sweep.js';
import { tuneCommand, type TuneCommandOptions } from './commands/tune.js';
import { compareCommand, type CompareCommandOptions } from './commands/compare.js';
import { importMlflowCommand, publishCommand, type PublishCommandOptions } from './commands/mlflow.js';
import { profileCommand, profileSettings, type ProfileCommandOptions } from './commands/profile.js';
import { addGpuCommands, addGpuRunOptions, restoreAbandonedGpuSettings, runSettingsFrom, type GpuCliOptions } from './commands/gpu.js';
import { EXIT_BAD_ARGUMENTS, exitStatusOf, parseRunId, UsageError, wholeNumberOption } from './errors.js';
import { contractClient, naming } from './contract.js';

interface ProfileFlags {
  profile?: boolean;
  profileWarmup?: number;
  profileSteps?: number;
}

interface GlobalOptions {
  db?: string;
  json?: boolean;
  /** Whether the command records something (a run, an import, a workload): only such a command may make a new database. */
  records?: boolean;
}

/** Commands that record something, so a database named for them may be new; every other command only reads one. */
const RECORDING_COMMANDS: ReadonlySet<string> = new Set([
  'run',
  'sweep',
  'find-batch',
  'tune',
  'import',
  'serve',
  'gpu',
  'workloads add',
  'workloads edit',
  'workloads rm',
]);

function recordsSomething(words: string): boolean {
  return RECORDING_COMMANDS.has(words) || (RECORDING_COMMANDS.has(words.split(' ')[0] ?? '') && !words.startsWith('workloads'));
}

/** The command's words below the program (`workloads add`), to look up in RECORDING_COMMANDS. */
function commandWords(command: Command): string {
  const words: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) words.unshift(at.name());
  return words.join(' ');
}

/**
 * A database named by --db or TUNING_BENCH_DB that is not there is a typo far more often than a wish for
 * an empty one: a command that only reads refuses it (rather than say "no runs yet"), and no command makes
 * the folder of a named file. A recording command makes the file and says so. The default file (XDG) is
 * made, folder and all, as the app does on its first start.
 */
function checkNamedDatabase(options: GlobalOptions): void {
  const named = options.db ?? (process.env.TUNING_BENCH_DB || undefined);
  if (named === undefined || named === ':memory:' || fs.existsSync(named)) return;
  const source = options.db !== undefined ? '--db' : 'TUNING_BENCH_DB';
  const folder = path.dirname(path.resolve(named));
  if (options.records !== true) {
    throw new UsageError(
      `there is no database at ${named} (given by ${source}): check the path. ` +
        `Without ${source} the database is ${defaultDatabasePath({ ...process.env, TUNING_BENCH_DB: '' })}; a command that records (run, import, sweep) makes a new one`,
    );
  }
  if (!fs.existsSync(folder)) {
    throw new UsageError(
      `the folder of the database ${named} (given by ${source}) does not exist: check the path, or make the folder first (mkdir -p ${folder})`,
    );
  }
  process.stderr.write(`tuning-bench: a new database at ${named}\n`);
}

/** `gpu` picks the GPU to sample and control, as TUNING_BENCH_GPU would. */
function openCore(options: GlobalOptions, gpu?: string, reportPublishing = true): Core {
  checkNamedDatabase(options);
  const env = gpu === undefined ? process.env : { ...process.env, TUNING_BENCH_GPU: gpu };
  // A command that only reads still works on a file it cannot write (a full disk, a read-only copy): it says so.
  const dbPath = options.db ?? defaultDatabasePath(env);
  let core: Core;
  try {
    core = createCore({
      face: 'headless',
      env,
      dbPath,
      readOnlyFallback: options.records !== true,
      onMigrating: (message) => process.stderr.write(`${message}\n`),
    });
  } catch (error) {
    const reason = unwritableReason(dbPath, error);
    if (reason === null) throw error;
    throw new Error(
      `cannot record in ${dbPath}: ${reason}. Nothing was started. ${capitalised(writableAgain(dbPath, reason))}; commands that only read (runs, show, log, compare, db check) still work`,
      { cause: error },
    );
  }
  if (core.readOnly) process.stderr.write(`tuning-bench: ${readOnlyNotice(core.dbPath, core.readOnly)}\n`);
  // A run or sweep published on its own (TUNING_BENCH_MLFLOW_URI, or the setting) says where it went, or why not.
  core.subscribe((event, payload) => {
    if (event !== 'mlflow.onDidPublish' || options.json || !reportPublishing) return;
    const what = payload.runId !== null ? `run ${payload.runId}` : payload.sweepId !== null ? `sweep ${payload.sweepId}` : 'the comparison';
    if (payload.state === 'published') process.stderr.write(`tuning-bench: published ${what} to ${payload.trackingUri}: ${payload.url ?? ''}\n`);
    else if (payload.state === 'failed') process.stderr.write(`tuning-bench: could not publish ${what} to ${payload.trackingUri}: ${payload.error ?? ''}\n`);
  });
  return core;
}

/** What a person reading a file opened read-only should know: why, what may be missing, and what to do to record again. */
function readOnlyNotice(file: string, readOnly: ReadOnlyState): string {
  const missing =
    readOnly.unreadWalBytes > 0 ? `; its last changes (up to ${Math.ceil(readOnly.unreadWalBytes / 1024)} KiB in ${file}-wal) may not be shown` : '';
  return `${file} is open for reading only: ${readOnly.reason}${missing}. Nothing can be recorded in it until you ${writableAgain(file, readOnly.reason)}`;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What makes a file writable again, by why it was not. */
function writableAgain(file: string, reason: string): string {
  if (/disk .* is full/u.test(reason)) return `free space on the disk holding ${path.dirname(path.resolve(file))}`;
  if (/may not write/u.test(reason)) return 'make the file and its folder writable';
  return 'let SQLite write it again (check free space, a file-size limit (`ulimit -f`) and the disk)';
}

/** A write refused by a file open for reading only, said as such (SQLite says only "attempt to write a readonly database"). */
function explainReadOnlyWrite(error: unknown, core: Core): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (core.readOnly === null || typeof code !== 'string' || !code.startsWith('SQLITE_READONLY')) return error;
  return new Error(`this command needs to write to ${readOnlyNotice(core.dbPath, core.readOnly).replace(/^\S+ is open/u, 'the database, which is open')}`, {
    cause: error,
  });
}

/**
 * Every command first puts back GPU changes a crashed engine left (the CLI restores and says so; the
 * desktop and the headless UI ask first).
 */
async function withCore<T>(options: GlobalOptions, work: (core: Core) => Promise<T> | T, gpu?: string, reportPublishing = true): Promise<T> {
  const core = openCore(options, gpu, reportPublishing);
  try {
    // A file open for reading only keeps what it recorded as it is: putting settings back would need writing it.
    if (core.readOnly === null) {
      await reportSurvivors(core);
      await restoreAbandonedGpuSettings(core);
    }
    return await work(core);
  } catch (error) {
    throw explainReadOnlyWrite(namingTheDatabase(error, core), core);
  } finally {
    await core.close();
  }
}

/** Where a named run, sweep or workload was looked for, and how to list what is there: every command's "no run 999" reads the same. */
function namingTheDatabase(error: unknown, core: Core): unknown {
  if (!(error instanceof ApiFailure) || error.code !== 'not_found' || error.message.includes(core.dbPath)) return error;
  const what = /^no (run|sweep|workload)\b/u.exec(error.message)?.[1];
  const list = what === 'run' ? ' (`tuning-bench runs` lists them)' : what === 'workload' ? ' (`tuning-bench workloads` lists them)' : '';
  return new UsageError(`${error.message} in ${core.dbPath}${list}`);
}

function parsePerStep(what: string): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!/^\d+(\.\d+)?$/u.test(value) || !(number > 0)) throw new InvalidArgumentError(`${what} is a positive number, e.g. 8192`);
    return number;
  };
}

/** `1048576`, `512K`, `200M`, `2G` (powers of 1024). */
export function parseByteSize(value: string): number {
  const match = /^(\d+(?:\.\d+)?)([KMG]?)i?B?$/iu.exec(value.trim());
  if (!match) throw new InvalidArgumentError('a size is bytes, or a number with K, M or G (e.g. 4G)');
  const scale = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[match[2]!.toUpperCase() as '' | 'K' | 'M' | 'G'];
  const bytes = Math.floor(Number(match[1]) * scale);
  if (bytes < 1) throw new InvalidArgumentError('a size is at least 1 byte');
  return bytes;
}

/** Training processes that outlived the engine recording them: said on every command until they are stopped. */
async function reportSurvivors(core: Core): Promise<void> {
  for (const orphan of await contractClient(core)['runs.orphans']({})) {
    const pids = orphan.pids.join(' ');
    process.stderr.write(
      `tuning-bench: run ${orphan.runId} was interrupted, but its processes are still running (${orphan.pids.length === 1 ? 'process' : 'processes'} ${pids}: ${orphan.command.join(' ')}). ` +
        `Stop them with \`kill ${pids}\`, then \`kill -9 ${pids}\` for any that ignore it, or from the app's list of interrupted runs.\n`,
    );
  }
}

function requireRun(core: Core, id: number): Promise<Run> {
  return naming(contractClient(core)['runs.get']({ id }), `run ${id}`, core, 'list them with `tuning-bench runs`');
}

function print(json: boolean | undefined, value: unknown, text: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`);
}

export function buildProgram(): Command {
  const program = new Command('tuning-bench')
    .description('Measure ML training changes on one GPU workstation: run, record, compare.')
    .addOption(new Option('--db <file>', 'SQLite file (default: $TUNING_BENCH_DB, else ~/.local/share/tuning-bench/runs.db)'))
    .addOption(new Option('--json', 'machine-readable output'))
    .showHelpAfterError()
    .exitOverride();

  const globals = (command: Command): GlobalOptions => ({ ...command.optsWithGlobals<GlobalOptions>(), records: recordsSomething(commandWords(command)) });

  const seconds = (flag: string) => (value: string) => {
    const number = Number(value);
    if (!/^\d+(\.\d+)?$/u.test(value) || !Number.isFinite(number)) throw new InvalidArgumentError(`${flag} is a number of seconds, e.g. 5 (0 for none)`);
    return number;
  };
  const minSecondsHelp = (each: string) =>
    `with --max-steps, ${each} goes on past the count until its steps span this long, so fast steps are measured past their warm-up (default: the count alone)`;

  const run = program
    .command('run')
    .description('run a command (or a workload) in a pseudo-terminal and record it')
    .option('--workload <name>', 'a registered workload (see `tuning-bench workloads`)')
    .option('--cwd <dir>', 'working directory of an ad-hoc COMMAND (default: where you stand)', whereThePersonStands())
    .option('--set <var=value>', 'a workload variable (repeatable)', (value: string, previous: string[]) => [...previous, value], [])
    .option('--timeout <seconds>', 'stop the run after this many seconds', (value: string) => {
      const seconds = Number(value);
      if (!Number.isFinite(seconds) || seconds <= 0)
        throw new InvalidArgumentError(`--timeout takes a positive number of seconds (e.g. --timeout 600); got "${value}"`);
      return seconds;
    })
    .option('--max-steps <n>', 'stop the run once its metrics reach this step', wholeNumberOption({ flag: '--max-steps', counts: 'steps', example: '500' }))
    .option('--min-seconds <s>', minSecondsHelp('the run'), seconds('--min-seconds'))
    .option('--tokens-per-step <n>', 'tokens in one step, so throughput is given in tokens/s', parsePerStep('--tokens-per-step'))
    .option('--samples-per-step <n>', 'samples in one step (the batch size), so throughput is given in samples/s', parsePerStep('--samples-per-step'))
    .option('--warmup-steps <n>', 'warm-up steps set by hand (auto: the automatic rule)')
    .option('--exclude-steps <list>', 'steps left out of the steady statistics: 40,41,90-95')
    .option('--profile', 'profile a window of steady steps (PyTorch: torch.profiler, no change to the script); see `tuning-bench profile`')
    .option(
      '--profile-warmup <n>',
      'steps before the profiled window (default 10)',
      wholeNumberOption({ flag: '--profile-warmup', counts: 'steps', example: '10' }),
    )
    .option('--profile-steps <n>', 'steps in the profiled window (default 10)', wholeNumberOption({ flag: '--profile-steps', counts: 'steps', example: '10' }))
    .option(
      '--knob <name=value>',
      `a standard speed-up applied without changing the script (repeatable): ${knobList()}; each says where in the script it applied, or why not`,
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .option('--json', 'print the finished run as JSON')
    .argument('[command...]', 'the command after --, when no --workload is given');
  addGpuRunOptions(run).action(
    async (
      commandArgs: string[],
      options: {
        workload?: string;
        cwd: string;
        set: string[];
        knob: string[];
        timeout?: number;
        maxSteps?: number;
        minSeconds?: number;
        tokensPerStep?: number;
        samplesPerStep?: number;
      } & ProfileFlags &
        GpuCliOptions,
      command: Command,
    ) => {
      const global = globals(command);
      if (!options.profile && (options.profileWarmup !== undefined || options.profileSteps !== undefined)) {
        throw new UsageError('--profile-warmup and --profile-steps need --profile');
      }
      const profile = options.profile ? profileSettings(options.profileWarmup, options.profileSteps) : undefined;
      await withCore(
        global,
        (core) =>
          runCommand(core, {
            ...options,
            profile,
            commandArgs,
            json: global.json === true,
            gpuSettings: runSettingsFrom(options),
            confirm: options.yes === true,
          }),
        options.gpu,
      );
    },
  );

  const positiveInt = (flag: string, counts: string, example: string, takes?: string) =>
    wholeNumberOption({ flag, counts, example, ...(takes ? { takes } : {}) });
  const collect = (value: string, previous: string[]) => [...previous, value];
  const fraction = (what: string) => (value: string) => {
    const number = Number(value);
    if (!/^\d+(\.\d+)?$/u.test(value) || !Number.isFinite(number)) throw new InvalidArgumentError(`${what} is a number, e.g. 0.05`);
    return number;
  };

  const sweep = program
    .command('sweep')
    .description('run a plan of configs as one experiment: repeats interleaved, one run at a time, on a quiet GPU')
    .option('--workload <name>', 'a registered workload')
    .option('--set <var=value>', 'a value every config shares (repeatable)', collect, [])
    .option(
      '--vary <var=v1,v2>',
      "a variable and its values, the first the baseline's (repeatable); git=REV1,REV2[,WORKTREE] runs each in a temporary worktree; " +
        'knob.NAME=off,VALUE tries a knob without changing the script (see run --knob)',
      collect,
      [],
    )
    .addOption(
      new Option('--plan <plan>', 'one-at-a-time: each change alone; ladder: each step adds one; grid: every combination')
        .choices(['one-at-a-time', 'ladder', 'grid'])
        .default('ladder'),
    )
    .option('--repeats <n>', 'runs per config, interleaved A B C A B C', positiveInt('--repeats', 'runs per config', '3'), 3)
    .option('--max-steps <n>', 'stop each run after this many steps', positiveInt('--max-steps', 'steps', '500'))
    .option('--min-seconds <s>', minSecondsHelp('each run'), seconds('--min-seconds'))
    .option('--timeout <seconds>', 'stop each run after this many seconds', positiveInt('--timeout', 'seconds', '600'))
    .option(
      '--tokens-per-step <expr>',
      "tokens in one step, from the sweep's variables: '{batch}*{seq_len}' (throughput per token; the script's own statement wins)",
    )
    .option('--samples-per-step <expr>', "samples in one step, from the sweep's variables: '{batch}' (throughput per sample)")
    .option('--min-effect <fraction>', 'a speedup whose 95 % interval lies inside 1 ± this is "same" (default 0.02)', fraction('--min-effect'))
    .option('--warmup-steps <n>', 'warm-up steps set by hand (auto: the automatic rule)')
    .option('--exclude-steps <list>', 'steps left out of the steady statistics: 40,41,90-95')
    .option('--no-wait-idle', 'do not wait for a quiet host and an idle, cool GPU before each run')
    .option('--max-wait <seconds>', 'longest wait for a quiet host and an idle, cool GPU before a run', positiveInt('--max-wait', 'seconds', '120'), 120)
    .option(
      '--resume <sweep-id>',
      'resume a sweep that was interrupted',
      positiveInt('--resume', 'sweeps', '4', 'the id of the interrupted sweep, as `tuning-bench sweep` printed it'),
    )
    .option('--json', 'print the finished sweep as JSON')
    .option('--cwd <dir>', 'working directory of a typed COMMAND (default: where you stand)', whereThePersonStands())
    .option('--shell', 'the typed COMMAND is one shell script (values are shell-quoted into it)')
    .option('--link <path>', 'with --vary git=...: a path (relative to the repository) linked into each worktree, e.g. data/ (repeatable)', collect, [])
    .option('--keep-worktrees', 'with --vary git=...: keep the temporary worktrees after the sweep')
    .argument('[command...]', 'a command after -- with {var} placeholders, instead of --workload');
  addGpuRunOptions(sweep).action(async (commandArgs: string[], options: Omit<SweepCommandOptions, 'json' | 'commandArgs'>, command: Command) => {
    const global = globals(command);
    await withCore(global, (core) => sweepCommand(core, { ...options, commandArgs, json: global.json === true }), options.gpu);
  });

  program
    .command('tune')
    .description(
      'try the standard speed-ups on an unmodified script, one at a time, keeping those that are faster and within the quality gate; prints the change that makes each kept one permanent',
    )
    .option(
      '--only <steps>',
      'the ladder, in order (default workers,autocast,tf32,cudnnBenchmark,compile,batch, with threads before batch when --threads is given; batch needs a {batch} placeholder)',
    )
    .option('--workers <n>', 'DataLoader workers tried (default 4)', positiveInt('--workers', 'workers', '4'))
    .addOption(new Option('--autocast <dtype>', 'autocast dtype tried (default bf16)').choices(['bf16', 'fp16']))
    .option('--threads <n>', 'torch.set_num_threads for the threads step', positiveInt('--threads', 'threads', '2'))
    .option(
      '--set <var=value>',
      "a {placeholder}'s value for every run; the batch's (--set batch=32) lets the batch step try larger ones (repeatable)",
      collect,
      [],
    )
    .option('--batch-var <name>', 'the placeholder that is the batch size (default batch)')
    .option('--samples-per-step <expr>', "samples in one step (default '{batch}' where the command has the placeholder)")
    .option('--tokens-per-step <expr>', "tokens in one step, from the placeholders: '{batch}*{seq_len}'")
    .option('--max-steps <n>', 'stop each run after this many steps (default 30 unless --timeout)', positiveInt('--max-steps', 'steps', '30'))
    .option('--steps <n>', 'the same as --max-steps', positiveInt('--steps', 'steps', '30'))
    .option(
      '--min-seconds <s>',
      'with the step limit, each run goes on until its steps span this long, so fast steps are measured past their warm-up (default 5; 0: the limit alone)',
      seconds('--min-seconds'),
    )
    .option('--timeout <seconds>', 'stop each run after this many seconds', positiveInt('--timeout', 'seconds', '60'))
    .option('--repeats <n>', "runs per side in a step's first round (default 2)", positiveInt('--repeats', 'runs', '2'))
    .option('--max-repeats <n>', 'the most runs per side a step takes while its verdict is undecided (default 4)', positiveInt('--max-repeats', 'runs', '4'))
    .option('--min-effect <fraction>', 'a speedup whose 95 % interval lies inside 1 ± this is "same" (default 0.02)', fraction('--min-effect'))
    .option('--no-wait-idle', 'do not wait for a quiet host and an idle, cool GPU before each run')
    .option('--max-wait <seconds>', 'longest wait for a quiet host and an idle, cool GPU before a run', positiveInt('--max-wait', 'seconds', '120'))
    .option('--cwd <dir>', 'working directory of the command (default: where you stand)', whereThePersonStands())
    .option('--shell', 'the command is one shell script')
    .option('--json', 'print the result as JSON')
    .option(
      '--resume <id>',
      'go on with a cancelled or interrupted tune from the first step it did not decide (no command)',
      positiveInt('--resume', 'id', '3'),
    )
    .option('--show <id>', 'print a tune as it was kept (ended, or as far as it has come), without running anything', positiveInt('--show', 'id', '3'))
    .option('--out <file>', 'also write the tune as a report: Markdown (.md) or one HTML page (.html)')
    .argument('[command...]', 'the command after --')
    .action(async (commandArgs: string[], options: Omit<TuneCommandOptions, 'json' | 'commandArgs'> & { steps?: number }, command: Command) => {
      const global = globals(command);
      const { steps, ...rest } = options;
      await withCore(global, (core) => tuneCommand(core, { ...rest, maxSteps: options.maxSteps ?? steps, commandArgs, json: global.json === true }));
    });

  program
    .command('find-batch')
    .description('the largest batch that fits: doubles it until out of memory, then bisects (short runs)')
    .option('--workload <name>', 'a registered workload')
    .option('--set <var=value>', 'a value every probe shares (repeatable)', collect, [])
    .option('--var <name>', 'the batch variable', 'batch')
    .option('--start <n>', 'the first batch tried', positiveInt('--start', 'samples in a batch', '8'), 1)
    .option('--max-steps <n>', 'steps per probe', positiveInt('--max-steps', 'steps', '20'), 20)
    .option('--json', 'print the finder as JSON')
    .action(async (options: { workload?: string; set: string[]; var: string; start: number; maxSteps: number }, command: Command) => {
      const global = globals(command);
      await withCore(global, (core) =>
        findBatchCommand(core, {
          workload: options.workload,
          set: options.set,
          variable: options.var,
          start: options.start,
          maxSteps: options.maxSteps,
          json: global.json === true,
        }),
      );
    });

  program
    .command('compare')
    .description('runs or sweeps side by side against a baseline, as a table to share')
    .argument('<ids...>', "run ids (12) and sweeps (s3 or sweep:3); a sweep's baseline is its first config")
    .option('--baseline <run-id>', 'the run whose config is the baseline', (value: string) => parseRunId(value))
    .addOption(new Option('--format <format>', 'output format').choices(['md', 'csv', 'json', 'html']).default('md'))
    .option('-o, --output <file>', 'write to this file (. for a generated name) instead of stdout')
    .addOption(new Option('--by <grouping>', 'one row per config (repeats pooled) or per run').choices(['config', 'run']).default('config'))
    .option(
      '--gate-metric <name>',
      'quality gate: metric compared (auto = final eval loss, else train loss at the matched point; or loss, eval_loss, accuracy, ...)',
      'auto',
    )
    .addOption(new Option('--gate-direction <better>', 'quality gate: which way is better for the metric').choices(['lower', 'higher']).default('lower'))
    .option('--gate-abs <amount>', 'quality gate: how much worse than the baseline passes', fraction('--gate-abs'), DEFAULT_GATE_ABSOLUTE)
    .option('--gate-rel <fraction>', 'quality gate: and at most this fraction of the baseline worse (off unless given)', fraction('--gate-rel'))
    .option('--no-gate-abs', 'quality gate: no absolute tolerance (use with --gate-rel)')
    .option('--no-gate', 'no quality gate at all')
    .option('--min-effect <fraction>', 'a speedup whose 95 % interval lies inside 1 ± this is "same" (default 0.02)', fraction('--min-effect'))
    .option('--across-machines', 'speedups between rows measured on different machines too (runs pulled back from MLflow); flagged, and none by default')
    .action(async (ids: string[], options: CompareCommandOptions, command: Command) => {
      await withCore(globals(command), (core) => compareCommand(core, ids, options));
    });

  program
    .command('publish')
    .description(
      'runs and sweeps (s3) to an MLflow tracking server: a sweep is a parent run with a child per run, its comparison as artifacts and verdict tags',
    )
    .argument('<ids...>', 'run ids (12) and sweeps (s3 or sweep:3)')
    .option(
      '--mlflow <uri>',
      "the tracking server, e.g. http://127.0.0.1:5000 (default: $TUNING_BENCH_MLFLOW_URI, else the app's setting); auth from MLFLOW_TRACKING_USERNAME/PASSWORD or MLFLOW_TRACKING_TOKEN",
    )
    .option('--experiment <name>', 'the MLflow experiment (default: $TUNING_BENCH_MLFLOW_EXPERIMENT, else the setting, else tuning-bench); made if missing')
    .option('--compare', 'publish the comparison of these runs and sweeps as one MLflow run too (its tables as artifacts)')
    .option('--baseline <run-id>', 'with --compare: the run whose config is the baseline', (value: string) => parseRunId(value))
    .option('--json', 'machine-readable output')
    .action(async (ids: string[], options: Omit<PublishCommandOptions, 'json'>, command: Command) => {
      const global = globals(command);
      // Its report says what went where; the lines for publications made on their own would repeat it.
      await withCore(global, (core) => publishCommand(core, ids, { ...options, json: global.json === true }), undefined, false);
    });

  program
    .command('import-mlflow')
    .description('runs another box published to MLflow, pulled back as read-only runs marked with their machine')
    .argument('[uri]', 'the tracking server (default: $TUNING_BENCH_MLFLOW_URI, else the setting)')
    .argument('[run-ids...]', 'MLflow run ids (32 hex characters); none: every Tuning Bench run of --experiment')
    .option('--experiment <name>', 'pull back every Tuning Bench run of this experiment')
    .option('--json', 'machine-readable output')
    .action(async (uri: string | undefined, ids: string[], options: { experiment?: string }, command: Command) => {
      const global = globals(command);
      // A lone run id in the first place: the server comes from the environment or the setting.
      const [server, runIds] = uri !== undefined && /^[0-9a-f]{32}$/u.test(uri) ? [undefined, [uri, ...ids]] : [uri, ids];
      await withCore(global, (core) => importMlflowCommand(core, server, runIds, { ...options, json: global.json === true }));
    });

  program
    .command('profile')
    .description("a run's step profile: top operators, phases per step, syncs, diagnosis, trace path")
    .argument('<run-id>', 'the run (its own profile, or the newest profiled re-run of its command)', parseRunId)
    .option('--rerun', 'run its command again with a window of steady steps profiled, then show that profile')
    .option('--warmup <n>', 'with --rerun: steps before the window (default 10)', wholeNumberOption({ flag: '--warmup', counts: 'steps', example: '10' }))
    .option('--steps <n>', 'with --rerun: steps in the window (default 10)', wholeNumberOption({ flag: '--steps', counts: 'steps', example: '10' }))
    .option('--baseline <run-id>', "beside this run's profile: which phases and operators got faster or slower", (value: string) => parseRunId(value))
    .addOption(new Option('--format <format>', 'md: the bottleneck table; json: the whole profile').choices(['md', 'json']).default('md'))
    .option('--json', 'the same as --format json')
    .action(async (id: number, options: Omit<ProfileCommandOptions, 'json' | 'rerun'> & { rerun?: boolean }, command: Command) => {
      const global = globals(command);
      await withCore(global, (core) => profileCommand(core, id, { ...options, rerun: options.rerun === true, json: global.json === true }));
    });

  const db = program.command('db').description('the database file: check it, or set a damaged one aside');
  db.command('check')
    .description("SQLite's integrity check of the database")
    .action(async (_options: unknown, command: Command) => {
      // Read-only and without the engine: it must work on the damaged file the engine refuses, and change nothing.
      const file = globals(command).db ?? defaultDatabasePath(process.env);
      const { problems, note } = checkDatabaseFile(file);
      process.stdout.write(`${file}: ${problems.join('\n')}\n`);
      if (note !== null) process.stderr.write(`tuning-bench: ${note}\n`);
      if (problems.length !== 1 || problems[0] !== 'ok') process.exitCode = 1;
    });
  db.command('set-aside')
    .description('rename a damaged database to <file>.damaged-<time> (kept, never deleted); the next start makes a fresh one')
    .action((_options: unknown, command: Command) => {
      const file = globals(command).db ?? defaultDatabasePath(process.env);
      if (!fs.existsSync(file)) throw new UsageError(`there is no database at ${file}`);
      const aside = setAsideDatabase(file);
      process.stdout.write(`${file} is now ${aside}; the next start creates a fresh database at ${file}.\n`);
    });

  addGpuCommands(program, {
    withCore: (command, gpu, work) => withCore(globals(command), work, gpu),
    json: (command) => globals(command).json === true,
  });

  program
    .command('show')
    .description('one run with its summary')
    .argument('<run-id>', 'the run', parseRunId)
    .option('--json', 'machine-readable output')
    .action(async (id: number, _options: unknown, command: Command) => {
      const global = globals(command);
      await withCore(global, async (core) => {
        const run = await requireRun(core, id);
        print(global.json, run, () => formatRunDetails(run));
      });
    });

  program
    .command('runs')
    .description('list runs, newest first')
    .option('--limit <n>', 'at most this many', wholeNumberOption({ flag: '--limit', counts: 'runs', example: '20' }), 100)
    .option('--json', 'machine-readable output')
    .action(async (options: { limit: number }, command: Command) => {
      const global = globals(command);
      await withCore(global, async (core) => {
        const runs = await contractClient(core)['runs.list']({ limit: options.limit });
        print(global.json, runs, () => formatRunTable(runs, process.stdout.isTTY ? process.stdout.columns : null));
      });
    });

  program
    .command('diff')
    .description('the code diff between two runs (each its commit and uncommitted changes); with one run, its uncommitted changes')
    .argument('<run-a>', 'the run to diff from', parseRunId)
    .argument('[run-b]', 'the run to diff to', parseRunId)
    .option('--json', 'machine-readable output')
    .action(async (from: number, to: number | undefined, _options: unknown, command: Command) => {
      const global = globals(command);
      await withCore(global, async (core) => {
        await requireRun(core, from);
        const api = contractClient(core);
        if (to === undefined) {
          const own = await api['runs.codeDiff']({ id: from });
          print(global.json, own, () => (own.diff ?? `run ${from}: ${own.reason ?? 'no diff'}`).replace(/\n$/u, ''));
          return;
        }
        await requireRun(core, to);
        const answer = await api['runs.codeDiffBetween']({ fromId: from, toId: to });
        print(global.json, answer, () => {
          const head = `# run ${answer.from.runId} (${answer.from.code}) → run ${answer.to.runId} (${answer.to.code}), in ${answer.root}\n`;
          const tail = answer.truncated
            ? `# only the first 2 MiB of ${answer.bytes} bytes: \`git -C ${answer.root} diff ${answer.from.tree} ${answer.to.tree}\` shows all\n`
            : '';
          return `${head}${answer.diff === '' ? '# no difference in the code\n' : answer.diff}${tail}`.replace(/\n$/u, '');
        });
      });
    });

  program
    .command('log')
    .description("a run's stored terminal output (ANSI stripped unless --raw)")
    .argument('<run-id>', 'the run', parseRunId)
    .option('--raw', 'the exact bytes the program wrote')
    .action(async (id: number, options: { raw?: boolean }, command: Command) => {
      await withCore(globals(command), async (core) => {
        await requireRun(core, id);
        await core.writeRunLog(id, options.raw ? 'raw' : 'plain', process.stdout);
      });
    });

  program
    .command('metrics')
    .description("a run's parsed metric values: step, time, name, value")
    .argument('<run-id>', 'the run', parseRunId)
    .option('--json', 'machine-readable output')
    .action(async (id: number, _options: unknown, command: Command) => {
      const global = globals(command);
      await withCore(global, async (core) => {
        await requireRun(core, id);
        // Streamed: a long run has tens of millions of values. JSON has no NaN: non-finite values are "nan", "inf", "-inf".
        const written = await core.writeRunMetrics(id, global.json ? 'json' : 'table', process.stdout);
        if (written === 0) process.stdout.write(global.json ? '[]\n' : `run ${id} has no parsed metric values\n`);
      });
    });

  program
    .command('import')
    .description('a log produced elsewhere, parsed into a run (read in pieces: any size up to --max-bytes)')
    .argument('<logfile>', 'the log file (- for standard input)')
    .option('--name <name>', 'a name for the run (default: the file name)')
    .option('--max-bytes <size>', 'refuse a log larger than this: bytes, or with K, M, G (default 2G)', parseByteSize)
    .option('--json', 'print the run as JSON')
    .action(async (file: string, options: { name?: string; maxBytes?: number }, command: Command) => {
      const global = globals(command);
      await withCore(global, (core) => importCommand(core, file, { ...options, json: global.json === true }));
    });

  program
    .command('reparse')
    .description("parse runs' stored output again with today's parsers and the workload's current regex (the old summary is kept)")
    .argument('<run-ids...>', 'the runs', (value: string, previous: number[] = []) => [...previous, parseRunId(value)])
    .option('--workload <name>', 'file the runs under this workload first, so its regex applies (for imports and ad-hoc runs)')
    .option('--json', 'machine-readable output')
    .action(async (ids: number[], options: { workload?: string }, command: Command) => {
      const global = globals(command);
      await withCore(global, (core) => reparseCommand(core, ids, { ...options, json: global.json === true }));
    });

  const workloadOptions = (command: Command) =>
    command
      .option('--cwd <dir>', 'directory the command runs in (default: where you stand)')
      .option('--shell', 'the command is one shell script (values are shell-quoted into it)')
      .option('--description <text>', 'what it is')
      .option('--tokens-per-step <expr>', 'tokens in one step, as arithmetic of the variables: "{batch} * {seq_len}"')
      .option('--regex <pattern>', 'its own metric regex with named groups: "step (?<step>\\d+).*loss (?<loss>[\\d.]+)"')
      .option('--env <var=value>', 'an environment variable (repeatable)', collect, [])
      .option('--var <name=default>', "a {placeholder}'s default value (repeatable)", collect, [])
      .option('--warmup-steps <n>', 'warm-up steps of every run of it, set by hand (auto: the automatic rule)')
      .option('--exclude-steps <list>', 'steps left out of every run of it: 40,41,90-95');
  const workloads = program
    .command('workloads')
    .description('registered workloads (`synthetic` is always there): list, add, edit, rm')
    .option('--json', 'machine-readable output')
    .action(async (_options: unknown, command: Command) => {
      const global = globals(command);
      await withCore(global, async (core) => {
        const list = await contractClient(core)['workloads.list']({});
        print(global.json, list, () => formatWorkloads(list));
      });
    });
  workloadOptions(workloads.command('add').description('register a command template: `workloads add NAME -- python train.py --batch {batch}`'))
    .argument('<name>', 'its name')
    .argument('[command...]', 'the template after --, with {var} placeholders')
    .action(async (name: string, commandArgs: string[], options: WorkloadOptions, command: Command) => {
      const global = globals(command);
      await withCore(global, (core) => addWorkload(core, name, commandArgs, options, global.json === true));
    });
  workloadOptions(workloads.command('edit').description('change a workload you registered (give only what changes)'))
    .option('--rename <name>', 'a new name')
    .argument('<name>', 'its name')
    .argument('[command...]', 'a new template after --')
    .action(async (name: string, commandArgs: string[], options: WorkloadOptions & { rename?: string }, command: Command) => {
      const global = globals(command);
      await withCore(global, (core) => editWorkload(core, name, commandArgs, options, global.json === true));
    });
  workloads
    .command('rm')
    .description('remove a workload you registered; its runs are kept')
    .argument('<name>', 'its name')
    .action(async (name: string, _options: unknown, command: Command) => {
      const global = globals(command);
      await withCore(global, (core) => removeWorkload(core, name, global.json === true));
    });

  program
    .command('steps')
    .description("a run's warm-up and left-out steps set by hand; its summary made again from what it stored (no re-run)")
    .argument('<run-id>', 'the run', parseRunId)
    .option('--warmup-steps <n>', 'warm-up steps (auto: the automatic rule again)')
    .option('--exclude-steps <list>', 'steps left out of the steady statistics: 40,41,90-95 (an empty list puts them back)')
    .option('--json', 'print the run as JSON')
    .action(async (id: number, options: StepFlags, command: Command) => {
      const global = globals(command);
      await withCore(global, (core) => stepsCommand(core, id, options, global.json === true));
    });

  program
    .command('serve')
    .description('headless UI on 127.0.0.1; prints its URL with the token')
    .option('--port <n>', 'port (default: a free one)', (value: string) => {
      const port = Number(value);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new InvalidArgumentError(`--port takes a port number, 0-65535 (0: a free one); got "${value}"`);
      return port;
    })
    .action(async (options: { port?: number }, command: Command) => {
      const core = openCore(globals(command));
      let server;
      try {
        // Loaded only here: the HTTP and WebSocket server (ws) is no part of any other command's start.
        const { startServer } = await import('../server/server.js');
        server = await startServer({ core, rendererDir: defaultRendererDir(), ...(options.port !== undefined ? { port: options.port } : {}) });
      } catch (error) {
        await core.close();
        throw error;
      }
      process.stdout.write(`Tuning Bench is serving ${core.dbPath}\nOpen ${server.url}\n(Ctrl-C stops it)\n`);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        // A dropped SSH session (SIGHUP) ends the server as Ctrl-C does: its runs stop cleanly and GPU settings are put back.
        for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, stop);
        process.stdout.on('error', () => undefined);
        process.stderr.on('error', () => undefined);
      });
      await server.close();
      await core.close();
    });

  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  // Under --json a script reads stdout: a failure is a JSON object there too (the message also goes to stderr).
  const options = argv.slice(2);
  const commandStart = options.indexOf('--');
  // Only tuning-bench's own options: a `--json` after `--` belongs to the user's command.
  const json = (commandStart < 0 ? options : options.slice(0, commandStart)).includes('--json');
  const fail = (status: number, code: string, message: string) => {
    process.stderr.write(`tuning-bench: ${message}\n`);
    if (json) process.stdout.write(`${JSON.stringify({ error: { code, message, exitStatus: status } }, null, 2)}\n`);
    return status;
  };
  try {
    await program.parseAsync(argv);
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are "errors" to commander; they exit 0. Commander has already printed its message.
      if (error.exitCode === 0) return 0;
      if (json)
        process.stdout.write(`${JSON.stringify({ error: { code: 'bad_arguments', message: error.message, exitStatus: EXIT_BAD_ARGUMENTS } }, null, 2)}\n`);
      return EXIT_BAD_ARGUMENTS;
    }
    const { status, code, message } = exitStatusOf(error);
    return fail(status, code, message);
  }
}
